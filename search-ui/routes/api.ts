/**
 * The JSON API (`/api/*`): a URL's record, the search, the suggestions, the status; the admin
 * routes (admin.ts) and the shard routes (shard.ts) mounted beside them; and the OpenAPI document
 * made from all their declarations. Each route's declaration (method, path, parameters, answers)
 * is above its handler. Every answer and error is JSON.
 */
import { createRoute } from '@hono/zod-openapi';
import { describeOthers, ERRORS, json, NOT_MODIFIED } from '../api/openapi.ts';
import { DocumentQuery, ExplanationSchema, SearchQuery, SearchResponseSchema, SuggestQuery, SuggestResponseSchema, UnknownUrlSchema } from '../api/schemas.ts';
import { searchJson } from '../api/search-json.ts';
import { StatusSchema } from '../api/status-schema.ts';
import { eventRoutes, logSearch, untracked } from '../analytics.ts';
import { curationRoutes } from '../curation-api.ts';
import { reportRoutes } from '../analytics-reports.ts';
import { HttpError } from '../errors.ts';
import type { Routes } from '../parts.ts';
import { statusLine } from '../status-line.ts';
import { adminRoutes } from './admin.ts';
import { shardRoutes } from './shard.ts';

const searchRoute = createRoute({
  method: 'get',
  path: '/api/search',
  summary: 'Search',
  description:
    'Answers other origins too, those of server.corsOrigins (CORS). The ETag (weak) changes when the index does: a repeated search is a 304 until then.',
  request: { query: SearchQuery },
  responses: { 200: json(SearchResponseSchema, 'Results, best first'), ...NOT_MODIFIED, 400: ERRORS[400], 429: ERRORS[429] },
});

const suggestRoute = createRoute({
  method: 'get',
  path: '/api/suggest',
  summary: 'Suggestions as you type: the query with its last word completed',
  description:
    "Completions of the last word from the index's words, the most frequent first. " +
    'Answers the origins of server.corsOrigins too, with a weak ETag that changes when the index does.',
  request: { query: SuggestQuery },
  responses: { 200: json(SuggestResponseSchema, 'Completed queries, the most frequent completion first'), ...NOT_MODIFIED, 400: ERRORS[400], 429: ERRORS[429] },
});

const statusRoute = createRoute({
  method: 'get',
  path: '/api/status',
  summary: 'The crawl and the index now',
  responses: { 200: json(StatusSchema, 'Status'), ...NOT_MODIFIED, 429: ERRORS[429] },
});

const documentRoute = createRoute({
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

export const jsonApi: Routes = (app, parts) => {
  const { deps, tags } = parts;
  app.openapi(documentRoute, async (c) => {
    if (!deps.explain) throw new HttpError(400, 'bad-parameter', 'URL records are not available here');
    const answer = await deps.explain(c.req.valid('query').url);
    return answer.known ? c.json(answer, 200) : c.json({ error: answer.reason, code: 'unknown-url', url: answer.url }, 404);
  });

  app.route('/api', adminRoutes(deps.admin, deps.adminToken));
  app.route('/api/shard', shardRoutes(deps.shard));

  app.openapi(searchRoute, async (c) => {
    const { q, page, size, exact, explain, session, from } = c.req.valid('query');
    // A logged search is a new search each time (its own searchId): it is never a 304.
    const log = untracked(c) ? undefined : deps.analytics;
    if (log) {
      const r = await parts.search(q, page, size, exact, explain);
      const searchId = logSearch(log, { q, page, session, from }, r);
      return c.json({ searchId, ...searchJson(r) }, 200, { 'cache-control': 'no-store' });
    }
    // A search the client holds is not run again while the index has not changed (http-cache.ts).
    const cached = tags.check(c, deps.searcher.version, 'search', q, page, size, exact ? 1 : 0, explain ? 1 : 0);
    if (cached.fresh) return c.body(null, 304, cached.headers);
    const r = await parts.search(q, page, size, exact, explain);
    // (An answer missing a shard's results is not tagged with the index's version: once the shard
    // answers again, the same search must run again, not be a 304.)
    return c.json(searchJson(r), 200, r.shards?.partial ? {} : cached.headers);
  });

  eventRoutes(app, deps.analytics);
  reportRoutes(app, deps.reports, parts.console);
  curationRoutes(app, deps.levers, parts.console);

  app.openapi(suggestRoute, async (c) => {
    const { q, size } = c.req.valid('query');
    const cached = tags.check(c, deps.searcher.version, 'suggest', q, size);
    if (cached.fresh) return c.body(null, 304, cached.headers);
    return c.json({ query: q, suggestions: (await deps.searcher.suggest?.(q.trim(), size)) ?? [] }, 200, cached.headers);
  });

  app.openapi(statusRoute, async (c) => {
    const s = await parts.status();
    return c.json({ ...s, summary: statusLine(s) }, 200);
  });

  describeOthers(app);
  app.get('/api/openapi.json', (c) =>
    c.json(
      app.getOpenAPI31Document({
        openapi: '3.1.0',
        info: {
          title: 'Trawl',
          version: deps.version,
          description: 'Search over what Trawl has crawled, watch the crawl, and control it. Errors are JSON: {error, code}, with a stable code.',
        },
      }),
    ),
  );
};
