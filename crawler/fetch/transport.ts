/**
 * The fetcher's transport on a company network: which undici dispatcher carries a request — direct,
 * through a proxy (fetch.proxy, or HTTP_PROXY / HTTPS_PROXY / NO_PROXY), trusting extra CAs
 * (fetch.caFile), and, for the hosts opted in one by one, without checking their certificate.
 *
 * The address policy's lookup (address-policy.ts) runs on direct connections only: through a proxy
 * the proxy resolves the target's name, so the crawler never sees the address it connects to (only
 * an IP-literal URL, which the fetcher checks before the request, is still held to the policy). The
 * proxy itself is the operator's choice and is not checked either.
 */
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates, type ConnectionOptions } from 'node:tls';
import type { Dispatcher } from 'undici';
import { undici } from './undici-parts.ts';

export type TransportOptions = {
  readonly timeoutMs: number;
  readonly connectionsPerOrigin: number;
  /** fetch.proxy: an http(s):// proxy URL (credentials in it allowed: user:pass@host) — every request goes through it. */
  readonly proxy?: string;
  /** Use HTTP_PROXY / HTTPS_PROXY / NO_PROXY from the environment when no proxy is given (undici's EnvHttpProxyAgent). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Extra CA certificates (PEM file contents), trusted besides the system's. */
  readonly ca?: readonly string[];
  /** Hosts (host or host:port) whose certificate is not checked (self-signed): opt-in, per host. */
  readonly insecureHosts?: readonly string[];
  /** The address policy's DNS lookup (crawler/fetch/address-policy.ts), for direct connections only. */
  readonly lookup?: LookupFunction;
};

export type Transport = {
  /** The dispatcher for a request to `url` (the insecure one for an opted-in HTTPS host). */
  dispatcherFor(url: URL): Dispatcher;
  /** Closes every dispatcher (waits for requests in flight). */
  close(): Promise<void>;
  /** How requests leave, for the log and the status: e.g. "through proxy http://proxy:3128 (from HTTPS_PROXY)" — never a password. */
  describe(): string;
};

/** A proxy and where it was set. */
type Proxy = { readonly uri: URL; readonly from: string };

/** Where requests go: straight out, one proxy for all, or the environment's proxies per scheme. */
type Route =
  | { readonly kind: 'direct' }
  | { readonly kind: 'proxy'; readonly proxy: Proxy }
  | { readonly kind: 'env'; readonly http?: Proxy; readonly https?: Proxy; readonly noProxy: string };

/** A proxy URL; `host:port` without a scheme means http:// (as curl reads HTTP_PROXY). Throws naming the setting. */
function proxyUrl(value: string, from: string): Proxy {
  let uri: URL;
  try {
    uri = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `http://${value}`);
  } catch {
    throw new Error(`${from}: "${redact(value)}" is not a proxy URL (http://host:port or https://host:port)`);
  }
  if (uri.protocol !== 'http:' && uri.protocol !== 'https:') throw new Error(`${from}: a proxy must be http:// or https://, not ${uri.protocol}//`);
  return { uri, from };
}

/** A proxy setting as it may be shown: the origin, and whether credentials were given — never them. */
const shown = (p: Proxy) => `${p.uri.origin}${p.uri.username || p.uri.password ? ' (with credentials)' : ''} (from ${p.from})`;
/** Where the one proxy of both schemes was named: in one variable, or in both. */
const namedBy = (http: Proxy, https: Proxy): string => (https === http ? http.from : `${http.from}, ${https.from}`);
const redact = (value: string) => value.replace(/\/\/[^@/]*@/, '//***@');

/** fetch.proxy wins; else the environment, lower case first (as undici and curl read it). */
function routeOf(o: TransportOptions): Route {
  if (o.proxy) return { kind: 'proxy', proxy: proxyUrl(o.proxy, 'fetch.proxy') };
  const env = o.env ?? {};
  const pick = (name: string) => {
    const lower = name.toLowerCase();
    const value = env[lower] ?? env[name];
    return value ? proxyUrl(value, env[lower] !== undefined ? lower : name) : undefined;
  };
  const http = pick('HTTP_PROXY');
  const https = pick('HTTPS_PROXY');
  if (!http && !https) return { kind: 'direct' };
  return { kind: 'env', ...(http ? { http } : {}), ...(https ? { https } : {}), noProxy: env.no_proxy ?? env.NO_PROXY ?? '' };
}

/** An insecureHosts entry: a host name or address, with a port or for every port. Throws on anything else. */
type HostEntry = { readonly hostname: string; readonly port?: string };
function hostEntry(entry: string): HostEntry {
  const raw = isIP(entry) === 6 ? `[${entry}]` : entry.trim();
  let u: URL | undefined;
  try {
    u = new URL(`https://${raw}`);
  } catch {
    u = undefined;
  }
  if (u?.pathname !== '/' || u.search || u.hash || u.username || raw.includes('/'))
    throw new Error(`fetch.insecureHosts: "${entry}" is not a host or host:port`);
  // (URL drops a default port: read it from the entry, so that "host:443" means port 443 only.)
  const port = /\]?:(\d+)$/.exec(raw)?.[1];
  return { hostname: u.hostname, ...(port !== undefined ? { port: String(Number(port)) } : {}) };
}

