/**
 * The JSON API's endpoints as OpenAPI routes: method, path, parameters, bodies and answers, each
 * made of the schemas in schemas.ts. app.ts and admin.ts implement them; the OpenAPI document is
 * generated from them, and the endpoints that answer something other than JSON (server-sent
 * events, the metrics, OpenSearch) are described here too, by `describeOthers`.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Env } from 'hono';
import {
  DocumentQuery,
  ErrorSchema,
  ExplanationSchema,
  SearchQuery,
  SearchResponseSchema,
  StatusSchema,
  SuggestQuery,
  SuggestResponseSchema,
  UnknownUrlSchema,
} from './schemas.ts';

const json = <S extends z.ZodType>(schema: S, description: string) => ({ description, content: { 'application/json': { schema } } });
const error = (description: string) => json(ErrorSchema, description);
const ERRORS = {
  400: error('Bad request (code: missing-query, bad-query, bad-parameter, bad-body, bad-target)'),
  401: error('No valid admin token (code: unauthorized)'),
  403: error('Admin actions are off: no server.adminToken (code: admin-disabled)'),
  413: error('Body over 64 KB (code: too-large)'),
  429: error('Too many requests from this address (code: rate-limited); see Retry-After'),
} as const;
const ADMIN = { security: [{ bearer: [] }] };
/** Every JSON answer carries an ETag and Cache-Control: no-cache (search-ui/http-cache.ts). */
const NOT_MODIFIED = { 304: { description: 'Not modified: the ETag sent in If-None-Match still holds' } } as const;

export const searchRoute = createRoute({
  method: 'get',
  path: '/api/search',
  summary: 'Search',
  description:
    'Answers other origins too, those of server.corsOrigins (CORS). The ETag (weak) changes when the index does: a repeated search is a 304 until then.',
  request: { query: SearchQuery },
  responses: { 200: json(SearchResponseSchema, 'Results, best first'), ...NOT_MODIFIED, 400: ERRORS[400], 429: ERRORS[429] },
});

export const suggestRoute = createRoute({
  method: 'get',
  path: '/api/suggest',
  summary: 'Suggestions as you type: the query with its last word completed',
  description:
    "Completions of the last word from the index's words, the most frequent first. Answers the origins of server.corsOrigins too, with a weak ETag that changes when the index does.",
  request: { query: SuggestQuery },
  responses: { 200: json(SuggestResponseSchema, 'Completed queries, the most frequent completion first'), ...NOT_MODIFIED, 400: ERRORS[400], 429: ERRORS[429] },
});

export const statusRoute = createRoute({
  method: 'get',
  path: '/api/status',
  summary: 'The crawl and the index now',
  responses: { 200: json(StatusSchema, 'Status'), ...NOT_MODIFIED, 429: ERRORS[429] },
});

export const documentRoute = createRoute({
  method: 'get',
  path: '/api/document',
  summary: 'What Trawl knows of a URL: why it is (not) in the index',
  request: { query: DocumentQuery },
  responses: {
    200: json(ExplanationSchema, 'The URL record'),
    ...NOT_MODIFIED,
    400: ERRORS[400],
    404: json(UnknownUrlSchema, 'Trawl has no record of the URL (code: unknown-url)'),
    429: ERRORS[429],
  },
});

/** An http(s) URL as an admin action takes it. */
const HttpUrl = z
  .string()
  .max(2048)
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

export const SeedsBody = z.object({
  urls: z
    .array(z.string().max(2048), { error: 'expected {"urls": ["https://…", …]}: a non-empty list of URLs' })
    .min(1, { error: 'expected {"urls": ["https://…", …]}: a non-empty list of URLs' })
    .max(MAX_SEEDS_PER_REQUEST, { error: `at most ${MAX_SEEDS_PER_REQUEST} seeds per request` }),
});

/** Exactly one of url, host or all: true. */
export const RecrawlBody = z
  .union([z.strictObject({ url: HttpUrl }), z.strictObject({ host: HostName }), z.strictObject({ all: z.literal(true) })])
  .openapi({ description: 'Exactly one of url, host or all' });

/** Exactly one of url or host. */
export const RemoveQuery = z
  .object({ url: HttpUrl.optional(), host: HostName.optional() })
  .refine((t) => (t.url === undefined) !== (t.host === undefined))
  .openapi({ description: 'Exactly one of url or host' });

const body = <S extends z.ZodType>(schema: S) => ({ required: true, content: { 'application/json': { schema } } });
const adminErrors = { 401: ERRORS[401], 403: ERRORS[403], 429: ERRORS[429] };

