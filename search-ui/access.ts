/**
 * A search that is not public when the content is not (`server.auth`): every page, the JSON API and
 * the dashboard ask for HTTP Basic or a bearer token; /healthz stays open for a load balancer. The
 * admin token (admin.ts) passes too: an admin's request carries one Authorization header, and the
 * admin token is the stronger of the two. Compared in constant time, by their digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/** What `server.auth` holds (secrets read at start; only `reveal()` gives them). */
export type ServerAuth = {
  readonly basic?: { readonly username: string; readonly password: { reveal(): string } } | undefined;
  readonly bearer?: { readonly token: { reveal(): string } } | undefined;
};

const OPEN_PATHS = new Set(['/healthz']);

export function requireAccess(auth: ServerAuth, adminToken: string | undefined): MiddlewareHandler {
  const expected = auth.basic
    ? `Basic ${Buffer.from(`${auth.basic.username}:${auth.basic.password.reveal()}`).toString('base64')}`
    : auth.bearer
      ? `Bearer ${auth.bearer.token.reveal()}`
      : undefined;
  const admin = adminToken ? `Bearer ${adminToken}` : undefined;
  const challenge = auth.basic ? 'Basic realm="Trawl search", charset="UTF-8"' : 'Bearer realm="Trawl search"';
  return async (c, next) => {
    if (!expected || OPEN_PATHS.has(c.req.path)) return next();
    const given = c.req.header('authorization') ?? '';
    if (same(given, expected) || (admin !== undefined && same(given, admin))) return next();
    const error = 'this search needs a login (server.auth)';
    return c.req.path.startsWith('/api/')
      ? c.json({ error, code: 'unauthorized' }, 401, { 'www-authenticate': challenge })
      : c.text(error, 401, { 'www-authenticate': challenge });
  };
}

function same(a: string, b: string): boolean {
  const d = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(d(a), d(b));
}
