/** The contract of the frontier's records (UrlStore, HostStore, seeds, rejections). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { T0, taken, withStore, type StoreFactory } from './harness.ts';

export function urlContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('URLs: the seen-set and the queue', () => {
    it(
      'queues a URL once in its life',
      test(async (s) => {
        const first = await s.enqueue({ urls: [{ url: 'http://a.org/1', depth: 0 }] }, T0);
        assert.deepEqual([...first.added], ['http://a.org/1']);
        assert.deepEqual([...first.hosts], ['a.org']);
        const again = await s.enqueue({ urls: [{ url: 'http://a.org/1', depth: 3 }] }, T0);
        assert.deepEqual([...again.added], []);
        const q = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
        await s.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: null }, T0);
        assert.equal((await s.enqueue({ urls: [{ url: 'http://a.org/1', depth: 0 }] }, T0)).added.length, 0, 'a fetched URL is still seen');
        const counts = await s.urls.counts();
        assert.deepEqual([counts.queued, counts.indexed, counts.fetching], [0, 1, 0]);
        assert.equal(await s.urls.pagesFetched(), 1);
      }),
    );

    it(
      'serves each host breadth-first: lowest depth first, then oldest',
      test(async (s) => {
        await s.enqueue(
          {
            urls: [
              { url: 'http://a.org/deep', depth: 2 },
              { url: 'http://a.org/first', depth: 1 },
              { url: 'http://b.org/other', depth: 0 },
              { url: 'http://a.org/second', depth: 1 },
              { url: 'http://a.org/root', depth: 0 },
            ],
          },
          T0,
        );
        const order: string[] = [];
        for (let q = await s.urls.take('a.org', { kinds: ['queued'], now: T0 }); q; q = await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))
          order.push(q.url);
        assert.deepEqual(order, ['http://a.org/root', 'http://a.org/first', 'http://a.org/second', 'http://a.org/deep']);
        assert.deepEqual(await s.hosts.withWork(), ['b.org']);
        assert.deepEqual(
          await s.hosts.urlCounts(),
          new Map([
            ['a.org', 4],
            ['b.org', 1],
          ]),
        );
        assert.deepEqual(await s.hosts.urlCounts(['b.org', 'z.org']), new Map([['b.org', 1]]), 'of the hosts asked for');
        assert.deepEqual(
          await s.hosts.queued(['a.org', 'b.org']),
          new Map([
            ['a.org', 0],
            ['b.org', 1],
          ]),
        );
      }),
    );

    it(
      'keeps what it was told of a URL: the form to fetch, hops, tunnel, and a sitemap\u2019s lastmod',
      test(async (s) => {
        await s.enqueue({ urls: [{ url: 'http://a.org/x', fetchUrl: 'http://a.org/X', depth: 2, hops: 1, tunnel: 1, lastmod: '2026-01-02' }] }, T0);
        const q = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
        assert.deepEqual([q.fetchUrl, q.depth, q.hops, q.tunnel, q.lastmod, q.attempts, q.revisit], ['http://a.org/X', 2, 1, 1, '2026-01-02', 1, false]);
        const r = (await s.urls.record('http://a.org/x'))!;
        assert.deepEqual([r.state, r.discoveredAt, r.host, r.linksCut], ['fetching', T0, 'a.org', null]);
        assert.equal(await s.urls.record('http://a.org/never'), undefined);
        assert.deepEqual(await s.urls.idsOf(['http://a.org/x', 'http://a.org/never']), new Map([['http://a.org/x', q.id]]));
      }),
    );

    it(
      'claims a URL for a response from elsewhere (an import): made if new, in flight, then finished as any',
      test(async (s) => {
        const q = await s.urls.claim({ url: 'http://imported.org/a', depth: 0 }, T0);
        assert.deepEqual([q.url, q.fetchUrl, q.host, q.attempts], ['http://imported.org/a', 'http://imported.org/a', 'imported.org', 1]);
        assert.equal((await s.urls.counts()).fetching, 1);
        assert.equal(await s.urls.take('imported.org', { kinds: ['queued'], now: T0 }), undefined, 'not queued: in flight');
        await s.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: null }, T0);
        const again = await s.urls.claim({ url: 'http://imported.org/a', depth: 0 }, T0 + 1);
        assert.equal(again.id, q.id, 'the same record');
        const c = await s.urls.counts();
        assert.deepEqual([c.fetching, c.indexed], [1, 0]);
      }),
    );

    it('puts in-flight URLs back, and recovers them after a crash', async () => {
      const s = await factory.fresh();
      await s.enqueue(
        {
          urls: [
            { url: 'http://a.org/1', depth: 0 },
            { url: 'http://a.org/2', depth: 0 },
          ],
        },
        T0,
      );
      const one = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
      await s.urls.putBack(one.id);
      assert.equal((await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!.url, 'http://a.org/1', 'put back at its place in the queue');
      await s.urls.take('a.org', { kinds: ['queued'], now: T0 });
      assert.equal((await s.urls.counts()).fetching, 2);
      await s.close();
      // Opened again (a new process): both in-flight URLs come back, their attempt not counted.
      const after = await factory.reopen(s);
      try {
        assert.equal((await after.urls.counts()).fetching, 2, 'counts come from what is stored');
        assert.equal(await after.urls.recoverInFlight(), 2);
        assert.equal((await after.urls.counts()).queued, 2);
        assert.equal((await after.urls.take('a.org', { kinds: ['queued'], now: T0 }))!.attempts, 1);
      } finally {
        await after.close();
      }
    });

    it(
      'brings a failed URL back when its next attempt is due, keeping its attempt count',
      test(async (s) => {
        const a = await taken(s, 'http://a.org/x');
        assert.equal(a.attempts, 1);
        await s.urls.finish(a.id, { outcome: { kind: 'failed', status: 503, error: 'http-5xx', reason: 'HTTP 503', retryAt: T0 + 4000 }, revisit: null }, T0);
        const r = (await s.urls.record('http://a.org/x'))!;
        assert.deepEqual([r.state, r.error, r.attempts, r.nextAttemptAt, r.httpStatus], ['failed', 'http-5xx', 1, T0 + 4000, 503]);
        assert.equal(await s.urls.nextRetryAt(), T0 + 4000);
        assert.equal(await s.urls.take('a.org', { kinds: ['queued', 'retry'], now: T0 }), undefined, 'not due yet');
        assert.deepEqual(await s.hosts.withDueRetries(T0), []);
        assert.deepEqual(await s.hosts.withDueRetries(T0 + 4000), ['a.org']);
        assert.equal(await s.urls.take('a.org', { kinds: ['queued'], now: T0 + 4000 }), undefined, 'a retry is not a new URL');
        const again = (await s.urls.take('a.org', { kinds: ['queued', 'retry'], now: T0 + 4000 }))!;
        assert.deepEqual([again.attempts, again.kind], [2, 'retry']);
        await s.urls.finish(again.id, { outcome: { kind: 'indexed', status: 200 }, revisit: null }, T0 + 5000);
        assert.equal(await s.urls.nextRetryAt(), undefined);
        assert.equal((await s.urls.counts()).failed, 0);
        assert.equal((await s.urls.record('http://a.org/x'))!.attempts, 0, 'a success resets the attempts');
      }),
    );

    it(
      'records outcomes with their reasons, errors and what the fetch learned',
      test(async (s) => {
        const gone = await taken(s, 'http://a.org/gone');
        await s.urls.finish(gone.id, { outcome: { kind: 'dead', status: 404, error: 'http-4xx', reason: 'HTTP 404' }, revisit: null }, 10);
        const r = (await s.urls.record('http://a.org/gone'))!;
        assert.deepEqual([r.state, r.httpStatus, r.reason, r.error, r.fetchedAt], ['dead', 404, 'HTTP 404', 'http-4xx', 10]);
        const moved = await taken(s, 'http://a.org/moved');
        await s.urls.finish(moved.id, { outcome: { kind: 'redirected', status: 301, to: 'http://a.org/new' }, revisit: null }, 10);
        assert.equal((await s.urls.record('http://a.org/moved'))!.reason, 'http://a.org/new', 'a redirect records its target');

        const page = await taken(s, 'http://a.org/page');
        const meta = {
          contentType: 'text/html',
          charset: 'utf-8',
          lang: 'en',
          size: 1234,
          hash: 'h1',
          etag: '"v1"',
          lastModified: 'Sat, 01 Jan 2026 00:00:00 GMT',
          linksCut: 42,
        };
        await s.urls.finish(page.id, { outcome: { kind: 'indexed', status: 200, meta }, revisit: null }, 10);
        const p = (await s.urls.record('http://a.org/page'))!;
        assert.deepEqual(
          [p.contentType, p.charset, p.lang, p.size, p.hash, p.etag, p.lastModified, p.changedAt, p.fetchedAt, p.linksCut],
          ['text/html', 'utf-8', 'en', 1234, 'h1', '"v1"', 'Sat, 01 Jan 2026 00:00:00 GMT', 10, 10, 42],
        );
        // Fetched again: the same hash does not move changedAt; no links cut this time.
        await s.urls.requeue({ url: 'http://a.org/page' });
        const again = (await s.urls.take('a.org', { kinds: ['queued'], now: 20 }))!;
        assert.equal(again.hash, 'h1', 'the validators and hash of the last fetch come with it');
        assert.equal(again.etag, '"v1"');
        assert.deepEqual(await s.urls.linksCut(), { pages: 1, links: 42 }, 'counted while the page\u2019s links are cut');
        await s.urls.finish(again.id, { outcome: { kind: 'indexed', status: 200, meta: { ...meta, linksCut: 0 } }, revisit: null }, 20);
        const p2 = (await s.urls.record('http://a.org/page'))!;
        assert.deepEqual([p2.changedAt, p2.fetchedAt, p2.linksCut], [10, 20, null]);
        assert.deepEqual(await s.urls.linksCut(), { pages: 0, links: 0 });
      }),
    );

    it(
      'counts a focused crawl\u2019s verdicts, a page that changes sides once',
      test(async (s) => {
        const a = await taken(s, 'http://a.org/a');
        const b = await taken(s, 'http://a.org/b');
        await s.urls.finish(a.id, { outcome: { kind: 'indexed', status: 200, meta: { topic: { score: 50, relevant: true } } }, revisit: null }, T0);
        await s.urls.finish(
          b.id,
          { outcome: { kind: 'excluded', status: 200, reason: 'off topic', meta: { topic: { score: 2, relevant: false } } }, revisit: null },
          T0,
        );
        assert.deepEqual(await s.urls.topicVerdicts(), { relevant: 1, notRelevant: 1 });
        await s.urls.requeue({ url: 'http://a.org/a' });
        const a2 = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
        await s.urls.finish(
          a2.id,
          { outcome: { kind: 'excluded', status: 200, reason: 'off topic', meta: { topic: { score: 1, relevant: false } } }, revisit: null },
          T0,
        );
        assert.deepEqual(await s.urls.topicVerdicts(), { relevant: 0, notRelevant: 2 });
        const r = (await s.urls.record('http://a.org/a'))!;
        assert.deepEqual([r.topicScore, r.relevant], [1, false]);
      }),
    );

    it(
      'marks a given-up host\u2019s queued and failed URLs dead',
      test(async (s) => {
        await s.enqueue(
          {
            urls: [
              { url: 'http://a.org/1', depth: 0 },
              { url: 'http://a.org/2', depth: 0 },
              { url: 'http://b.org/1', depth: 0 },
            ],
          },
          T0,
        );
        const q = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
        await s.urls.finish(q.id, { outcome: { kind: 'failed', error: 'timeout', reason: 'timeout', retryAt: 0 }, revisit: null }, T0);
        assert.equal(await s.hosts.kill('a.org', 'host-suspended', 'suspended 3 times', T0), 2);
        const c = await s.urls.counts();
        assert.deepEqual([c.dead, c.failed, c.queued], [2, 0, 1]);
        const r = (await s.urls.record('http://a.org/2'))!;
        assert.deepEqual([r.state, r.error, r.reason], ['dead', 'host-suspended', 'suspended 3 times']);
      }),
    );

    it(
      'counts rejection reasons, the seen-set\u2019s as already-seen',
      test(async (s) => {
        await s.enqueue({ urls: [], rejected: new Map([['out-of-scope', 3]]) }, T0);
        await s.rejections.count(
          new Map([
            ['out-of-scope', 1],
            ['robots', 1],
          ]),
        );
        await s.enqueue(
          {
            urls: [
              { url: 'http://a.org/1', depth: 0 },
              { url: 'http://a.org/1', depth: 1 },
              { url: 'http://a.org/2', depth: 1 },
            ],
          },
          T0,
        );
        assert.deepEqual(await s.rejections.all(), [
          { reason: 'out-of-scope', count: 4 },
          { reason: 'already-seen', count: 1 },
          { reason: 'robots', count: 1 },
        ]);
      }),
    );

    it(
      'queues URLs again for a recrawl, and keeps out what an admin removed',
      test(async (s) => {
        for (const u of ['http://a.org/1', 'http://a.org/2', 'http://b.org/1']) {
          const q = await taken(s, u);
          await s.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: null }, T0);
        }
        const removed = await s.urls.exclude({ url: 'http://a.org/2' });
        assert.equal(removed.length, 1);
        assert.equal((await s.urls.record('http://a.org/2'))!.state, 'excluded');
        assert.deepEqual(await s.urls.requeue({ host: 'a.org' }), { count: 1, hosts: ['a.org'] }, 'not the URL an admin removed');
        assert.deepEqual((await s.urls.requeue({ all: true })).count, 1, 'b.org/1; not a queued one again, nor the removed one');
        assert.equal((await s.urls.requeue({ url: 'http://a.org/2' })).count, 1, 'named by its URL, it comes back');
        const c = await s.urls.counts();
        assert.deepEqual([c.queued, c.indexed, c.excluded], [3, 0, 0]);
        assert.deepEqual((await s.urls.exclude({ host: 'b.org' })).length, 1);
        assert.equal((await s.urls.counts()).excluded, 1);
      }),
    );

    it(
      'keeps the seeds in the order they were added, each once',
      test(async (s) => {
        await s.seeds.add(['http://b.org/', 'http://a.org/'], T0);
        await s.seeds.add(['http://a.org/', 'http://c.org/'], T0 + 1);
        assert.deepEqual(await s.seeds.all(), ['http://a.org/', 'http://b.org/', 'http://c.org/']);
      }),
    );

    it(
      'caches robots.txt per host',
      test(async (s) => {
        assert.equal(await s.robots.get('a.org'), undefined);
        await s.robots.put('a.org', { fetchedAt: 5, status: 200, body: 'User-agent: *\nDisallow: /x' });
        await s.robots.put('a.org', { fetchedAt: 6, status: 0, body: 'robots.txt: dns' });
        assert.deepEqual(await s.robots.get('a.org'), { fetchedAt: 6, status: 0, body: 'robots.txt: dns' });
      }),
    );
  });
}
