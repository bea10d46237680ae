/**
 * The admin API: add seeds, pause, resume, recrawl, remove pages. Every route needs
 * `Authorization: Bearer <server.adminToken>` (Hono's bearerAuth; compared in constant time);
 * without a configured token the routes answer 403 and change nothing. Bodies are JSON, at most
 * 64 KB, validated by the schemas of ../api/routes.ts; answers and errors are JSON with a stable `code`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import type { Target } from '../../model/index.ts';
import { pauseRoute, recrawlRoute, removeRoute, resumeRoute, seedsRoute } from '../api/routes.ts';

export { MAX_SEEDS_PER_REQUEST } from '../api/routes.ts';

/** A URL, a host, or everything. */
export type AdminTarget = Target;

/** What the admin API may do to the crawl and the index (the appliance implements it). */
export interface AdminActions {
  addSeeds(urls: readonly string[]): Promise<{ queued: string[]; rejected: { url: string; reason: string }[] }>;
  pause(): Promise<void>;
  resume(): Promise<void>;
  recrawl(target: AdminTarget): Promise<{ queued: number }>;
  remove(target: { readonly url: string } | { readonly host: string }): Promise<{ removed: number }>;
}

const MAX_BODY_BYTES = 64 * 1024;
const ADMIN_ROUTES = [seedsRoute, pauseRoute, resumeRoute, recrawlRoute, removeRoute].map((r) => ({ method: r.method.toUpperCase(), path: r.path }));

/** A validation failure as a 400 with `code`, and `message` or else the first problem zod found. */
const refuse = (code: string, message?: string) => (result: { success: boolean; error?: { issues: readonly { message: string }[] } }, c: Context) =>
  result.success ? undefined : c.json({ error: message ?? result.error?.issues[0]?.message ?? 'bad request', code }, 400);

export function adminRoutes(actions: AdminActions | undefined, token: string | undefined): OpenAPIHono {
  const api = new OpenAPIHono();
  const unauthorized = (c: Context) => c.json({ error: 'this action needs Authorization: Bearer <admin token>', code: 'unauthorized' }, 401);
  // (Mounted under /api beside the public endpoints: the guards apply to the admin routes only —
  // another method on their paths is a 405 — and run before a body is read or validated.)
  for (const { method, path } of ADMIN_ROUTES) {
    const use = (handler: MiddlewareHandler) => api.on(method, path, handler);
    use(async (c, next) => {
      if (!token || !actions)
        return c.json({ error: 'admin actions are off: set server.adminToken (or TRAWL_ADMIN_TOKEN) to turn them on', code: 'admin-disabled' }, 403);
      await next();
    });
    use(
      bearerAuth({
        verifyToken: (given) => sameToken(given, token!),
        noAuthenticationHeader: { message: (c) => unauthorized(c) },
        invalidAuthenticationHeader: { message: (c) => unauthorized(c) },
        invalidToken: { message: (c) => unauthorized(c) },
      }),
    );
    use(bodyLimit({ maxSize: MAX_BODY_BYTES, onError: (c) => c.json({ error: `request body over ${MAX_BODY_BYTES} bytes`, code: 'too-large' }, 413) }));
    use(bodyAsJson);
  }
  api.onError((e, c) => {
    if (!(e instanceof HTTPException)) throw e;
    // The JSON validator refuses a body that is not JSON, or not declared as JSON, by throwing.
    if (e.status === 400) return c.json({ error: 'the body must be JSON', code: 'bad-body' }, 400);
    if (e.status === 415) return c.json({ error: 'send the body as JSON, with Content-Type: application/json', code: 'bad-body' }, 415);
    // (bearerAuth refuses by throwing, with the response made above.)
    return e.getResponse();
  });

  const badTarget = (all: boolean) =>
    refuse('bad-target', `expected ${all ? 'one of url, host or all: true' : 'one of url or host'}, with an http(s) URL or a host name`);
  api.openapi(seedsRoute, async (c) => c.json(await actions!.addSeeds(c.req.valid('json').urls), 200), refuse('bad-body'));
  api.openapi(pauseRoute, async (c) => {
    await actions!.pause();
    return c.json({ paused: true }, 200);
  });
  api.openapi(resumeRoute, async (c) => {
    await actions!.resume();
    return c.json({ paused: false }, 200);
  });
  api.openapi(recrawlRoute, async (c) => c.json(await actions!.recrawl(c.req.valid('json')), 200), badTarget(true));
  api.openapi(
    removeRoute,
    async (c) => {
      const { url, host } = c.req.valid('query');
      return c.json(await actions!.remove(url !== undefined ? { url } : { host: host! }), 200);
    },
    badTarget(false),
  );
  return api;
}

/**
 * A body is read as JSON whatever type it was sent as: `curl -d '{…}'` says form-urlencoded, and
 * refusing it would only make a user guess the header. (A body that is not JSON is still a 400.)
 */
const bodyAsJson: MiddlewareHandler = async (c, next) => {
  const type = c.req.header('content-type');
  if (c.req.raw.body && !/^application\/([\w.+-]+\+)?json\b/i.test(type ?? '')) {
    const headers = new Headers(c.req.raw.headers);
    headers.set('content-type', 'application/json');
    c.req.raw = new Request(c.req.raw, { headers });
  }
  await next();
};

/** Compares tokens in constant time (their digests, so that lengths do not leak either). */
export function sameToken(given: string, token: string): boolean {
  const digest = (t: string) => createHash('sha256').update(t).digest();
  return timingSafeEqual(digest(given), digest(token));
}
