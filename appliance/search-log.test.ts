// The search log's writer (search-log.ts) over a real SQLite store: batched writes, a session's
// searches typed on logged as one, clicks checked and counted once, pruning by age.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { silentLog } from '../lib/log.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';
import type { LoggedSearch, SearchClick } from '../model/index.ts';
import type { SearchLogStore, Store } from '../store/index.ts';
import { PAUSE_MS, REFINE_MS, SearchLog, type SearchSeen, searchLogFor } from './search-log.ts';

const seen = (query: string, extra: Partial<SearchSeen> = {}): SearchSeen => ({
  source: 'page',
  query,
  understood: query.toLowerCase(),
  filters: {},
  page: 1,
  total: 2,
  shown: ['http://e.org/a', 'http://e.org/b'],
  tookMs: 2,
  ...extra,
});

describe('the search log', () => {
  let store: Store;
  let now = 1_000_000;
  let log: SearchLog;
  beforeEach(() => {
    store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-searchlog-')));
    now = 1_000_000;
    log = new SearchLog(store.searchLog, silentLog, 90, () => now);
  });
  afterEach(async () => {
    await log.close();
    await store.close();
  });
  const logged = async () => store.searchLog.searches(0, 100);

  it('writes a search without a session at the next flush, not before', async () => {
    const id = log.record(seen('vacuum', { source: 'api' }));
    assert.deepEqual(await logged(), []);
    await log.flush();
    const [s] = await logged();
    assert.equal(s?.id, id);
    assert.equal(s?.source, 'api');
    assert.equal(s?.at, now);
  });

  it('links a search to the one its session made before it within REFINE_MS (A, then B), and the reports count the refinement', async () => {
    const a = log.record(seen('kill query', { session: 'tab-refine01' }));
    now += PAUSE_MS + 1;
    const b = log.record(seen('pg_terminate_backend', { session: 'tab-refine01' }));
    now += PAUSE_MS + 1;
    log.record(seen('other tab', { session: 'tab-refine02' }));
    now += REFINE_MS + 1;
    const late = log.record(seen('much later', { session: 'tab-refine01' }));
    log.record(seen('no session'));
    now += PAUSE_MS;
    await log.flush();
    const byId = new Map((await logged()).map((x) => [x.id, x]));
    assert.equal(byId.get(b)?.refines, a);
    assert.equal(byId.get(a)?.refines, undefined);
    assert.equal(byId.get(late)?.refines, undefined, 'past REFINE_MS: a new start');
    assert.ok([...byId.values()].filter((x) => x.refines).length === 1, 'another session, or none, refines nothing');
    assert.deepEqual(await store.searchReports.refinements({ since: 0, until: now + 1 }, 10), [
      { from: 'kill query', to: 'pg_terminate_backend', searches: 1, fromClicked: 0, toClicked: 0 },
    ]);
  });

  it('logs the searches of a session typed on as one, once the person pauses, with the queries on the way', async () => {
    for (const q of ['va', 'vac', 'vacuu', 'vacuum', 'vacuum full']) {
      log.record(seen(q, { session: 'tab-aaaaaaaa' }));
      now += 300;
    }
    await log.flush();
    assert.deepEqual(await logged(), [], 'the person may still be typing');
    now += PAUSE_MS;
    await log.flush();
    const all = await logged();
    assert.deepEqual(
      all.map((s) => [s.query, s.prefixes]),
      [['vacuum full', ['va', 'vac', 'vacuu', 'vacuum']]],
    );
    // Another query, or the same one after a pause, is another search.
    log.record(seen('analyze', { session: 'tab-aaaaaaaa' }));
    now += 100;
    log.record(seen('reindex', { session: 'tab-aaaaaaaa' }));
    now += PAUSE_MS;
    await log.flush();
    assert.deepEqual(
      (await logged()).map((s) => s.query),
      ['vacuum full', 'analyze', 'reindex'],
    );
  });

  it('counts a click on a URL its search showed there, once a session, query and URL; refuses the others', async () => {
    const id = log.record(seen('vacuum', { session: 'tab-aaaaaaaa' }));
    assert.equal(await log.click({ searchId: 'nope', position: 1, url: 'http://e.org/a' }), 'unknown-search');
    assert.equal(await log.click({ searchId: id, position: 1, url: 'http://e.org/b' }), 'not-shown');
    assert.equal(await log.click({ searchId: id, position: 3, url: 'http://e.org/a' }), 'not-shown');
    assert.equal(await log.click({ searchId: id, position: 2, url: 'http://e.org/b' }), 'counted');
    // (The click ended the typing: the search is logged at the next flush, pause or not.)
    await log.flush();
    assert.deepEqual(
      (await logged()).map((s) => s.id),
      [id],
    );
    assert.equal(await log.click({ searchId: id, position: 2, url: 'http://e.org/b' }), 'repeated');
    // The same query again in the session, the same page chosen: not counted again.
    now += 10 * PAUSE_MS;
    const again = log.record(seen('vacuum', { session: 'tab-aaaaaaaa' }));
    assert.equal(await log.click({ searchId: again, position: 2, url: 'http://e.org/b' }), 'repeated');
    assert.equal(await log.click({ searchId: again, position: 1, url: 'http://e.org/a' }), 'counted');
    await log.flush();
    assert.deepEqual(
      (await store.searchLog.clicksOf([id, again])).map((c) => [c.searchId, c.position]),
      [
        [id, 2],
        [again, 1],
      ],
    );
  });

  it('counts a click on a page still showing a search typed on since for the search logged in its place', async () => {
    // (The results as typed, then the same query submitted: the form's page replaces them, but a
    // click may land on the list the page showed first.)
    const first = log.record(seen('vacuum', { session: 'tab-replaced' }));
    now += 100;
    const submitted = log.record(seen('vacuum', { session: 'tab-replaced', shown: ['http://e.org/b', 'http://e.org/a'] }));
    assert.notEqual(first, submitted);
    assert.equal(await log.click({ searchId: first, position: 1, url: 'http://e.org/b' }), 'not-shown');
    assert.equal(await log.click({ searchId: first, position: 1, url: 'http://e.org/a' }), 'counted');
    await log.flush();
    assert.deepEqual(
      (await logged()).map((s) => s.id),
      [submitted],
    );
    // (At the position the logged search showed it.)
    assert.deepEqual(
      (await store.searchLog.clicksOf([submitted])).map((c) => [c.searchId, c.position, c.url]),
      [[submitted, 2, 'http://e.org/a']],
    );
    assert.equal(await log.click({ searchId: first, position: 1, url: 'http://e.org/a' }), 'repeated');
  });

  it('writes a large batch in slices, the clicks after their searches', async () => {
    const appended: [number, number][] = [];
    const sliced = new SearchLog(
      // (The store's log, its writes counted.)
      Object.assign(Object.create(store.searchLog) as SearchLogStore, {
        append: (s: readonly LoggedSearch[], c: readonly SearchClick[]) => (appended.push([s.length, c.length]), store.searchLog.append(s, c)),
      }),
      silentLog,
      90,
      () => now,
    );
    const ids = Array.from({ length: 70 }, (_, i) => sliced.record(seen(`query ${i}`)));
    assert.equal(await sliced.click({ searchId: ids[69]!, position: 1, url: 'http://e.org/a' }), 'counted');
    await sliced.close();
    assert.deepEqual(appended, [
      [32, 0],
      [32, 0],
      [6, 1],
    ]);
    assert.equal((await logged()).length, 70);
    assert.equal((await store.searchLog.clicksOf([ids[69]!])).length, 1);
  });

  it('checks a click against the store for a search it no longer remembers', async () => {
    const id = log.record(seen('vacuum'));
    await log.close();
    log = new SearchLog(store.searchLog, silentLog, 90, () => now);
    assert.equal(await log.click({ searchId: id, position: 1, url: 'http://e.org/a' }), 'counted');
  });

  it('writes what is being typed on close, and prunes by age', async () => {
    log.record(seen('old', { session: 'tab-bbbbbbbb' }));
    now += 100 * 86_400_000;
    log.record(seen('new'));
    await log.close();
    assert.equal((await logged()).length, 2);
    assert.equal(await log.prune(90), 1);
    assert.deepEqual(
      (await logged()).map((s) => s.query),
      ['new'],
    );
  });

  it('is off when analytics.enabled is false or the crawl database is open for reading only', async () => {
    assert.equal(searchLogFor({ enabled: false, retentionDays: 90 }, store, silentLog), undefined);
    const reader = openSqliteStore((store as { location: string }).location.replace(/\/crawl\.db$/, ''), { readOnly: true });
    assert.equal(reader.searchLog.writable, false);
    assert.equal(searchLogFor({ enabled: true, retentionDays: 90 }, reader, silentLog), undefined);
    await reader.close();
    const on = searchLogFor({ enabled: true, retentionDays: 90 }, store, silentLog);
    assert.ok(on instanceof SearchLog);
    await on.close();
  });
});
