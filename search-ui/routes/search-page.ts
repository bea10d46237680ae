/**
 * The search page (`GET /`): the home page without a query, the results with one; and its
 * OpenSearch description, which lets a browser search it from the address bar. A refused query
 * (a bad page number, a query the index cannot run) is shown on this page, the query still in the
 * box: the page sets `errorPage`, which the one error handler uses (errors.ts).
 */
import { MAX_QUERY_LENGTH } from '../../indexer/index.ts';
import { intParam } from '../api/schemas.ts';
import { logSearch, SESSION, untracked } from '../analytics.ts';
import { HttpError } from '../errors.ts';
import { OPENSEARCH_TYPE, openSearchDescription } from '../opensearch.ts';
import { errorBody, homeBody, layout, resultsBody } from '../pages.ts';
import type { Routes } from '../parts.ts';
import { statusLine } from '../status-line.ts';

/** The page parameter, checked as the API checks it. */
const PageParam = intParam('page', 1, 1000, 1);
/** Results on one page. */
const RESULTS_PER_PAGE = 10;

export const searchPage: Routes = (app, parts) => {
  const { deps } = parts;
  app.get('/', async (c) => {
    const s = await parts.status();
    const line = statusLine(s);
    const q = c.req.query('q')?.trim() ?? '';
    if (!q) return c.html(layout({ title: 'Trawl search', status: line, version: deps.version, body: homeBody(deps.searcher.documentCount, s.seeds) }));
    // (The query echoed is cut to the longest the index takes: a longer one is what was refused.)
    c.set('errorPage', (message) =>
      layout({ title: 'Trawl search', query: q.slice(0, MAX_QUERY_LENGTH), status: line, version: deps.version, body: errorBody(message) }),
    );
    const page = PageParam.safeParse(c.req.query('page'));
    if (!page.success) throw new HttpError(400, 'bad-parameter', page.error.issues[0]!.message);
    // exact=1: the words as typed only (the link under "Including results for …").
    const exact = c.req.query('exact') === '1';
    const result = await parts.search(q, page.data, RESULTS_PER_PAGE, exact);
    // (The tab's session id, sent by the page's script: a malformed one is left out, not refused.)
    const session = SESSION.test(c.req.query('session') ?? '') ? c.req.query('session') : undefined;
    const searchId = deps.analytics && !untracked(c) ? logSearch(deps.analytics, { q, page: page.data, session, from: 'page' }, result) : undefined;
    return c.html(
      layout({ title: `${q} — Trawl search`, query: q, status: line, version: deps.version, body: resultsBody(result, { exact, searchId }) }),
      200,
      searchId ? { 'cache-control': 'no-store' } : {},
    );
  });

  app.get('/opensearch.xml', (c) => c.body(openSearchDescription(new URL(c.req.url).origin), 200, { 'content-type': `${OPENSEARCH_TYPE}; charset=utf-8` }));
};
