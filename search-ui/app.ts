/**
 * The search server (Hono, with OpenAPI routes): the search pages, the crawl dashboard and the
 * JSON API. It sees a read-only Searcher, a status function, a URL lookup and the admin actions
 * (admin.ts), never the crawler itself. The middleware run in the order of their table
 * (middleware.ts). The API's parameters are validated by the same schemas that describe it
 * (api/); errors are answered in one place (errors.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { streamSSE } from 'hono/streaming';
import { MAX_QUERY_LENGTH, QueryError } from '../indexer/index.ts';
import { handleErrors, HttpError, isApi, refusal, type ServerEnv } from './errors.ts';
import { adminRoutes } from './routes/admin.ts';
import { describeOthers, documentRoute, searchRoute, statusRoute, suggestRoute } from './api/routes.ts';
import { intParam } from './api/schemas.ts';
import { searchJson } from './api/search-json.ts';
import { allowedMethods, StreamGate } from './guards.ts';
import { EVENT_INTERVAL_MS, type UiDeps } from './deps.ts';
import { useMiddleware } from './middleware.ts';
import { SearchMetrics } from './metrics.ts';
import { OPENSEARCH_TYPE, openSearchDescription } from './opensearch.ts';
import { errorBody, homeBody, layout, resultsBody } from './pages.ts';
import { ResultTags } from './http-cache.ts';
import { shardRoutes } from './routes/shard.ts';
import { sendStatic, STATIC_FILES } from './static-files.ts';
import { History, liveStatus, statusBody } from './status-page.ts';
import { statusLine } from './status-line.ts';

/** The page parameter of the search page, checked as the API checks it. */
const PageParam = intParam('page', 1, 1000, 1);

export type { UiDeps } from './deps.ts';

