/**
 * A search that is not public when the content is not (`server.auth`): every page, the JSON API and
 * the dashboard ask for HTTP Basic or a bearer token; /healthz stays open for a load balancer. The
 * admin token (admin.ts) passes too: an admin's request carries one Authorization header, and the
 * admin token is the stronger of the two. Compared in constant time, by their digests.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { HttpError } from './errors.ts';

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
    if (sameToken(given, expected) || (admin !== undefined && sameToken(given, admin))) return next();
    throw new HttpError(401, 'unauthorized', 'this search needs a login (server.auth)', { 'www-authenticate': challenge });
  };
}

/** Compares tokens in constant time (their digests, so that lengths do not leak either). */
export function sameToken(given: string, token: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t).digest();
  return timingSafeEqual(digest(given), digest(token));
}
