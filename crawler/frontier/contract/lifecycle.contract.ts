/** The contract of a crawl's life through the frontier: when it is done, limits.maxPages, a URL put back, a stop and the next run. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PUT_BACK } from '../frontier.ts';
import { drive, end, type FrontierFactory, queue, runOf, T0, takeOne, withFrontier } from './harness.ts';

export function lifecycleContract(factory: FrontierFactory): void {
  describe("a crawl's life", () => {
    it(
      'is done at once when nothing is queued',
      withFrontier(factory, {}, async ({ frontier, clock }) => {
        await frontier.start(runOf());
        assert.deepEqual(await frontier.next(clock.now()), { kind: 'done', reason: 'exhausted' });
      }),
    );

    it(
      'is not done while a URL is in the pipeline, nor while a retry waits: it names when to look again',
      withFrontier(factory, { policy: { delayMs: 0 } }, async ({ frontier, clock }) => {
        await queue(frontier, 'http://a.org/1');
        await frontier.start(runOf());
        const item = await takeOne(frontier, clock);
        assert.equal((await frontier.next(clock.now())).kind, 'wait', 'a URL in flight');
        await end(frontier, clock, item, { outcome: { kind: 'failed', error: 'timeout', reason: 'timeout', retryAt: T0 + 5000 } });
        const next = await frontier.next(clock.now());
        assert.equal(next.kind, 'wait', 'a retry waits');
        assert.ok(next.kind === 'wait' && next.until !== undefined && next.until <= T0 + 5000, `looks again by the retry (${JSON.stringify(next)})`);
        clock.set(T0 + 5000);
        const { taken, done } = await drive(frontier, clock, { concurrency: 1, fetchMs: 10, start: false });
        assert.deepEqual(
          taken.map((t) => [t.path, t.kind]),
          [['/1', 'retry']],
        );
        assert.equal(done, 'exhausted');
      }),
    );

    it(
      'stops handing out new URLs at limits.maxPages, and says so',
      withFrontier(factory, { policy: { delayMs: 0 }, maxPages: 3 }, async ({ frontier, clock, store }) => {
        await queue(frontier, ...[1, 2, 3, 4, 5, 6].map((i) => `http://a.org/${i}`));
        const { taken, done } = await drive(frontier, clock, { concurrency: 2, fetchMs: 10 });
        assert.equal(done, 'limit');
        assert.equal(taken.length, 3);
        assert.equal(await store.urls.pagesFetched(), 3);
      }),
    );

    it(
      'hands out a page that a sitemap read makes due, even in the same millisecond, before it calls the pass done (regression: ended with it)',
      withFrontier(factory, { policy: { delayMs: 0 }, revisits: 'due' }, async ({ frontier, clock, again }) => {
        await queue(frontier, 'http://a.org/page');
        await frontier.start(runOf());
        const page = await takeOne(frontier, clock);
        await end(frontier, clock, page, { outcome: { kind: 'indexed', status: 200 }, revisit: { at: T0 + 86_400_000, intervalMs: 86_400_000 } });
        assert.equal((await frontier.next(clock.now())).kind, 'done');
        // The next pass, later: a sitemap read there dates the page after its fetch.
        clock.set(T0 + 1000);
        const next = await again();
        await queue(next, 'http://a.org/sitemap.xml');
        await next.start(runOf());
        const map = await takeOne(next, clock);
        await next.fetched(map, { at: clock.now(), ok: true });
        const lastmod = new Date(T0 + 500).toISOString();
        await next.finish(map, {
          commit: { id: map.id, outcome: { kind: 'fetched', status: 200 }, revisit: null, links: { urls: [{ url: 'http://a.org/page', depth: 1, lastmod }] } },
          at: clock.now(),
          anchors: [],
          sitemap: true,
        });
        next.settled(map);
        const after = await next.next(clock.now());
        assert.equal(after.kind, 'item', `the page is handed out (${JSON.stringify(after)})`);
        assert.equal(after.kind === 'item' && after.item.url, 'http://a.org/page');
      }),
    );

    it(
      'hands a URL put back out again, its attempt not counted',
      withFrontier(factory, { policy: { delayMs: 0 } }, async ({ frontier, clock, store }) => {
        await queue(frontier, 'http://a.org/1');
        await frontier.start(runOf());
        const first = await takeOne(frontier, clock);
        await end(frontier, clock, first, PUT_BACK);
        const again = await takeOne(frontier, clock);
        assert.deepEqual([again.id, again.attempts], [first.id, first.attempts]);
        await end(frontier, clock, again);
        assert.equal((await store.urls.record('http://a.org/1'))?.state, 'indexed');
      }),
    );

    it(
      'leaves what it did not finish when it stops for the next frontier over the store to hand out, and nothing it finished',
      withFrontier(factory, { policy: { delayMs: 0, maxConnections: 4 } }, async ({ frontier, clock, again }) => {
        await queue(frontier, ...[1, 2, 3, 4, 5].map((i) => `http://a.org/${i}`));
        await frontier.start(runOf());
        const [a, b] = [await takeOne(frontier, clock), await takeOne(frontier, clock)];
        await end(frontier, clock, a);
        // (b is in flight when the crawl stops: a crash or a stop past its grace leaves it so.)
        await frontier.stop();
        const next = await again();
        const { taken, done } = await drive(next, clock, { concurrency: 4, fetchMs: 10 });
        assert.deepEqual(taken.map((t) => t.path).sort(), ['/2', '/3', '/4', '/5']);
        assert.ok(taken.some((t) => t.item.id === b.id));
        assert.equal(done, 'exhausted');
      }),
    );
  });
}
