/**
 * A forward HTTP proxy on loopback, as a company network has: plain-HTTP requests in absolute-form
 * (`GET http://host:port/path`) are forwarded, `CONNECT host:port` opens a tunnel (HTTPS). With
 * `auth`, both need `Proxy-Authorization: Basic …` (else 407). It reaches loopback only — never
 * the Internet — and resolves names itself, like a real proxy: `localhost`, and `<site>.intranet.test`
 * for each intranet host (names no DNS knows, so only a client that lets the proxy resolve gets there).
 */
import { createServer, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { connect, isIP, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { same } from './common.ts';
import { basicCredentials, type Credentials } from './sites.ts';

/** One request or tunnel the proxy was asked for. */
export type ProxyRequest = {
  /** `CONNECT`, or the forwarded request's method. */
  readonly method: string;
  /** `host:port` for a tunnel, the absolute URL for a forwarded request. */
  readonly target: string;
  readonly at: number;
  readonly proxyAuthorization?: string;
};

/** Headers that belong to one hop, never forwarded (RFC 9110 §7.6.1), and the proxy's own. */
const HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const named = new Set(
    String(headers.connection ?? '')
      .toLowerCase()
      .split(',')
      .map((s) => s.trim()),
  );
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP.has(k) && !named.has(k)));
}

export function proxyServer(names: ReadonlyMap<string, string>, log: ProxyRequest[], auth?: Credentials) {
  /** The loopback address of a host name or literal, or undefined: the proxy goes nowhere else. */
  const resolve = (host: string): string | undefined => {
    const h = host.replace(/^\[|\]$/g, '').toLowerCase();
    const address = h === 'localhost' ? '127.0.0.1' : (names.get(h) ?? (isIP(h) ? h : undefined));
    return address && (address.startsWith('127.') || address === '::1') ? address : undefined;
  };

  const authorized = (req: IncomingMessage) => {
    if (!auth) return true;
    const given = basicCredentials(req.headers['proxy-authorization']);
    return !!given && same(given.user, auth.user) && same(given.password, auth.password);
  };

  const note = (req: IncomingMessage) =>
    log.push({
      method: req.method ?? '',
      target: req.url ?? '',
      at: Date.now(),
      ...(req.headers['proxy-authorization'] !== undefined ? { proxyAuthorization: req.headers['proxy-authorization'] } : {}),
    });

  const server = createServer((req, res) => {
    note(req);
    if (!authorized(req)) {
      res.writeHead(407, { 'proxy-authenticate': 'Basic realm="proxy"', 'content-length': 0 });
      return res.end();
    }
    let target: URL;
    try {
      target = new URL(req.url ?? '');
    } catch {
      res.writeHead(400);
      return res.end('a proxy needs an absolute URL');
    }
    const address = target.protocol === 'http:' ? resolve(target.hostname) : undefined;
    if (!address) {
      res.writeHead(502);
      return res.end(`the proxy does not reach ${target.protocol}//${target.host}`);
    }
    // One connection per forwarded request (agent: false): nothing pooled outlives the test.
    const upstream = httpRequest(
      {
        host: address,
        port: Number(target.port || 80),
        method: req.method,
        path: target.pathname + target.search,
        headers: endToEnd(req.headers),
        agent: false,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, endToEnd(up.headers));
        up.pipe(res);
      },
    );
    upstream.on('error', (e) => {
      if (!res.headersSent) res.writeHead(502);
      res.end(String(e));
    });
    req.pipe(upstream);
  });

  server.on('connect', (req: IncomingMessage, client: Duplex, head: Buffer) => {
    note(req);
    client.on('error', () => client.destroy());
    if (!authorized(req))
      return void client.end('HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm="proxy"\r\nContent-Length: 0\r\n\r\n');
    const m = /^(\[[^\]]+\]|[^:]+):(\d+)$/.exec(req.url ?? '');
    const address = m ? resolve(m[1]!) : undefined;
    if (!m || !address) return void client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n');
    let open = false;
    const upstream: Socket = connect(Number(m[2]), address, () => {
      open = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // Before the tunnel is open the client still speaks HTTP to the proxy; after, only the target's bytes.
    upstream.on('error', () => (open ? client.destroy() : client.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')));
    client.on('close', () => upstream.destroy());
  });
  return server;
}
