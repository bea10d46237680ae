/**
 * The search server (Hono). It sees a read-only Searcher and a status function, never the
 * crawler. Errors are turned into JSON (`/api/*`) or HTML in one place each.
 */
import { readFileSync } from 'node:fs';
import { Hono, type Context } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { ApplianceStatus } from '../appliance/appliance.ts';
import { QueryError, type Searcher } from '../indexer/index.ts';
import { errorBody, homeBody, layout, resultsBody } from './pages.ts';
import { statusLine } from './status-line.ts';

export type UiDeps = {
  readonly searcher: Searcher;
  readonly status: () => ApplianceStatus;
  readonly version: string;
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

  app.get('/', (c) => {
    const status = statusLine(deps.status());
    const q = c.req.query('q')?.trim() ?? '';
    if (!q) return c.html(layout({ title: 'Trawl search', status, version: deps.version, body: homeBody(deps.searcher.documentCount) }));
    try {
      const page = intParam(c.req.query('page'), 'page', 1, 1000, 1);
      const result = deps.searcher.search(q, { page, size: 10 });
      return c.html(layout({ title: `${q} — Trawl search`, query: q, status, version: deps.version, body: resultsBody(result) }));
    } catch (e) {
      if (!(e instanceof QueryError || e instanceof BadRequest)) throw e;
      return c.html(layout({ title: 'Trawl search', query: q.slice(0, 500), status, version: deps.version, body: errorBody(e.message) }), 400);
    }
  });

  app.get('/api/search', (c) => {
    const q = c.req.query('q');
    if (q === undefined || !q.trim()) throw new BadRequest('missing-query', 'parameter q is required, e.g. /api/search?q=install');
    const page = intParam(c.req.query('page'), 'page', 1, 1000, 1);
    const size = intParam(c.req.query('size'), 'size', 1, 100, 10);
    const r = deps.searcher.search(q, { page, size });
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
      hits: r.hits.map((h) => ({ url: h.url, title: h.title, snippet: h.snippet, score: h.score, fetchedAt: new Date(h.fetchedAt).toISOString() })),
    });
  });

  app.get('/api/status', (c) => {
    const s = deps.status();
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

  app.notFound((c) => (isApi(c) ? c.json({ error: 'no such endpoint', code: 'not-found' }, 404) : c.html(layout({ title: 'Not found — Trawl', status: statusLine(deps.status()), version: deps.version, body: errorBody('There is no page here. Search from the box above.') }), 404)));

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
