/** The contract of revisit scheduling in the frontier's records. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../store.ts';
import type { TakeOptions } from '../urls.ts';
import { T0, taken, withStore, type StoreFactory } from './harness.ts';

const due = (by: number, kinds: TakeOptions['kinds'] = ['revisit']): TakeOptions => ({ kinds, now: by, revisitsDueBy: by });

/** A page fetched once, due again at `revisitAt`. Returns its id. */
async function fetchedOnce(s: Store, url: string, revisitAt: number): Promise<number> {
  const q = await taken(s, url);
  await s.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: { at: revisitAt, intervalMs: 500 } }, T0);
  return q.id;
}

export function revisitContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('URLs: revisits', () => {
    it(
      'hands out a page when its revisit is due, not before, and only when asked for revisits',
      test(async (s) => {
        await fetchedOnce(s, 'http://a.org/p', 2_000_000);
        assert.equal(await s.urls.take('a.org', due(1_999_999)), undefined, 'not due yet');
        assert.equal(await s.urls.nextRevisitAt(), 2_000_000);
        assert.equal(await s.urls.dueRevisits(2_000_000), 1);
        assert.deepEqual(await s.hosts.withDueRevisits(2_000_000), ['a.org']);
        assert.equal(await s.urls.take('a.org', { kinds: ['queued', 'retry'], now: 2_000_000 }), undefined, 'a pass over named pages leaves due ones alone');
        const q = (await s.urls.take('a.org', due(2_000_000)))!;
        assert.deepEqual([q.url, q.revisit, q.revisitMs, q.kind], ['http://a.org/p', true, 500, 'revisit']);
        const c = await s.urls.counts();
        assert.deepEqual([c.fetching, c.indexed], [1, 0]);
        assert.equal(await s.urls.dueRevisits(2_000_000), 0, 'in flight: no longer due');
        await s.urls.finish(q.id, { outcome: { kind: 'not-modified', status: 304 }, revisit: { at: 3_000_000, intervalMs: 1000 } }, 2_000_100);
        const r = (await s.urls.record('http://a.org/p'))!;
        assert.deepEqual([r.revisitAt, r.revisitMs, r.state], [3_000_000, 1000, 'not-modified']);
      }),
    );

    it(
      'takes the kinds in the order asked',
      test(async (s) => {
        await fetchedOnce(s, 'http://a.org/old', 1_500_000);
        await s.enqueue({ urls: [{ url: 'http://a.org/new', depth: 1 }] }, T0);
        assert.equal((await s.urls.take('a.org', due(2_000_000, ['revisit', 'queued'])))!.url, 'http://a.org/old');
        assert.equal((await s.urls.take('a.org', due(2_000_000, ['revisit', 'queued'])))!.url, 'http://a.org/new', 'none due left: the next kind');
        assert.equal(await s.urls.take('a.org', due(2_000_000, ['revisit', 'queued'])), undefined);
      }),
    );

    it(
      'makes a page due when a sitemap dates it after its last fetch',
      test(async (s) => {
        await fetchedOnce(s, 'http://a.org/p', 9_000_000);
        await s.enqueue({ urls: [{ url: 'http://a.org/p', depth: 0, lastmod: new Date(500_000).toISOString() }] }, 2_000_000);
        assert.equal(await s.urls.dueRevisits(2_000_000), 0, 'an older <lastmod> changes nothing');
        await s.enqueue({ urls: [{ url: 'http://a.org/p', depth: 0, lastmod: new Date(1_500_000).toISOString() }] }, 2_000_000);
        const r = (await s.urls.record('http://a.org/p'))!;
        assert.equal(r.revisitAt, 1_500_000, 'due since the sitemap says it changed');
        assert.equal(r.lastmod, new Date(1_500_000).toISOString());
        assert.equal((await s.urls.take('a.org', due(2_000_000)))!.url, 'http://a.org/p');
      }),
    );

    it(
      'makes every sitemap due at once for a pass that reads them first',
      test(async (s) => {
        const q = await taken(s, 'http://a.org/sitemap.xml');
        await s.urls.finish(q.id, { outcome: { kind: 'fetched', status: 200 }, revisit: { at: 9_000_000, intervalMs: 1000 } }, T0);
        await fetchedOnce(s, 'http://a.org/page', 9_000_000);
        await s.urls.sitemapsDue(2_000_000);
        assert.equal((await s.urls.record('http://a.org/sitemap.xml'))!.revisitAt, 2_000_000);
        assert.equal((await s.urls.record('http://a.org/page'))!.revisitAt, 9_000_000, 'pages are left as they are');
      }),
    );

    it(
      'schedules no revisit for a URL waiting for a retry, queued again by hand, or removed',
      test(async (s) => {
        const id = await fetchedOnce(s, 'http://a.org/p', 1_500_000);
        await fetchedOnce(s, 'http://a.org/q', 1_500_000);
        await fetchedOnce(s, 'http://a.org/r', 1_500_000);
        const q = (await s.urls.take('a.org', due(2_000_000)))!;
        assert.equal(q.id, id);
        await s.urls.finish(
          q.id,
          { outcome: { kind: 'failed', status: 503, error: 'http-5xx', reason: 'HTTP 503', retryAt: 2_100_000 }, revisit: { at: 2_000_500, intervalMs: 500 } },
          2_000_000,
        );
        assert.equal((await s.urls.record('http://a.org/p'))!.revisitAt, null);
        await s.urls.requeue({ url: 'http://a.org/q' });
        assert.equal((await s.urls.record('http://a.org/q'))!.revisitAt, null);
        await s.urls.exclude({ url: 'http://a.org/r' });
        assert.equal((await s.urls.record('http://a.org/r'))!.revisitAt, null);
        assert.equal(await s.urls.dueRevisits(2_000_000), 0);
        assert.equal(await s.urls.nextRevisitAt(), undefined);
      }),
    );
  });
}