export const seedsRoute = createRoute({
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
export const pauseRoute = createRoute({
  method: 'post',
  path: '/pause',
  ...ADMIN,
  summary: 'Pause the crawl (requests in flight finish)',
  responses: { 200: pausedAnswer, ...adminErrors },
});
export const resumeRoute = createRoute({
  method: 'post',
  path: '/resume',
  ...ADMIN,
  summary: 'Resume the crawl',
  responses: { 200: pausedAnswer, ...adminErrors },
});

export const recrawlRoute = createRoute({
  method: 'post',
  path: '/recrawl',
  ...ADMIN,
  summary: 'Queue a URL, a host or everything again',
  request: { body: body(RecrawlBody) },
  responses: { 200: json(z.object({ queued: z.number().int() }), 'How many URLs were queued'), 400: ERRORS[400], 413: ERRORS[413], ...adminErrors },
});

export const removeRoute = createRoute({
  method: 'delete',
  path: '/documents',
  ...ADMIN,
  summary: 'Remove a URL or a host from the index (and keep the crawl from bringing it back)',
  request: { query: RemoveQuery },
  responses: { 200: json(z.object({ removed: z.number().int() }), 'How many pages were removed'), 400: ERRORS[400], ...adminErrors },
});

/** The endpoints that do not answer JSON, described in the same document. */
export function describeOthers<E extends Env>(app: OpenAPIHono<E>): void {
  const text = (type: string, description: string) => ({ 200: { description, content: { [type]: { schema: z.string() } } } });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/api/events',
    summary: 'Server-sent events: a "status" event each second ({summary, running, html}: the dashboard fragment)',
    responses: {
      ...text('text/event-stream', 'The event stream'),
      429: ERRORS[429],
      503: error('Too many event streams open (server.maxEventStreams; code: too-many-streams); see Retry-After'),
    },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/healthz',
    summary: 'Liveness',
    responses: {
      200: json(
        z.object({
          ok: z.literal(true),
          documents: z.number().int(),
          shards: z
            .array(z.object({ url: z.string(), shard: z.string().nullable(), up: z.boolean(), documents: z.number().int(), error: z.string().optional() }))
            .optional()
            .openapi({ description: 'A coordinator (trawl serve --shards): its shards as last checked; it answers 503 (ok: false) only when none is up' }),
        }),
        'Alive, with the documents in the index',
      ),
      503: json(
        z.object({ ok: z.literal(false), documents: z.number().int(), store: z.literal('down'), since: z.string(), error: z.string() }),
        'The store (a PostgreSQL database) does not answer since `since`: searches answer from the index, which no longer follows the crawl',
      ),
    },
  });
  for (const [method, path, summary] of [
    ['post', '/api/shard/terms', "A coordinator's first round: the statistics of a query's terms in this shard (indexer/shards/statistics.ts TermReport)"],
    [
      'post',
      '/api/shard/search',
      "A coordinator's second round: the query ranked here with the corpus's statistics — candidates with exact scores before phrase evidence, evidence factors, SimHashes, hits, totals, every facet value",
    ],
    ['post', '/api/shard/hits', 'Results by id, with their snippets'],
    ['post', '/api/shard/suggest', "Completions with the corpus's statistics, as the index holds them and as a page here spells them"],
    ['get', '/api/shard/info', 'This node as a coordinator checks it: documents, index version, the shard it holds'],
  ] as const) {
    app.openAPIRegistry.registerPath({
      method,
      path,
      summary,
      description:
        'For a coordinator over shards (trawl serve --shards); behind server.auth, and with the admin token not counted by the rate limit. 404 (code not-a-shard) on a server with no index.',
      responses: { 200: { description: 'JSON' }, 400: ERRORS[400], 429: ERRORS[429] },
    });
  }
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics: the process (CPU, memory, event-loop lag, GC) and Trawl (searches, crawl, index)',
    responses: text('text/plain', 'The Prometheus text format 0.0.4'),
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/opensearch.xml',
    summary: 'OpenSearch description',
    responses: text('application/opensearchdescription+xml', 'The OpenSearch 1.1 description'),
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/widget.js',
    summary:
      'The search widget for other sites\' pages: <script src=".../widget.js"> then <trawl-search></trawl-search> or <div data-trawl-search></div> (README: "Put the search on your site")',
    responses: { ...text('text/javascript', 'The script (ETag; kept an hour)'), ...NOT_MODIFIED },
  });
  app.openAPIRegistry.registerPath({
    method: 'get',
    path: '/static/{file}',
    summary: "The search pages' script, style sheet and icon (app.js, style.css, favicon.svg, widget.js); with ?v= their version, kept a year",
    request: { params: z.object({ file: z.string() }), query: z.object({ v: z.string().optional() }) },
    responses: { ...text('text/javascript', 'The file, of its own type (ETag)'), ...NOT_MODIFIED, 404: error('No such file') },
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'server.adminToken or TRAWL_ADMIN_TOKEN' });
}
