/**
 * The admin API: add seeds, pause, resume, recrawl, remove pages. Every route needs
 * `Authorization: Bearer <server.adminToken>` (Hono's bearerAuth; compared in constant time);
 * without a configured token the routes answer 403 and change nothing. Bodies are JSON, at most
 * 64 KB; answers and errors are JSON with a stable `code`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';

/** A URL, a host, or everything. */
export type AdminTarget = { readonly url: string } | { readonly host: string } | { readonly all: true };

/** What the admin API may do to the crawl and the index (the appliance implements it). */
export interface AdminActions {
  addSeeds(urls: readonly string[]): Promise<{ queued: string[]; rejected: { url: string; reason: string }[] }>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  recrawl(target: AdminTarget): Promise<{ queued: number }>;
  remove(target: { readonly url: string } | { readonly host: string }): Promise<{ removed: number }>;
}

/** Seeds accepted in one request (a larger list is a 400: send it in parts). */
export const MAX_SEEDS_PER_REQUEST = 1000;
const MAX_BODY_BYTES = 64 * 1024;
const ADMIN_PATHS = ['/seeds', '/pause', '/resume', '/recrawl', '/documents'];

/** A request the admin API refuses (400), with a stable code. */
class AdminError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function adminRoutes(actions: AdminActions | undefined, token: string | undefined): Hono {
  const api = new Hono();
  const unauthorized = (c: Context) => c.json({ error: 'this action needs Authorization: Bearer <admin token>', code: 'unauthorized' }, 401);
  // (Mounted under /api beside the public endpoints: the guards apply to the admin paths only.)
  for (const path of ADMIN_PATHS) {
    api.use(path, async (c, next) => {
      if (!token || !actions) return c.json({ error: 'admin actions are off: set server.adminToken (or TRAWL_ADMIN_TOKEN) to turn them on', code: 'admin-disabled' }, 403);
      await next();
    });
    api.use(
      path,
      bearerAuth({
        verifyToken: (given) => sameToken(given, token!),
        noAuthenticationHeader: { message: (c) => unauthorized(c) },
        invalidAuthenticationHeader: { message: (c) => unauthorized(c) },
        invalidToken: { message: (c) => unauthorized(c) },
      }),
    );
    api.use(path, bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: `request body over ${MAX_BODY_BYTES} bytes`, code: 'too-large' }, 413) }));
  }
  api.onError((e, c) => {
    if (e instanceof AdminError) return c.json({ error: e.message, code: e.code }, 400);
    // (bearerAuth refuses by throwing, with the response made above.)
    if (e instanceof HTTPException) return e.getResponse();
    throw e;
  });

  api.post('/seeds', async (c) => {
    const body = await jsonBody(c);
    const urls = body.urls;
    if (!Array.isArray(urls) || !urls.length || !urls.every((u) => typeof u === 'string' && u.length <= 2048)) throw new AdminError('bad-body', 'expected {"urls": ["https://…", …]}: a non-empty list of URLs');
    if (urls.length > MAX_SEEDS_PER_REQUEST) throw new AdminError('bad-body', `at most ${MAX_SEEDS_PER_REQUEST} seeds per request`);
    return c.json(await actions!.addSeeds(urls as string[]));
  });
  api.post('/pause', async (c) => (await actions!.pause(), c.json({ paused: true })));
  api.post('/resume', async (c) => (await actions!.resume(), c.json({ paused: false })));
  api.post('/recrawl', async (c) => c.json(await actions!.recrawl(target(await jsonBody(c), true))));
  api.delete('/documents', async (c) => {
    const url = c.req.query('url');
    const host = c.req.query('host');
    return c.json(await actions!.remove(target({ ...(url !== undefined ? { url } : {}), ...(host !== undefined ? { host } : {}) }, false) as { url: string } | { host: string }));
  });
  return api;
}

async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await c.req.json();
  } catch {
    throw new AdminError('bad-body', 'the body must be JSON');
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new AdminError('bad-body', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/** Exactly one of url, host (and, if allowed, all: true). */
function target(body: Record<string, unknown>, allowAll: boolean): AdminTarget {
  const given = ['url', 'host', 'all'].filter((k) => body[k] !== undefined);
  const expected = allowAll ? 'one of url, host or all: true' : 'one of url or host';
  if (given.length !== 1) throw new AdminError('bad-target', `expected ${expected}`);
  if (typeof body.url === 'string' && /^https?:\/\/\S+$/i.test(body.url) && body.url.length <= 2048) return { url: body.url };
  if (typeof body.host === 'string' && /^[a-z0-9.-]+(:\d{1,5})?$/i.test(body.host) && body.host.length <= 300) return { host: body.host.toLowerCase() };
  if (allowAll && body.all === true) return { all: true };
  throw new AdminError('bad-target', `expected ${expected}, with an http(s) URL or a host name`);
}

/** Compares tokens in constant time (their digests, so that lengths do not leak either). */
function sameToken(given: string, token: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t).digest();
  return timingSafeEqual(digest(given), digest(token));
}
