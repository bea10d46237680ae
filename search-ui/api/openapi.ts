/**
 * What the OpenAPI declarations of the routes share — a JSON answer, an error answer, the errors by
 * status, 304 — and the description of the endpoints that answer something other than JSON
 * (server-sent events, health, the shard rounds, the metrics, OpenSearch, static files), in the
 * same document (/api/openapi.json). Each route's own declaration (method, path, parameters,
 * bodies, answers, made of the schemas in schemas.ts) sits beside its handler, in routes/.
 */
import { type OpenAPIHono, z } from '@hono/zod-openapi';
import type { Env } from 'hono';
import { ErrorSchema } from './schemas.ts';

/** A JSON answer of `schema`. */
export const json = <S extends z.ZodType>(schema: S, description: string) => ({ description, content: { 'application/json': { schema } } });
/** An error answer: {error, code}. */
export const error = (description: string) => json(ErrorSchema, description);
/** The errors the routes declare, by status. */
export const ERRORS = {
  400: error('Bad request (code: missing-query, bad-query, bad-parameter, bad-body, bad-target)'),
  401: error('No valid admin token (code: unauthorized)'),
  403: error('Admin actions are off: no server.adminToken (code: admin-disabled)'),
  413: error('Body over 64 KB (code: too-large)'),
  429: error('Too many requests from this address (code: rate-limited); see Retry-After'),
} as const;
/** An admin route: the admin token, as a bearer token. */
export const ADMIN = { security: [{ bearer: [] }] };
/** Every JSON answer carries an ETag and Cache-Control: no-cache (search-ui/http-cache.ts). */
export const NOT_MODIFIED = { 304: { description: 'Not modified: the ETag sent in If-None-Match still holds' } } as const;

type PathDescription = Parameters<OpenAPIHono['openAPIRegistry']['registerPath']>[0];

const text = (type: string, description: string) => ({ 200: { description, content: { [type]: { schema: z.string() } } } });

/** What a coordinator asks a shard (routes/shard.ts): method, path, what it answers. */
const SHARD_ROUNDS = [
  ['post', '/api/shard/terms', "A coordinator's first round: the statistics of a query's terms in this shard (indexer/shards/statistics.ts TermReport)"],
  [
    'post',
    '/api/shard/search',
    "A coordinator's second round: the query ranked here with the corpus's statistics — " +
      'candidates with exact scores before phrase evidence, evidence factors, SimHashes, hits, totals, every facet value',
  ],
  ['post', '/api/shard/hits', 'Results by id, with their snippets'],
  ['post', '/api/shard/suggest', "Completions with the corpus's statistics, as the index holds them and as a page here spells them"],
  ['get', '/api/shard/info', 'This node as a coordinator checks it: documents, index version, the shard it holds'],
] as const;

const HEALTH: PathDescription = {
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
};

/** The endpoints that do not answer JSON, or not only: described in the same document, in this order. */
const OTHERS: readonly PathDescription[] = [
  {
    method: 'get',
    path: '/api/events',
    summary: 'Server-sent events: a "status" event each second ({summary, running, html}: the dashboard fragment)',
    responses: {
      ...text('text/event-stream', 'The event stream'),
      429: ERRORS[429],
      503: error('Too many event streams open (server.maxEventStreams; code: too-many-streams); see Retry-After'),
    },
  },
  HEALTH,
  ...SHARD_ROUNDS.map(([method, path, summary]) => ({
    method,
    path,
    summary,
    description:
      'For a coordinator over shards (trawl serve --shards); behind server.auth, and with the admin token not counted by the rate limit. ' +
      '404 (code not-a-shard) on a server with no index.',
    responses: { 200: { description: 'JSON' }, 400: ERRORS[400], 429: ERRORS[429] },
  })),
  {
    method: 'get',
    path: '/metrics',
    summary: 'Prometheus metrics: the process (CPU, memory, event-loop lag, GC) and Trawl (searches, crawl, index)',
    responses: text('text/plain', 'The Prometheus text format 0.0.4'),
  },
  {
    method: 'get',
    path: '/opensearch.xml',
    summary: 'OpenSearch description',
    responses: text('application/opensearchdescription+xml', 'The OpenSearch 1.1 description'),
  },
  {
    method: 'get',
    path: '/widget.js',
    summary:
      'The search widget for other sites\' pages: <script src=".../widget.js"> then <trawl-search></trawl-search> ' +
      'or <div data-trawl-search></div> (README: "Put the search on your site")',
    responses: { ...text('text/javascript', 'The script (ETag; kept an hour)'), ...NOT_MODIFIED },
  },
  {
    method: 'get',
    path: '/static/{file}',
    summary: "The search pages' script, style sheet and icon (app.js, style.css, favicon.svg, widget.js); with ?v= their version, kept a year",
    request: { params: z.object({ file: z.string() }), query: z.object({ v: z.string().optional() }) },
    responses: { ...text('text/javascript', 'The file, of its own type (ETag)'), ...NOT_MODIFIED, 404: error('No such file') },
  },
];

/** Describes the endpoints that do not answer JSON in the app's document, and the admin token's scheme. */
export function describeOthers<E extends Env>(app: OpenAPIHono<E>): void {
  for (const path of OTHERS) app.openAPIRegistry.registerPath(path);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'server.adminToken or TRAWL_ADMIN_TOKEN' });
}
