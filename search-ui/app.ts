/**
 * The search server (Hono): the search pages, the crawl dashboard and the JSON API. It sees a
 * read-only Searcher, a status function, a URL lookup and the admin actions (admin.ts), never the
 * crawler itself. Errors are turned into JSON (`/api/*`) or HTML in one place each.
 */
import { readFileSync } from 'node:fs';
import { getConnInfo } from '@hono/node-server/conninfo';
import { Hono, type Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import { streamSSE } from 'hono/streaming';
import type { ApplianceStatus, UrlExplanation } from '../model/index.ts';
import { QueryError, type Searcher } from '../indexer/index.ts';
import { adminRoutes, type AdminActions } from './admin.ts';
import { SearchMetrics } from './metrics.ts';
import { openApi } from './openapi.ts';
import { OPENSEARCH_TYPE, openSearchDescription } from './opensearch.ts';
import { errorBody, homeBody, layout, resultsBody } from './pages.ts';
import { RateLimiter } from './rate-limit.ts';
import { History, liveStatus, statusBody } from './status-page.ts';
import { statusLine } from './status-line.ts';

export type UiDeps = {
  readonly searcher: Searcher;
  readonly status: () => Promise<ApplianceStatus>;
  readonly version: string;
  /** What Trawl knows of a URL (/api/document, the dashboard's lookup). */
  readonly explain?: (url: string) => Promise<UrlExplanation>;
  /** The admin actions; they are on only with `adminToken` too. */
  readonly admin?: AdminActions;
  readonly adminToken?: string | undefined;
  /** Requests per second (and twice that at once) that one address may make to /api/*. */
  readonly apiRate?: number;
  /** How often /api/events sends the status, in ms (tests make it quick). */
  readonly eventIntervalMs?: number;
};

/** A request the server refuses, with a stable code. */
class BadRequest extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const STATIC: Record<string, { body: string; type: string }> = {
  'app.js': { body: readFileSync(new URL('./static/app.js', import.meta.url), 'utf8'), type: 'text/javascript; charset=utf-8' },
  'style.css': { body: readFileSync(new URL('./static/style.css', import.meta.url), 'utf8'), type: 'text/css; charset=utf-8' },
  'favicon.svg': { body: readFileSync(new URL('./static/favicon.svg', import.meta.url), 'utf8'), type: 'image/svg+xml' },
};

export function createApp(deps: UiDeps): Hono {
  const app = new Hono();

  app.use(
    secureHeaders({
      contentSecurityPolicy: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        baseUri: ["'none'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
      referrerPolicy: 'no-referrer',
    }),
  );

  const metrics = new SearchMetrics();
  const history = new History();
  const status = async () => {
    const s = await deps.status();
    history.add(s);
    return s;
  };
  const adminOn = Boolean(deps.admin && deps.adminToken);
  /** A search, counted in the metrics (refused ones too). */
  const search = async (q: string, page: number, size: number) => {
    try {
      const r = await deps.searcher.search(q, { page, size });
      metrics.observe(r.tookMs);
      return r;
    } catch (e) {
      if (e instanceof QueryError) metrics.refused();
      throw e;
    }
  };

  // The JSON API, per client address: a token bucket (the web pages are not limited: a person
  // cannot type that fast, and the instant search asks /, debounced).
  const limiter = new RateLimiter(deps.apiRate ?? 20);
  app.use('/api/*', async (c, next) => {
    const wait = limiter.take(clientOf(c));
    if (wait > 0) return c.json({ error: 'too many requests from this address: slow down', code: 'rate-limited' }, 429, { 'retry-after': String(Math.ceil(wait / 1000)) });
    await next();
  });

  app.get('/', async (c) => {
    const line = statusLine(await status());
    const q = c.req.query('q')?.trim() ?? '';
    if (!q) return c.html(layout({ title: 'Trawl search', status: line, version: deps.version, body: homeBody(deps.searcher.documentCount) }));
    try {
      const page = intParam(c.req.query('page'), 'page', 1, 1000, 1);
      const result = await search(q, page, 10);
      return c.html(layout({ title: `${q} — Trawl search`, query: q, status: line, version: deps.version, body: resultsBody(result) }));
    } catch (e) {
      if (!(e instanceof QueryError || e instanceof BadRequest)) throw e;
      return c.html(layout({ title: 'Trawl search', query: q.slice(0, 500), status: line, version: deps.version, body: errorBody(e.message) }), 400);
    }
  });

  app.get('/status', async (c) => {
    const url = c.req.query('url')?.trim().slice(0, 2048);
    const lookup = url && deps.explain ? { url, answer: await deps.explain(url) } : undefined;
    const s = await status();
    return c.html(layout({ title: 'Crawl status — Trawl', status: statusLine(s), version: deps.version, wide: true, body: statusBody({ live: liveStatus(s, history.all), ...(lookup ? { lookup } : {}), admin: adminOn }) }));
  });

  app.get('/api/events', (c) =>
    streamSSE(c, async (stream) => {
      let open = true;
      stream.onAbort(() => {
        open = false;
      });
      while (open) {
        const s = await status();
        await stream.writeSSE({ event: 'status', data: JSON.stringify({ summary: statusLine(s), running: s.crawl.running, html: await liveStatus(s, history.all) }) });
        await stream.sleep(deps.eventIntervalMs ?? 1000);
      }
    }),
  );

  app.get('/api/document', async (c) => {
    const url = c.req.query('url');
    if (!url || url.length > 2048) throw new BadRequest('bad-parameter', 'parameter url is required (at most 2,048 characters), e.g. /api/document?url=https://example.org/');
    if (!deps.explain) throw new BadRequest('bad-parameter', 'URL records are not available here');
    const answer = await deps.explain(url);
    return answer.known ? c.json(answer) : c.json({ error: answer.reason, code: 'unknown-url', url: answer.url }, 404);
  });

  app.route('/api', adminRoutes(deps.admin, deps.adminToken));

  app.get('/api/openapi.json', (c) => c.json(openApi(deps.version)));

  app.get('/opensearch.xml', (c) => c.body(openSearchDescription(new URL(c.req.url).origin), 200, { 'content-type': `${OPENSEARCH_TYPE}; charset=utf-8` }));

  app.get('/metrics', async (c) => c.body(metrics.render(await status()), 200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }));

  app.get('/api/search', async (c) => {
    const q = c.req.query('q');
    if (q === undefined || !q.trim()) throw new BadRequest('missing-query', 'parameter q is required, e.g. /api/search?q=install');
    const page = intParam(c.req.query('page'), 'page', 1, 1000, 1);
    const size = intParam(c.req.query('size'), 'size', 1, 100, 10);
    const r = await search(q, page, size);
    return c.json({
      query: r.query,
      total: r.total,
      tookMs: r.tookMs,
      page: r.page,
      size: r.size,
      partial: r.partial,
      ...(r.totalIsLowerBound ? { totalIsLowerBound: true } : {}),
      ...(r.suggestion ? { suggestion: r.suggestion } : {}),
      facets: r.facets,
      hits: r.hits.map((h) => ({ url: h.url, title: h.title, snippet: h.snippet, score: h.score, fetchedAt: new Date(h.fetchedAt).toISOString(), ...(h.topics ? { topics: h.topics } : {}) })),
    });
  });

  app.get('/api/status', async (c) => {
    const s = await status();
    return c.json({ ...s, summary: statusLine(s) });
  });

  // Browsers ask for /favicon.ico whatever the page links; answer with the same icon.
  app.get('/favicon.ico', (c) => c.body(STATIC['favicon.svg']!.body, 200, { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' }));

  app.get('/healthz', (c) => c.json({ ok: true, documents: deps.searcher.documentCount }));

  app.get('/static/:file', (c) => {
    const f = STATIC[c.req.param('file')];
    if (!f) return c.notFound();
    return c.body(f.body, 200, { 'content-type': f.type, 'cache-control': 'public, max-age=300' });
  });

  app.notFound(async (c) => (isApi(c) ? c.json({ error: 'no such endpoint', code: 'not-found' }, 404) : c.html(layout({ title: 'Not found — Trawl', status: statusLine(await deps.status()), version: deps.version, body: errorBody('There is no page here. Search from the box above.') }), 404)));

  app.onError((e, c) => {
    if (e instanceof BadRequest || e instanceof QueryError) {
      const code = e instanceof BadRequest ? e.code : 'bad-query';
      return isApi(c) ? c.json({ error: e.message, code }, 400) : c.text(e.message, 400);
    }
    console.error(`search server: ${c.req.method} ${c.req.path}: ${(e as Error).stack ?? String(e)}`);
    return isApi(c) ? c.json({ error: 'internal error', code: 'internal' }, 500) : c.text('internal error', 500);
  });

  return app;
}

/** The client's address (node:http), or one key for all when there is none (app.request in tests). */
function clientOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? 'local';
  } catch {
    return 'local';
  }
}

function isApi(c: Context): boolean {
  return c.req.path.startsWith('/api/');
}

function intParam(raw: string | undefined, name: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d{1,9}$/.test(raw)) throw new BadRequest('bad-parameter', `parameter ${name} must be a whole number from ${min} to ${max}`);
  const n = Number(raw);
  if (n < min || n > max) throw new BadRequest('bad-parameter', `parameter ${name} must be a whole number from ${min} to ${max}`);
  return n;
}
