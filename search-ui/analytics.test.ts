// The search log through the server (analytics.ts): /api/search answers a searchId and logs the
// search, the search page marks its results for the click beacon, a browser asking not to be
// tracked leaves no trace, and POST /api/analytics/events takes only clicks on what was shown.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { SearchLog } from '../appliance/search-log.ts';
import { SearchReports } from '../appliance/search-reports.ts';
import { silentLog } from '../lib/log.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';
import { MAX_EVENT_BYTES } from './analytics.ts';
import { csvOf } from './analytics-reports.ts';
import { createApp } from './app.ts';
import { serverDefaults, vacuumIndex } from './server-fixture.ts';
import { idleStatus } from './status-fixture.ts';

const index = vacuumIndex();
const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-analytics-')));
const searchLog = new SearchLog(store.searchLog, silentLog, 90);
const reports = new SearchReports(store.searchReports, () => searchLog.flush(), searchLog.now);
after(async () => {
  await searchLog.close();
  await store.close();
});
const app = createApp({ ...serverDefaults(), searcher: index, status: async () => idleStatus({ documents: 2 }), version: '0.0.0-test', analytics: searchLog });
const plain = createApp({ ...serverDefaults(), searcher: index, status: async () => idleStatus({ documents: 2 }), version: '0.0.0-test' });

type Answer = { searchId?: string; hits: { url: string }[] };
const search = async (path: string, headers: Record<string, string> = {}) => {
  const res = await app.request(path, { headers });
  return { res, body: (await res.json()) as Answer };
};
const click = (body: unknown, headers: Record<string, string> = {}) =>
  app.request('/api/analytics/events', {
    method: 'POST',
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers: { 'content-type': 'text/plain', ...headers },
  });
const logged = async () => {
  await searchLog.flush();
  return store.searchLog.searches(0, 1000);
};

