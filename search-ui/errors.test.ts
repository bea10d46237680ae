import assert from 'node:assert/strict';
import { describe, it, mock } from 'node:test';
import { MAX_QUERY_LENGTH, QueryError, SearchIndex, type Searcher } from '../indexer/index.ts';
import { logTo } from '../lib/log.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { idleStatus } from './status-fixture.ts';

/** A searcher whose searches fail as `fail` says (an in-memory Searcher: the failures are the point). */
const failing = (fail: (q: string) => Error): Searcher => ({
  search: async (q) => {
    throw fail(q);
  },
  documentCount: 0,
  version: 1,
});

describe('the one error path', () => {
  it("answers a query the index refuses with 400 bad-query: JSON on the API, the search page's own layout on /", async () => {
    // A real index, refusing a query longer than it takes.
    const app = createApp({ ...serverDefaults(), searcher: new SearchIndex(() => undefined), status: async () => idleStatus(), version: 't' });
    const words = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    assert.ok(words.length > MAX_QUERY_LENGTH);
    const api = await app.request(`/api/search?q=${encodeURIComponent(words)}`);
    assert.equal(api.status, 400);
    const body = (await api.json()) as { error: string; code: string };
    assert.equal(body.code, 'bad-query');
    assert.match(body.error, /^query is too long/);

    const page = await app.request(`/?q=${encodeURIComponent(words)}`);
    assert.equal(page.status, 400);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    const html = await page.text();
    assert.match(html, /query is too long \(889 characters; at most 500\)/);
    assert.match(html, /<title>Trawl search<\/title>/);
    // The query stays in the box, cut to the longest the index takes.
    const echoed = /<input id="q" name="q" type="search" value="([^"]*)"/.exec(html)?.[1] ?? '';
    assert.equal(echoed, words.slice(0, MAX_QUERY_LENGTH));
  });

  it('answers a QueryError however the searcher raises it, and a bad page number, with the codes of the API', async () => {
    const app = createApp({
      ...serverDefaults(),
      searcher: failing(() => new QueryError('refused: say it otherwise')),
      status: async () => idleStatus(),
      version: 't',
    });
    assert.deepEqual(await (await app.request('/api/search?q=x')).json(), { error: 'refused: say it otherwise', code: 'bad-query' });
    const page = await app.request('/?q=x');
    assert.equal(page.status, 400);
    assert.match(await page.text(), /refused: say it otherwise/);
    const badPage = await app.request('/?q=x&page=0');
    assert.equal(badPage.status, 400);
    assert.match(await badPage.text(), /parameter page must be a whole number from 1 to 1000/);
    assert.deepEqual(await (await app.request('/api/search?q=x&page=0')).json(), {
      error: 'parameter page must be a whole number from 1 to 1000',
      code: 'bad-parameter',
    });
  });

  it('logs an internal error through the logger it was given, never the console, and answers 500 without the stack', async () => {
    const logged: string[] = [];
    const app = createApp({
      ...serverDefaults(),
      log: logTo((m) => logged.push(m)),
      searcher: failing(() => new Error('the index broke')),
      status: async () => idleStatus(),
      version: 't',
    });
    const consoleError = mock.method(console, 'error', () => undefined);
    try {
      const api = await app.request('/api/search?q=x');
      assert.equal(api.status, 500);
      assert.deepEqual(await api.json(), { error: 'internal error', code: 'internal' });
      const page = await app.request('/?q=x');
      assert.equal(page.status, 500);
      assert.equal(await page.text(), 'internal error');
      assert.equal(consoleError.mock.callCount(), 0, 'nothing on the console');
    } finally {
      consoleError.mock.restore();
    }
    assert.equal(logged.length, 2);
    assert.match(logged[0]!, /^search server: GET \/api\/search: Error: the index broke\n\s+at /);
    assert.match(logged[1]!, /^search server: GET \/: Error: the index broke/);
  });
});