export function createApp(deps: UiDeps): OpenAPIHono<ServerEnv> {
  const app = new OpenAPIHono<ServerEnv>({
    // A parameter the schema refuses: 400 with the schema's own message.
    defaultHook: (result) => {
      if (result.success) return;
      const issue = result.error.issues[0];
      throw new HttpError(400, issue?.path[0] === 'q' ? 'missing-query' : 'bad-parameter', issue?.message ?? 'bad request');
    },
  });

  useMiddleware(app, deps);

  const metrics = new SearchMetrics({ processMetrics: deps.processMetrics ?? true });
  const history = new History();
  const streams = new StreamGate(deps.maxEventStreams);
  const status = async () => {
    const s = await deps.status();
    history.add(s);
    return s;
  };
  const adminOn = Boolean(deps.admin && deps.adminToken);
  /** A search, counted in the metrics (refused ones too). */
  const search = async (q: string, page: number, size: number, exact = false) => {
    try {
      const r = await deps.searcher.search(q, { page, size, exact });
      metrics.observe(r.tookMs);
      return r;
    } catch (e) {
      if (e instanceof QueryError) metrics.refused();
      throw e;
    }
  };

  const tags = new ResultTags();

  app.get('/', async (c) => {
    const s = await status();
    const line = statusLine(s);
    const q = c.req.query('q')?.trim() ?? '';
    if (!q) return c.html(layout({ title: 'Trawl search', status: line, version: deps.version, body: homeBody(deps.searcher.documentCount, s.seeds) }));
    // A refused query (a bad page, a query the index cannot run) is shown on this page, the query in the box.
    c.set('errorPage', (message) =>
      layout({ title: 'Trawl search', query: q.slice(0, MAX_QUERY_LENGTH), status: line, version: deps.version, body: errorBody(message) }),
    );
    const page = PageParam.safeParse(c.req.query('page'));
    if (!page.success) throw new HttpError(400, 'bad-parameter', page.error.issues[0]!.message);
    // exact=1: the words as typed only (the link under "Including results for …").
    const exact = c.req.query('exact') === '1';
    const result = await search(q, page.data, 10, exact);
    return c.html(layout({ title: `${q} — Trawl search`, query: q, status: line, version: deps.version, body: resultsBody(result, { exact }) }));
  });

  app.get('/status', async (c) => {
    const url = c.req.query('url')?.trim().slice(0, 2048);
    const lookup = url && deps.explain ? { url, answer: await deps.explain(url) } : undefined;
    const s = await status();
    return c.html(
      layout({
        title: 'Crawl status — Trawl',
        status: statusLine(s),
        version: deps.version,
        wide: true,
        body: statusBody({ live: liveStatus(s, history.all), ...(lookup ? { lookup } : {}), admin: adminOn }),
      }),
    );
  });

  app.get('/api/events', (c) => {
    if (!streams.enter())
      throw new HttpError(503, 'too-many-streams', `too many event streams open (${streams.max}, server.maxEventStreams): try again later`, {
        'retry-after': '5',
      });
    return streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      try {
        while (open) {
          const s = await status();
          await stream.writeSSE({
            event: 'status',
            data: JSON.stringify({ summary: statusLine(s), running: s.crawl.running, html: await liveStatus(s, history.all) }),
          });
          await stream.sleep(deps.eventIntervalMs ?? EVENT_INTERVAL_MS);
        }
      } finally {
        streams.leave();
      }
    });
  });

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
    const r = await search(q, page, size, exact);
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
    const s = await status();
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

  app.get('/opensearch.xml', (c) => c.body(openSearchDescription(new URL(c.req.url).origin), 200, { 'content-type': `${OPENSEARCH_TYPE}; charset=utf-8` }));

  app.get('/metrics', async (c) => c.body(await metrics.render(await status()), 200, { 'content-type': metrics.contentType }));

  // Browsers ask for /favicon.ico whatever the page links; answer with the same icon.
  app.get('/favicon.ico', (c) => sendStatic(c, STATIC_FILES.get('favicon.svg')!));
  // The search widget, for pages of other sites (<script src=".../widget.js">): a cross-origin
  // script, which the default Cross-Origin-Resource-Policy (same-origin) would block.
  app.get('/widget.js', (c) => sendStatic(c, STATIC_FILES.get('widget.js')!, { 'cross-origin-resource-policy': 'cross-origin' }));

  // (A load balancer takes a node whose store is away out of rotation: its index is no longer followed.)
  app.get('/healthz', (c) => {
    if (deps.shards) {
      // A coordinator answers while some shard does (saying which are missing), so a load balancer keeps it.
      const shards = deps.shards().map((x) => ({ url: x.url, shard: x.shard, up: x.up, documents: x.documents, ...(x.error ? { error: x.error } : {}) }));
      const up = shards.filter((x) => x.up).length;
      return c.json({ ok: up > 0, documents: deps.searcher.documentCount, shards }, up > 0 ? 200 : 503);
    }
    const store = deps.storeHealth?.() ?? { up: true };
    if (store.up) return c.json({ ok: true, documents: deps.searcher.documentCount });
    return c.json(
      { ok: false, documents: deps.searcher.documentCount, store: 'down', since: new Date(store.downSince!).toISOString(), error: store.error ?? 'unknown' },
      503,
    );
  });

  app.get('/static/:file', (c) => {
    const f = STATIC_FILES.get(c.req.param('file'));
    return f ? sendStatic(c, f) : c.notFound();
  });

  app.notFound(async (c) => {
    // A path that exists for other methods: 405 with the ones it has.
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length && !allow.includes(c.req.method)) {
      const error = `${c.req.method} is not allowed here: ${allow.join(', ')} ${allow.length > 1 ? 'are' : 'is'}`;
      return refusal(c, new HttpError(405, 'method-not-allowed', error, { allow: allow.join(', ') }));
    }
    return isApi(c)
      ? refusal(c, new HttpError(404, 'not-found', 'no such endpoint'))
      : c.html(
          layout({
            title: 'Not found — Trawl',
            status: statusLine(await deps.status()),
            version: deps.version,
            body: errorBody('There is no page here. Search from the box above.'),
          }),
          404,
        );
  });

  app.onError(handleErrors(deps.log));

  return app;
}
