/**
 * The admin API: add seeds, pause, resume, recrawl, remove pages. Every route needs
 * `Authorization: Bearer <server.adminToken>` (Hono's bearerAuth; compared in constant time);
 * without a configured token the routes answer 403 and change nothing. Bodies are JSON, at most
 * 64 KB, validated by the schemas declared below with the routes; answers and errors are JSON with a
 * stable `code`.
 */
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import type { Context, MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { bodyLimit } from 'hono/body-limit';
import type { Target } from '../../model/index.ts';
import { ADMIN, ERRORS, json } from '../api/openapi.ts';
import { MAX_URL_LENGTH } from '../api/schemas.ts';
import { sameToken } from '../access.ts';
import { HttpError, refusal, type ServerEnv } from '../errors.ts';

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

/** An http(s) URL as an admin action takes it. */
const HttpUrl = z
  .string()
  .max(MAX_URL_LENGTH)
  .regex(/^https?:\/\/\S+$/i)
  .openapi({ format: 'uri', example: 'https://example.org/page' });
/** A host name, with a port if any (compared lower-case). */
const HostName = z
  .string()
  .max(300)
  .regex(/^[a-z0-9.-]+(:\d{1,5})?$/i)
  .transform((h) => h.toLowerCase())
  .openapi({ example: 'docs.example.org' });

/** Seeds accepted in one request (a larger list is a 400: send it in parts). */
export const MAX_SEEDS_PER_REQUEST = 1000;

const SeedsBody = z.object({
  urls: z
    .array(z.string().max(MAX_URL_LENGTH), { error: 'expected {"urls": ["https://…", …]}: a non-empty list of URLs' })
    .min(1, { error: 'expected {"urls": ["https://…", …]}: a non-empty list of URLs' })
    .max(MAX_SEEDS_PER_REQUEST, { error: `at most ${MAX_SEEDS_PER_REQUEST} seeds per request` }),
});

/** Exactly one of url, host or all: true. */
const RecrawlBody = z
  .union([z.strictObject({ url: HttpUrl }), z.strictObject({ host: HostName }), z.strictObject({ all: z.literal(true) })])
  .openapi({ description: 'Exactly one of url, host or all' });

/** Exactly one of url or host. */
const RemoveQuery = z
  .object({ url: HttpUrl.optional(), host: HostName.optional() })
  .refine((t) => (t.url === undefined) !== (t.host === undefined))
  .openapi({ description: 'Exactly one of url or host' });

const body = <S extends z.ZodType>(schema: S) => ({ required: true, content: { 'application/json': { schema } } });
const adminErrors = { 401: ERRORS[401], 403: ERRORS[403], 429: ERRORS[429] };

const seedsRoute = createRoute({
  method: 'post',
  path: '/seeds',
  ...ADMIN,
  summary: 'Add seeds',
  request: { body: body(SeedsBody) },
  responses: {
    200: json(
      z.object({ queued: z.array(z.string()), rejected: z.array(z.object({ url: z.string(), reason: z.string() })) }),
      'The seeds queued, and those refused with why',
    ),
    400: ERRORS[400],
    413: ERRORS[413],
    ...adminErrors,
  },
});

const pausedAnswer = json(z.object({ paused: z.boolean() }), 'Whether the crawl is paused now');
const pauseRoute = createRoute({
  method: 'post',
  path: '/pause',
  ...ADMIN,
  summary: 'Pause the crawl (requests in flight finish)',
  responses: { 200: pausedAnswer, ...adminErrors },
});
const resumeRoute = createRoute({
  method: 'post',
  path: '/resume',
  ...ADMIN,
  summary: 'Resume the crawl',
  responses: { 200: pausedAnswer, ...adminErrors },
});

const recrawlRoute = createRoute({
  method: 'post',
  path: '/recrawl',
  ...ADMIN,
  summary: 'Queue a URL, a host or everything again',
  request: { body: body(RecrawlBody) },
  responses: { 200: json(z.object({ queued: z.number().int() }), 'How many URLs were queued'), 400: ERRORS[400], 413: ERRORS[413], ...adminErrors },
});

const removeRoute = createRoute({
  method: 'delete',
  path: '/documents',
  ...ADMIN,
  summary: 'Remove a URL or a host from the index (and keep the crawl from bringing it back)',
  request: { query: RemoveQuery },
  responses: { 200: json(z.object({ removed: z.number().int() }), 'How many pages were removed'), 400: ERRORS[400], ...adminErrors },
});

const MAX_BODY_BYTES = 64 * 1024;
const ADMIN_ROUTES = [seedsRoute, pauseRoute, resumeRoute, recrawlRoute, removeRoute].map((r) => ({ method: r.method.toUpperCase(), path: r.path }));

/** A validation failure as a 400 with `code`, and `message` or else the first problem zod found. */
const refuse = (code: string, message?: string) => (result: { success: boolean; error?: { issues: readonly { message: string }[] } }) => {
  if (!result.success) throw new HttpError(400, code, message ?? result.error?.issues[0]?.message ?? 'bad request');
  return undefined;
};

export function adminRoutes(actions: AdminActions | undefined, token: string | undefined): OpenAPIHono<ServerEnv> {
  const api = new OpenAPIHono<ServerEnv>();
  guard(api, actions, token);
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
 * The guards of every admin route, in order: admin actions on at all (else 403), the token (401),
 * the body's size (413), the body taken as JSON. (Mounted under /api beside the public endpoints:
 * they apply to the admin routes only — another method on their paths is a 405 — and run before a
 * body is read or validated.)
 */
function guard(api: OpenAPIHono<ServerEnv>, actions: AdminActions | undefined, token: string | undefined): void {
  // (bearerAuth wants the answer itself, to add its WWW-Authenticate to.)
  const unauthorized = (c: Context<ServerEnv>) => refusal(c, new HttpError(401, 'unauthorized', 'this action needs Authorization: Bearer <admin token>'));
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