describe('the search log through the server', () => {
  it('logs an API search with what it showed, and answers its id (never a 304)', async () => {
    const { res, body } = await search('/api/search?q=vacuum&from=widget&session=tab-12345678');
    assert.equal(res.status, 200);
    assert.match(body.searchId!, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers.get('etag'), null);
    await searchLog.click({ searchId: body.searchId!, position: 1, url: body.hits[0]!.url }); // (ends the typing)
    const s = (await logged()).find((x) => x.id === body.searchId)!;
    assert.deepEqual(
      { source: s.source, session: s.session, query: s.query, total: s.total, shown: s.shown },
      { source: 'widget', session: 'tab-12345678', query: 'vacuum', total: 2, shown: body.hits.map((h) => h.url) },
    );
    const again = await search('/api/search?q=vacuum', { 'if-none-match': '*' });
    assert.equal(again.res.status, 200);
    assert.notEqual(again.body.searchId, body.searchId);
    // Without the log, the answer has no id and a repeated search is a 304 again.
    const tagged = await plain.request('/api/search?q=vacuum');
    assert.equal(((await tagged.json()) as Answer).searchId, undefined);
    assert.equal((await plain.request('/api/search?q=vacuum', { headers: { 'if-none-match': tagged.headers.get('etag')! } })).status, 304);
  });

  it('leaves no trace of a browser sending Sec-GPC: 1 or DNT: 1', async () => {
    const before = (await logged()).length;
    for (const header of [{ 'sec-gpc': '1' }, { dnt: '1' }] as Record<string, string>[]) {
      const { body } = await search('/api/search?q=autovacuum', header);
      assert.equal(body.searchId, undefined);
      const page = await (await app.request('/?q=autovacuum', { headers: header })).text();
      assert.doesNotMatch(page, /data-search-id/);
    }
    assert.equal((await logged()).length, before);
  });

  it('marks the search page\u2019s results for the click beacon, and logs the page\u2019s search', async () => {
    const page = await (await app.request('/?q=vacuum&session=tab-abcdefgh')).text();
    const id = /<ol class="results"[^>]* data-search-id="([^"]+)"/.exec(page)?.[1];
    assert.ok(id, page);
    assert.match(page, /<li data-position="1" data-url="http:\/\/e\.org\/[a-z]+\.html">/);
    assert.equal(await searchLog.click({ searchId: id!, position: 1, url: /data-url="([^"]+)"/.exec(page)![1]! }), 'counted');
    const s = (await logged()).find((x) => x.id === id)!;
    assert.equal(s.source, 'page');
    assert.equal(s.session, 'tab-abcdefgh');
  });

  it('takes a click on a shown result (text/plain, as a beacon sends it), once; refuses the forged and the malformed', async () => {
    const { body } = await search('/api/search?q=vacuum');
    const shown = { type: 'click', searchId: body.searchId, position: 2, url: body.hits[1]!.url };
    assert.equal((await click(shown)).status, 204);
    assert.equal((await click(shown)).status, 204, 'a repeat counts nothing, and is no error');
    await searchLog.flush();
    assert.equal((await store.searchLog.clicksOf([body.searchId!])).length, 1);
    const refused = async (event: unknown, status: number, code: string) => {
      const res = await click(event);
      assert.equal(res.status, status, JSON.stringify(event).slice(0, 80));
      assert.equal(((await res.json()) as { code: string }).code, code);
    };
    await refused({ ...shown, searchId: 'no-such-search' }, 404, 'unknown-search');
    await refused({ ...shown, position: 1 }, 422, 'not-shown');
    await refused({ ...shown, url: 'http://evil.example/' }, 422, 'not-shown');
    await refused({ ...shown, position: 0 }, 400, 'bad-body');
    await refused({ type: 'view' }, 400, 'bad-body');
    await refused('{not json', 400, 'bad-body');
    await refused({ ...shown, url: 'x'.repeat(MAX_EVENT_BYTES) }, 413, 'too-large');
    // Not tracked: taken, and dropped.
    assert.equal((await click({ ...shown, position: 1, url: body.hits[0]!.url }, { 'sec-gpc': '1' })).status, 204);
    await searchLog.flush();
    assert.equal((await store.searchLog.clicksOf([body.searchId!])).length, 1);
  });

  it('reports the queries and the days to the admin token, as JSON and CSV', async () => {
    const admin = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => idleStatus({ documents: 2 }),
      version: '0.0.0-test',
      analytics: searchLog,
      reports,
      adminToken: 'secret-token-123',
    });
    const bearer = { authorization: 'Bearer secret-token-123' };
    assert.equal((await app.request('/api/analytics/queries')).status, 403, 'no admin token configured');
    assert.equal((await admin.request('/api/analytics/queries', { headers: { authorization: 'Bearer nope' } })).status, 401);
    assert.equal((await plain.request('/api/analytics/queries')).status, 403);
    const { body } = await search('/api/search?q=Autovacuum&session=tab-reports1');
    await searchLog.click({ searchId: body.searchId!, position: 1, url: body.hits[0]!.url });
    const res = await admin.request('/api/analytics/queries?limit=5', { headers: bearer });
    assert.equal(res.status, 200);
    const report = (await res.json()) as {
      since: string;
      until: string;
      queries: { query: string; searches: number; clicked: number; clickThroughRate: number }[];
    };
    const auto = report.queries.find((q) => q.query === 'autovacuum')!;
    assert.ok(auto.searches >= 1 && auto.clicked === 1, JSON.stringify(auto));
    assert.equal(auto.clickThroughRate, Math.round((1000 * auto.clicked) / auto.searches) / 1000);
    assert.ok(report.queries.some((q) => q.query === 'vacuum'));
    const table = await (await admin.request('/api/analytics/queries?format=csv', { headers: bearer })).text();
    assert.match(table, /^query,searches,clicked,clickThroughRate,firstClickPosition,noResults\r\n/);
    assert.match(table, /\r\nautovacuum,\d+,1,[\d.]+,1,0\r\n/);
    const days = (await (await admin.request('/api/analytics/days', { headers: bearer })).json()) as { days: { day: string; searches: number }[] };
    assert.deepEqual(
      days.days.map((d) => d.day),
      [new Date().toISOString().slice(0, 10)],
    );
    assert.equal((await admin.request('/api/analytics/days?since=2026-12-02&until=2026-12-01', { headers: bearer })).status, 400);
    assert.equal((await admin.request('/api/analytics/days?since=yesterday', { headers: bearer })).status, 400);
  });

  it("reports until the log's now, that very millisecond included (the default range's end is excluded), by whole days", async () => {
    // (At midnight: a range ending at now, excluded, would end with the day before.)
    const at = Date.parse('2026-12-02T00:00:00.000Z');
    const frozen = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-analytics-frozen-')));
    const frozenLog = new SearchLog(frozen.searchLog, silentLog, 90, () => at);
    try {
      const admin = createApp({
        ...serverDefaults(),
        searcher: index,
        status: async () => idleStatus({ documents: 2 }),
        version: '0.0.0-test',
        analytics: frozenLog,
        reports: new SearchReports(frozen.searchReports, () => frozenLog.flush(), frozenLog.now),
        adminToken: 'secret-token-123',
      });
      const bearer = { authorization: 'Bearer secret-token-123' };
      assert.equal((await admin.request('/api/search?q=vacuum')).status, 200);
      const report = (await (await admin.request('/api/analytics/queries', { headers: bearer })).json()) as {
        until: string;
        queries: { query: string; searches: number }[];
      };
      assert.deepEqual(
        report.queries.map((q) => [q.query, q.searches]),
        [['vacuum', 1]],
      );
      assert.equal(report.until, '2026-12-03T00:00:00.000Z', 'whole days: until the end of the day of now');
      const days = (await (await admin.request('/api/analytics/days', { headers: bearer })).json()) as { days: { day: string; searches: number }[] };
      assert.deepEqual(days.days, [{ day: '2026-12-02', searches: 1, clicked: 0 }]);
    } finally {
      await frozenLog.close();
      await frozen.close();
    }
  });

  it('writes CSV as spreadsheets read it: quoted where needed, formulas defused', () => {
    assert.equal(
      csvOf(
        ['q', 'n'],
        [
          { q: 'a, "b"', n: 1 },
          { q: '=HYPERLINK("x")', n: null },
          { q: 'plain', n: 2.5 },
        ],
      ),
      'q,n\r\n"a, ""b""",1\r\n"\'=HYPERLINK(""x"")",\r\nplain,2.5\r\n',
    );
  });
});
