/**
 * The JSON API (`/api/*`): a URL's record, the search, the suggestions, the status; the admin
 * routes (admin.ts) and the shard routes (shard.ts) mounted beside them; and the OpenAPI document
 * made from all their declarations. Every answer and error is JSON.
 */
import { describeOthers, documentRoute, searchRoute, statusRoute, suggestRoute } from '../api/routes.ts';
import { searchJson } from '../api/search-json.ts';
import { HttpError } from '../errors.ts';
import type { Routes } from '../parts.ts';
import { statusLine } from '../status-line.ts';
import { adminRoutes } from './admin.ts';
import { shardRoutes } from './shard.ts';

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
    const { q, page, size, exact } = c.req.valid('query');
    // A search the client holds is not run again while the index has not changed (http-cache.ts).
    const cached = tags.check(c, deps.searcher.version, 'search', q, page, size, exact ? 1 : 0);
    if (cached.fresh) return c.body(null, 304, cached.headers);
    const r = await parts.search(q, page, size, exact);
    // (An answer missing a shard's results is not tagged with the index's version: once the shard
    // answers again, the same search must run again, not be a 304.)
    return c.json(searchJson(r), 200, r.shards?.partial ? {} : cached.headers);
  });

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
