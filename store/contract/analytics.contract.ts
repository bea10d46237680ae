/** The contract of the search log: searches and clicks appended in batches, read back, pruned by age. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loggedSearch, T0, withStore, type StoreFactory } from './harness.ts';

const search = loggedSearch;

export function searchLogContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('the search log', () => {
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
