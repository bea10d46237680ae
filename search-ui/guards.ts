/**
 * What the server refuses before any route runs, and how it answers a method a path does not have:
 *
 * - a `Host` the server does not answer to (DNS rebinding: a web page whose name is made to resolve
 *   to 127.0.0.1 would otherwise read a local Trawl's results and status through the browser),
 *   refused with an HttpError (421) that the one error handler answers (errors.ts);
 * - HSTS sent only over HTTPS, where it means something (over plain HTTP browsers ignore it, and a
 *   TLS-terminating proxy in front sets its own);
 * - the methods a path does answer, for 405 and `Allow` (routes/fallback.ts);
 * - the cap on open event streams (`StreamGate`, for the dashboard's /api/events).
 *
 * Where each middleware sits in the order is middleware.ts's table.
 */
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './errors.ts';

/** The names the server answers to: the address it listens on and `server.allowedHosts`. */
export type HostPolicy = { readonly bound?: string; readonly allowed?: readonly string[] };

/**
 * Whether a request's `Host` is one the server answers to. An IP literal always is (a browser
 * reached it by address: nothing was rebound), and so are `localhost`, the name the server was
 * bound to, and each of `allowed` (`*.example.org` for its subdomains, `*` for any name — behind a
 * proxy that checks names itself). A request without a Host (HTTP/1.0) is not from a browser.
 */
export function hostAllowed(hostHeader: string | undefined, policy: HostPolicy): boolean {
  if (!hostHeader) return true;
  const name = hostName(hostHeader);
  if (name === undefined) return false;
  if (isIpLiteral(name) || name === 'localhost') return true;
  const names = [...(policy.bound ? [policy.bound.toLowerCase()] : []), ...(policy.allowed ?? []).map((h) => h.toLowerCase())];
  return names.some((n) => n === '*' || n === name || (n.startsWith('*.') && name.endsWith(n.slice(1))));
}

/** The host name of a Host header, lower-case, without port or brackets; undefined if it is not one. */
function hostName(header: string): string | undefined {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+)(?::\d{1,5})?$/i.exec(header.trim());
  if (!m) return undefined;
  return m[1]!
    .toLowerCase()
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '');
}

function isIpLiteral(name: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(name) || (name.includes(':') && /^[0-9a-f:.]+$/.test(name));
}

/** 421 for a Host the server does not answer to, saying how to allow it. */
export function checkHost(policy: HostPolicy): MiddlewareHandler {
  return async (c, next) => {
    const host = c.req.header('host');
    if (hostAllowed(host, policy)) return next();
    const error = `this server does not answer to the name ${JSON.stringify(host)}: add it to server.allowedHosts (or TRAWL_ALLOWED_HOSTS) if it should`;
    throw new HttpError(421, 'unknown-host', error);
  };
}

/** How long a browser keeps to HTTPS once told (180 days, as Hono's secureHeaders would say). */
const HSTS_MAX_AGE_SECONDS = 180 * 86_400;

/** Strict-Transport-Security on HTTPS answers only. */
export function hstsOverHttps(maxAgeSeconds = HSTS_MAX_AGE_SECONDS): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (new URL(c.req.url).protocol === 'https:') c.res.headers.set('strict-transport-security', `max-age=${maxAgeSeconds}; includeSubDomains`);
  };
}

/**
 * The methods that some route answers for `path` (HEAD wherever GET is), from the app's routes;
 * empty when no route has the path. Middleware (method ALL) does not count.
 */
export function allowedMethods(routes: readonly { readonly method: string; readonly path: string }[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) if (r.method !== 'ALL' && patternOf(r.path).test(path)) methods.add(r.method);
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort();
}

const patterns = new Map<string, RegExp>();
/** A Hono route path (`/static/:file`, `/api/*`) as a regular expression. */
function patternOf(route: string): RegExp {
  let re = patterns.get(route);
  if (!re) {
    const body = route
      .split('/')
      .map((part) => (part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    re = new RegExp(`^${body}/?$`);
    patterns.set(route, re);
  }
  return re;
}

/** Open server-sent event streams, up to a cap: each holds a connection and a timer. */
export class StreamGate {
  private open = 0;
  constructor(readonly max: number) {}
  /**
   * Takes a place: the function that gives it back (once, however often it is called, so that
   * both the client's going and the stream's end may call it); undefined when all are taken.
   */
  enter(): (() => void) | undefined {
    if (this.open >= this.max) return undefined;
    this.open++;
    let held = true;
    return () => {
      if (held) this.open--;
      held = false;
    };
  }
  get count(): number {
    return this.open;
  }
}
