/**
 * Cross-origin requests (CORS) to the public search endpoints, for the origins of
 * `server.corsOrigins`: the search widget (static/widget.js) on another site's page asks Trawl from
 * the browser. Only searching is shared — never the status, the URL records, the event stream or
 * the admin actions, which answer their own origin alone.
 *
 * Mounted before `server.auth` (access.ts): a preflight carries no credentials and must still be
 * answered. Credentials are not shared across origins (no Access-Control-Allow-Credentials): a
 * search behind a login answers another site's page 401, which the widget shows.
 */
import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';

/** The endpoints another origin may call: the search, and its suggestions. */
export const PUBLIC_API: ReadonlySet<string> = new Set(['/api/search', '/api/suggest', '/api/analytics/events']);

/** `origins`: as `server.corsOrigins` holds them (normalized `scheme://host[:port]`, or `*`). */
export function apiCors(origins: readonly string[]): MiddlewareHandler {
  if (!origins.length) return (_c, next) => next();
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const shared = cors({
    origin: (origin) => (any ? '*' : origin),
    allowMethods: ['GET', 'HEAD'],
    allowHeaders: ['Accept', 'If-None-Match'],
    exposeHeaders: ['ETag', 'Retry-After'],
    maxAge: 600,
  });
  return async (c, next) => {
    if (!PUBLIC_API.has(c.req.path)) return next();
    const origin = c.req.header('origin');
    if (origin && (any || allowed.has(origin))) return shared(c, next);
    // Another origin gets no CORS header at all (its preflight is a 405 like any OPTIONS here);
    // the answer still varied with Origin, which shared caches must know.
    await next();
    if (!any) c.header('vary', 'Origin', { append: true });
  };
}
