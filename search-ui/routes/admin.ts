/**
 * The admin API: add seeds, pause, resume, recrawl, remove pages. Every route needs
 * `Authorization: Bearer <server.adminToken>` (Hono's bearerAuth; compared in constant time);
 * without a configured token the routes answer 403 and change nothing. Bodies are JSON, at most
 * 64 KB, validated by the schemas of ../api/routes.ts; answers and errors are JSON with a stable `code`.
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import type { Target } from '../../model/index.ts';
import { pauseRoute, recrawlRoute, removeRoute, resumeRoute, seedsRoute } from '../api/routes.ts';
import { sameToken } from '../access.ts';
import { HttpError, refusal, type ServerEnv } from '../errors.ts';

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
const refuse = (code: string, message?: string) => (result: { success: boolean; error?: { issues: readonly { message: string }[] } }) => {
  if (!result.success) throw new HttpError(400, code, message ?? result.error?.issues[0]?.message ?? 'bad request');
  return undefined;
};

export function adminRoutes(actions: AdminActions | undefined, token: string | undefined): OpenAPIHono<ServerEnv> {
  const api = new OpenAPIHono<ServerEnv>();
  // (bearerAuth wants the answer itself, to add its WWW-Authenticate to.)
  const unauthorized = (c: Context<ServerEnv>) => refusal(c, new HttpError(401, 'unauthorized', 'this action needs Authorization: Bearer <admin token>'));
  // (Mounted under /api beside the public endpoints: the guards apply to the admin routes only —
  // another method on their paths is a 405 — and run before a body is read or validated.)
  for (const { method, path } of ADMIN_ROUTES) {
    const use = (handler: MiddlewareHandler<ServerEnv>) => api.on(method, path, handler);
    use(async (_c, next) => {
      if (!token || !actions) throw new HttpError(403, 'admin-disabled', 'admin actions are off: set server.adminToken (or TRAWL_ADMIN_TOKEN) to turn them on');
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
    use(
      bodyLimit({
        maxSize: MAX_BODY_BYTES,
        onError: () => {
          throw new HttpError(413, 'too-large', `request body over ${MAX_BODY_BYTES} bytes`);
        },
      }),
    );
    use(bodyAsJson);
  }

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
const bodyAsJson: MiddlewareHandler<ServerEnv> = async (c, next) => {
  const type = c.req.header('content-type');
  if (c.req.raw.body && !/^application\/([\w.+-]+\+)?json\b/i.test(type ?? '')) {
    const headers = new Headers(c.req.raw.headers);
    headers.set('content-type', 'application/json');
    c.req.raw = new Request(c.req.raw, { headers });
  }
  await next();
};
