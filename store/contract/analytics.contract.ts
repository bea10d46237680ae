/** The contract of the search log: searches and clicks appended in batches, read back, pruned by age. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoggedSearch } from '../../model/index.ts';
import { T0, withStore, type StoreFactory } from './harness.ts';

const search = (id: string, at: number, extra: Partial<LoggedSearch> = {}): LoggedSearch => ({
  id,
  at,
  source: 'page',
  query: 'kill query',
  understood: 'kill query',
  filters: {},
  page: 1,
  total: 2,
  shown: ['http://e.org/a', 'http://e.org/b'],
  tookMs: 3.5,
  prefixes: [],
  ...extra,
});

export function searchLogContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('the search log', () => {
    it(
      'reports each query searched in a time range — searches, clicked, the first click\u2019s mean position, none found — and each day',
      test(async (s) => {
        assert.equal(s.searchLog.writable, true);
        const DAY = 86_400_000;
        const day0 = Date.UTC(2026, 10, 30);
        await s.searchLog.append(
          [
            search('k1', day0 + 1000, { understood: 'kill query' }),
            search('k2', day0 + 2000, { understood: 'kill query' }),
            search('k3', day0 + DAY + 5, { understood: 'kill query' }),
            search('v1', day0 + 3000, { understood: 'vacuum' }),
            search('e1', day0 + 4000, { understood: 'zzz', total: 0, shown: [] }),
            search('e2', day0 + 5000, { understood: 'zzz', total: 0, shown: [] }),
            search('late', day0 + 3 * DAY, { understood: 'vacuum' }),
          ],
          [
            // k1's first click is at position 2 (then 1); k3's at 1; k2 unclicked.
            { searchId: 'k1', at: day0 + 1100, position: 2, url: 'http://e.org/b' },
            { searchId: 'k1', at: day0 + 1200, position: 1, url: 'http://e.org/a' },
            { searchId: 'k3', at: day0 + DAY + 9, position: 1, url: 'http://e.org/a' },
          ],
        );
        assert.deepEqual(await s.searchLog.queries(day0, day0 + 2 * DAY, 10), [
          { query: 'kill query', searches: 3, clicked: 2, firstClickPosition: 1.5, noResults: 0 },
          { query: 'zzz', searches: 2, clicked: 0, firstClickPosition: null, noResults: 2 },
          { query: 'vacuum', searches: 1, clicked: 0, firstClickPosition: null, noResults: 0 },
        ]);
        assert.deepEqual(
          (await s.searchLog.queries(day0, day0 + 4 * DAY, 2)).map((q) => [q.query, q.searches]),
          [
            ['kill query', 3],
            ['vacuum', 2],
          ],
          'bounded; ties by query',
        );
        assert.deepEqual(await s.searchLog.days(day0, day0 + 4 * DAY), [
          { day: '2026-11-30', searches: 5, clicked: 1 },
          { day: '2026-12-01', searches: 1, clicked: 1 },
          { day: '2026-12-03', searches: 1, clicked: 0 },
        ]);
      }),
    );

    it('keeps every field of a search, and its clicks in order, through a reopening', async () => {
      const s = await factory.fresh();
      let again = s;
      try {
        const full = search('a1', T0, {
          session: 'tab-1',
          source: 'widget',
          query: 'Kill  Query ツ',
          understood: 'kill query ツ',
          filters: { site: 'e.org', lang: 'ja' },
          page: 2,
          prefixes: ['ki', 'kill q'],
        });
        await s.searchLog.append([full, search('b2', T0 + 5)], [{ searchId: 'a1', at: T0 + 9, position: 2, url: 'http://e.org/b' }]);
        await s.searchLog.append([], [{ searchId: 'a1', at: T0 + 12, position: 1, url: 'http://e.org/a' }]);
        await s.sync();
        await s.close();
        again = await factory.reopen(s);
        assert.deepEqual(await again.searchLog.search('a1'), full);
        assert.equal(await again.searchLog.search('nope'), undefined);
        assert.deepEqual(await again.searchLog.clicksOf(['a1', 'b2']), [
          { searchId: 'a1', at: T0 + 9, position: 2, url: 'http://e.org/b' },
          { searchId: 'a1', at: T0 + 12, position: 1, url: 'http://e.org/a' },
        ]);
      } finally {
        await again.close();
      }
    });

    it(
      'lists searches from a time on, in time order and bounded, and prunes the older ones with their clicks',
      test(async (s) => {
        await s.searchLog.append(
          [search('c', T0 + 20), search('a', T0), search('b', T0 + 10), search('b', T0 + 99)],
          [
            { searchId: 'a', at: T0 + 1, position: 1, url: 'http://e.org/a' },
            { searchId: 'c', at: T0 + 21, position: 2, url: 'http://e.org/b' },
          ],
        );
        assert.deepEqual(
          (await s.searchLog.searches(T0 + 5, 10)).map((x) => [x.id, x.at]),
          [
            ['b', T0 + 10],
            ['c', T0 + 20],
          ],
          'an id logged twice is kept once, as first written',
        );
        assert.deepEqual(
          (await s.searchLog.searches(0, 1)).map((x) => x.id),
          ['a'],
        );
        assert.equal(await s.searchLog.prune(T0 + 15), 2);
        assert.deepEqual(
          (await s.searchLog.searches(0, 10)).map((x) => x.id),
          ['c'],
        );
        assert.deepEqual(
          (await s.searchLog.clicksOf(['a', 'c'])).map((c) => c.searchId),
          ['c'],
        );
      }),
    );
  });
}
