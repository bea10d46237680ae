/** The contract of the search console's reports: the rollups the store keeps as searches and clicks are appended. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SearchClick } from '../../model/index.ts';
import { loggedSearch, withStore, type StoreFactory } from './harness.ts';

const DAY = 86_400_000;
const day0 = Date.UTC(2026, 10, 30);

const search = loggedSearch;
const click = (searchId: string, at: number, position: number, url = position === 1 ? 'http://e.org/a' : 'http://e.org/b'): SearchClick => ({
  searchId,
  at,
  position,
  url,
});

export function searchReportsContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe("the search console's reports", () => {
    it(
      'reports each query of a range of days — searches, clicked, the first click\u2019s mean position, none found — and each day',
      test(async (s) => {
        await s.searchLog.append(
          [
            search('k1', day0 + 1000),
            search('k2', day0 + 2000),
            search('k3', day0 + DAY + 5),
            search('v1', day0 + 3000, { understood: 'vacuum' }),
            search('e1', day0 + 4000, { understood: 'zzz', total: 0, shown: [] }),
            search('e2', day0 + 5000, { understood: 'zzz', total: 0, shown: [] }),
            search('late', day0 + 3 * DAY, { understood: 'vacuum' }),
            search('k1', day0 + 9000, { understood: 'written twice' }),
          ],
          // k1's first click is at position 2 (then 1); k3's at 1; k2 unclicked.
          [click('k1', day0 + 1100, 2), click('k1', day0 + 1200, 1)],
        );
        await s.searchLog.append([], [click('k3', day0 + DAY + 9, 1)]);
        const r = s.searchReports;
        assert.deepEqual(await r.queries({ since: day0, until: day0 + 2 * DAY }, 10), [
          { query: 'kill query', searches: 3, clicked: 2, firstClickPosition: 1.5, noResults: 0 },
          { query: 'zzz', searches: 2, clicked: 0, firstClickPosition: null, noResults: 2 },
          { query: 'vacuum', searches: 1, clicked: 0, firstClickPosition: null, noResults: 0 },
        ]);
        assert.deepEqual(
          (await r.queries({ since: day0 + 5, until: day0 + 3 * DAY + 1 }, 2)).map((q) => [q.query, q.searches]),
          [
            ['kill query', 3],
            ['vacuum', 2],
          ],
          'whole days: a time within a day takes it whole; bounded; ties by query',
        );
        assert.deepEqual(
          (await r.queries({ since: day0, until: day0 + 4 * DAY }, 10, 'no-results')).map((q) => q.query),
          ['zzz'],
        );
        assert.deepEqual(
          (await r.queries({ since: day0, until: day0 + 4 * DAY }, 10, 'no-clicks')).map((q) => [q.query, q.searches]),
          [['vacuum', 2]],
        );
        assert.deepEqual(await r.days({ since: day0, until: day0 + 4 * DAY }), [
          { day: '2026-11-30', searches: 5, clicked: 1 },
          { day: '2026-12-01', searches: 1, clicked: 1 },
          { day: '2026-12-03', searches: 1, clicked: 0 },
        ]);
        assert.deepEqual(await r.days({ since: day0 + DAY, until: day0 + 2 * DAY }), [{ day: '2026-12-01', searches: 1, clicked: 1 }]);
      }),
    );

    it(
      "keeps to a search's filters when asked (site, language, type)",
      test(async (s) => {
        await s.searchLog.append(
          [
            search('a', day0, { filters: { site: 'e.org' } }),
            search('b', day0 + 1, { filters: { site: 'e.org', lang: 'de' } }),
            search('c', day0 + 2, { filters: { type: 'pdf' }, understood: 'manual' }),
            search('d', day0 + 3),
          ],
          [click('b', day0 + 9, 2)],
        );
        const range = (filters: Record<string, string>) => ({ since: day0, until: day0 + DAY, filters });
        const r = s.searchReports;
        assert.deepEqual(
          (await r.queries(range({ site: 'e.org' }), 10)).map((q) => [q.query, q.searches, q.clicked]),
          [['kill query', 2, 1]],
        );
        assert.deepEqual(
          (await r.queries(range({ site: 'e.org', lang: 'de' }), 10)).map((q) => [q.query, q.searches]),
          [['kill query', 1]],
        );
        assert.deepEqual(
          (await r.queries(range({ type: 'pdf' }), 10)).map((q) => q.query),
          ['manual'],
        );
        assert.deepEqual(await r.days(range({ site: 'nowhere.org' })), []);
        assert.deepEqual(await r.days(range({})), [{ day: '2026-11-30', searches: 4, clicked: 1 }]);
      }),
    );

    it(
      'counts refinements (A, then B in a session) with whether each was clicked, whichever is written first',
      test(async (s) => {
        // A unclicked → B clicked; A clicked before B was written; A clicked in the batch that writes B; paging (same query) is none.
        await s.searchLog.append(
          [
            search('a1', day0, { understood: 'kill query' }),
            search('b1', day0 + 10, { understood: 'pg_terminate_backend', refines: 'a1' }),
            search('a2', day0 + 20, { understood: 'kill query' }),
          ],
          [click('b1', day0 + 11, 1), click('a2', day0 + 21, 1)],
        );
        await s.searchLog.append(
          [
            search('b2', day0 + 30, { understood: 'pg_terminate_backend', refines: 'a2' }),
            search('a3', day0 + 40, { understood: 'kill query' }),
            search('b3', day0 + 50, { understood: 'pg_terminate_backend', refines: 'a3' }),
            search('p2', day0 + 60, { understood: 'pg_terminate_backend', refines: 'b3', page: 2 }),
          ],
          [click('a3', day0 + 41, 2), click('b3', day0 + 51, 1), click('b3', day0 + 52, 2)],
        );
        assert.deepEqual(await s.searchReports.refinements({ since: day0, until: day0 + DAY }, 10), [
          { from: 'kill query', to: 'pg_terminate_backend', searches: 3, fromClicked: 2, toClicked: 2 },
        ]);
        assert.deepEqual(await s.searchReports.refinements({ since: day0 + DAY, until: day0 + 2 * DAY }, 10), []);
      }),
    );

    it(
      "reads one query's recent searches, newest first and bounded, with their clicks; prunes the rollups by whole days",
      test(async (s) => {
        await s.searchLog.append(
          [search('x1', day0), search('x2', day0 + 5), search('y', day0 + 6, { understood: 'other' }), search('x3', day0 + DAY)],
          [click('x2', day0 + 7, 2), click('x1', day0 + 8, 1)],
        );
        const got = await s.searchReports.recentSearches('kill query', { since: day0, until: day0 + DAY }, 10);
        assert.deepEqual(
          got.searches.map((x) => x.id),
          ['x2', 'x1'],
        );
        assert.deepEqual(
          got.clicks.map((c) => [c.searchId, c.position]),
          [
            ['x2', 2],
            ['x1', 1],
          ],
        );
        assert.deepEqual(
          (await s.searchReports.recentSearches('kill query', { since: day0, until: day0 + 2 * DAY }, 1)).searches.map((x) => x.id),
          ['x3'],
        );
        assert.equal(await s.searchLog.prune(day0 + DAY), 3);
        assert.deepEqual(await s.searchReports.days({ since: day0, until: day0 + 2 * DAY }), [{ day: '2026-12-01', searches: 1, clicked: 0 }]);
      }),
    );
  });
}