const portOf = (url: URL) => url.port || (url.protocol === 'https:' ? '443' : '80');

export function createTransport(o: TransportOptions): Transport {
  const route = routeOf(o);
  const insecure = (o.insecureHosts ?? []).map(hostEntry);
  // One secure context for every connection: handing undici `ca` instead would build one per TLS
  // connection (~20 ms of CPU to parse the 140-odd roots each time).
  const trusted: ConnectionOptions = o.ca?.length ? { secureContext: createSecureContext({ ca: [...rootCertificates, ...o.ca] }) } : {};
  const pool = { headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs, keepAliveTimeout: 10_000, connections: o.connectionsPerOrigin };
  const { Agent, EnvHttpProxyAgent, Pool, ProxyAgent } = undici();
  const build = (targetTls: ConnectionOptions): Dispatcher => {
    const direct = { connect: { timeout: o.timeoutMs, ...(o.lookup ? { lookup: o.lookup } : {}), ...targetTls } };
    const viaProxy = {
      // Plain http goes to the proxy in absolute-form (GET http://host/path), as proxies expect;
      // https through a CONNECT tunnel. (undici 7 would tunnel plain http too, by default.)
      proxyTunnel: false,
      // The proxy's own certificate (an https:// proxy) is always checked, with the extra CAs.
      proxyTls: { timeout: o.timeoutMs, ...trusted },
      requestTls: { timeout: o.timeoutMs, ...targetTls },
      // The CONNECTs share one pool to the proxy: the same timeouts (a proxy that never answers a
      // CONNECT fails in time), but no per-origin cap — each CONNECT's socket leaves the pool as a tunnel.
      clientFactory: (origin: URL, opts: object) => new Pool(origin, { ...opts, headersTimeout: o.timeoutMs, bodyTimeout: o.timeoutMs }),
      // A pool per target origin (tunnelled, or forwarded to the proxy in absolute-form): the usual limits.
      factory: (origin: string | URL, opts: object) => new Pool(origin, { ...pool, ...opts }),
    };
    switch (route.kind) {
      case 'direct':
        return new Agent({ ...pool, ...direct });
      case 'proxy':
        return new ProxyAgent({ ...pool, ...viaProxy, uri: route.proxy.uri.href });
      case 'env':
        // Every value given (empty when unset), so that undici never reads process.env itself.
        return new EnvHttpProxyAgent({
          ...pool,
          ...direct,
          ...viaProxy,
          httpProxy: route.http?.uri.href ?? '',
          httpsProxy: route.https?.uri.href ?? '',
          noProxy: route.noProxy,
        });
    }
  };
  const secure = build(trusted);
  const lax = insecure.length ? build({ rejectUnauthorized: false }) : undefined;
  const isInsecure = (url: URL) =>
    url.protocol === 'https:' && insecure.some((h) => h.hostname === url.hostname && (h.port === undefined || h.port === portOf(url)));

  // This machine's loopback is never reached through a proxy elsewhere (HTTPS_PROXY set for the world,
  // in a CI job, say): there, 127.0.0.1 would be the proxy's own machine. (A proxy on this machine's
  // loopback may carry them: it sees the same loopback.)
  const isLoopback = (url: URL) => /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/i.test(url.hostname);
  const remoteProxy = route.kind === 'env' && [route.http, route.https].some((p) => p && !isLoopback(p.uri));
  const local = remoteProxy ? new Agent({ ...pool, connect: { timeout: o.timeoutMs, ...(o.lookup ? { lookup: o.lookup } : {}), ...trusted } }) : undefined;
  return {
    dispatcherFor: (url) => (lax && isInsecure(url) ? lax : local && isLoopback(url) ? local : secure),
    close: async () => {
      await Promise.all([secure, lax, local].map((d) => d?.close()));
    },
    describe: () => {
      const parts = [describeRoute(route)];
      if (o.ca?.length) parts.push(`${o.ca.length} extra CA certificate${o.ca.length > 1 ? 's' : ''} trusted`);
      if (insecure.length) parts.push(`certificates not checked for ${(o.insecureHosts ?? []).join(', ')}`);
      if (o.lookup && route.kind !== 'direct') parts.push('the address policy checks direct connections only');
      return parts.join('; ');
    },
  };
}

function describeRoute(route: Route): string {
  switch (route.kind) {
    case 'direct':
      return 'direct';
    case 'proxy':
      return `through proxy ${shown(route.proxy)}`;
    case 'env': {
      // Like undici: HTTP_PROXY alone serves https too; HTTPS_PROXY alone leaves http direct.
      const https = route.https ?? route.http;
      const each = (p: Proxy | undefined) => (p ? `through proxy ${shown(p)}` : 'direct');
      const same = route.http && https && https.uri.href === route.http.uri.href;
      const byScheme = same
        ? `through proxy ${shown({ uri: route.http!.uri, from: namedBy(route.http!, https) })} for http and https`
        : `http ${each(route.http)}, https ${each(https)}`;
      const except = route.noProxy.trim() ? `, except NO_PROXY hosts (${route.noProxy.trim()})` : '';
      return byScheme + except;
    }
  }
}
