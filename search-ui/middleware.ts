/**
 * The order a request goes through before its route, as one table (Scrapy's habit): each entry
 * names what it is, the paths it applies to, why it sits where it does, and how it is made from
 * the deps (undefined: off, as the login is without server.auth). `useMiddleware` applies them in
 * this order: the first wraps all the others (it sees every answer last), and an entry that refuses
 * a request (throws an HttpError) stops it before the ones below and the route.
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { requireAccess } from './access.ts';
import { compressResponses } from './compress.ts';
import { apiCors } from './cors.ts';
import type { UiDeps } from './deps.ts';
import type { ServerEnv } from './errors.ts';
import { checkHost, hstsOverHttps } from './guards.ts';
import { revalidateJson } from './http-cache.ts';
import { apiRateLimit } from './rate-limit.ts';

export type MiddlewareEntry = {
  readonly name: string;
  /** The paths it applies to, as Hono matches them (`*`: all). */
  readonly path: string;
  /** Why it sits where it does. */
  readonly why: string;
  readonly make: (deps: UiDeps) => MiddlewareHandler<ServerEnv> | undefined;
};

/** The pages' security headers: a strict Content-Security-Policy (every script and style is the server's own). */
const pageSecurity = () =>
  secureHeaders({
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'", 'data:'],
      objectSrc: ["'none'"],
      baseUri: ["'none'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    referrerPolicy: 'no-referrer',
    strictTransportSecurity: false,
    // A route may set one of these itself: /widget.js is loaded by other sites' pages.
    overwrite: false,
  });

export const MIDDLEWARE: readonly MiddlewareEntry[] = [
  {
    name: 'compression',
    path: '*',
    why: 'outermost: it sees the final answer to every request, refusals included, and weakens the ETags given inside it when it changes the bytes',
    make: () => compressResponses(),
  },
  {
    name: 'host check',
    path: '*',
    why: 'before anything else answers: a page on a rebound name (DNS rebinding) gets 421 and learns nothing, not even that a login is asked',
    make: (deps) => checkHost(deps.hosts),
  },
  {
    name: 'CORS',
    path: '*',
    why:
      'before the login: a preflight carries no credentials and must still be answered, ' +
      "and a 401 to another origin's page carries the headers that let that page read it",
    make: (deps) => apiCors(deps.corsOrigins),
  },
  {
    name: 'login',
    path: '*',
    why: 'server.auth, before every route (/healthz passes: access.ts) and before the rate limit: a request without the login spends no token',
    make: (deps) => (deps.serverAuth ? requireAccess(deps.serverAuth, deps.adminToken) : undefined),
  },
  {
    name: 'secure headers',
    path: '*',
    why:
      "around what the routes answer: the pages' Content-Security-Policy, nosniff, frame options " +
      '(the refusals above are short text or JSON, sent without them)',
    make: () => pageSecurity(),
  },
  {
    name: 'HSTS',
    path: '*',
    why: 'beside the secure headers, which leave Strict-Transport-Security to it: sent over HTTPS only, where it means something',
    make: () => hstsOverHttps(),
  },
  {
    name: 'API rate limit',
    path: '/api/*',
    why: "a token bucket per address, before any API handler runs: a 429 costs no search (a coordinator's shard requests pass: rate-limit.ts)",
    make: (deps) => apiRateLimit(deps.apiRate, deps.adminToken),
  },
  {
    name: 'revalidation',
    path: '/api/*',
    why: 'innermost: it reads the JSON body the handler made to give it an ETag, and answers 304 when the client already holds that',
    make: () => revalidateJson(),
  },
];

/** Applies the table, in its order. */
export function useMiddleware(app: Hono<ServerEnv>, deps: UiDeps): void {
  for (const entry of MIDDLEWARE) {
    const handler = entry.make(deps);
    if (handler) app.use(entry.path, handler);
  }
}
