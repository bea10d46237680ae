/** The contract of the failures report (UrlStore.failures): the sites' broken links told apart from the crawl's own failures. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Outcome } from '../../model/index.ts';
import type { Store } from '../store.ts';
import { T0, taken, withStore, type StoreFactory } from './harness.ts';

/** Takes the host's next queued URL, which must be `url`, and commits how its fetch ended. */
async function ends(s: Store, url: string, outcome: Outcome): Promise<void> {
  const q = await s.urls.take(new URL(url).host, { kinds: ['queued'], now: T0 });
  assert.equal(q?.url, url);
  await s.commitFetch({ id: q!.id, outcome, revisit: null }, T0);
}

const dead404: Outcome = { kind: 'dead', status: 404, error: 'http-4xx', reason: 'HTTP 404' };

export function failuresContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('failures: broken links and the crawl’s own', () => {
    it(
      'tells a 404 or 410 reached from a link (with the page it was found on) from timeouts, 5xx and a seed that is not there',
      test(async (s) => {
        const home = await taken(s, 'http://a.org/');
        await s.commitFetch(
          {
            id: home.id,
            outcome: { kind: 'indexed', status: 200 },
            revisit: null,
            links: {
              // (Named in the order they are given: a backend may number a batch's new URLs in URL order.)
              urls: ['1-missing', '2-gone', '3-down', '4-slow', '5-fine'].map((p) => ({ url: `http://a.org/${p}`, depth: 1 })),
            },
          },
          T0,
        );
        // Found by a link too, but outside a page's commit (a sitemap's, an import's): no page to name.
        await s.enqueue({ urls: [{ url: 'http://a.org/unlisted', depth: 1 }] }, T0);
        s.anchors.add('http://a.org/', [
          { target: 'http://a.org/1-missing', text: 'Missing page' },
          { target: 'http://a.org/1-missing', text: 'see here' },
        ]);
        s.anchors.add('http://a.org/5-fine', [{ target: 'http://a.org/1-missing', text: 'Missing page' }]);
        await s.anchors.write();
        await ends(s, 'http://a.org/1-missing', dead404);
        // (A page Trawl held that answers 410: failed once more, to be confirmed — a broken link already.)
        await ends(s, 'http://a.org/2-gone', { kind: 'failed', status: 410, error: 'http-4xx', reason: 'HTTP 410', retryAt: T0 + 1000 });
        await ends(s, 'http://a.org/3-down', { kind: 'dead', status: 500, error: 'http-5xx', reason: 'HTTP 500' });
        await ends(s, 'http://a.org/4-slow', { kind: 'failed', error: 'timeout', reason: 'timeout: no answer in 30 s', retryAt: T0 + 1000 });
        await ends(s, 'http://a.org/5-fine', { kind: 'indexed', status: 200 });
        await ends(s, 'http://a.org/unlisted', dead404);
        // A seed that is not there: the crawl's input, not a link of the site.
        const seed = await taken(s, 'http://b.org/old-seed');
        await s.commitFetch({ id: seed.id, outcome: dead404, revisit: null }, T0);

        const report = await s.urls.failures(10);
        assert.deepEqual(report.brokenLinks, {
          count: 3,
          shown: [
            { url: 'http://a.org/1-missing', status: 404, foundOn: 'http://a.org/', links: 3 },
            { url: 'http://a.org/2-gone', status: 410, foundOn: 'http://a.org/', links: 0 },
            { url: 'http://a.org/unlisted', status: 404, foundOn: null, links: 0 },
          ],
        });
        assert.deepEqual(report.fetchFailures, {
          count: 3,
          shown: [
            { url: 'http://a.org/3-down', state: 'dead', error: 'http-5xx', reason: 'HTTP 500', httpStatus: 500, attempts: 1 },
            { url: 'http://a.org/4-slow', state: 'failed', error: 'timeout', reason: 'timeout: no answer in 30 s', httpStatus: null, attempts: 1 },
            { url: 'http://b.org/old-seed', state: 'dead', error: 'http-4xx', reason: 'HTTP 404', httpStatus: 404, attempts: 1 },
          ],
        });
        const counts = await s.urls.counts();
        assert.equal(counts.failed + counts.dead, report.brokenLinks.count + report.fetchFailures.count, 'every failure is one or the other');

        const first = await s.urls.failures(1);
        assert.deepEqual(
          [first.brokenLinks.count, first.brokenLinks.shown.map((b) => b.url), first.fetchFailures.count, first.fetchFailures.shown.map((f) => f.url)],
          [3, ['http://a.org/1-missing'], 3, ['http://a.org/3-down']],
          'counted in full, the first few listed',
        );
      }),
    );

    it(
      'reports nothing when nothing failed',
      test(async (s) => {
        const q = await taken(s, 'http://a.org/');
        await s.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null }, T0);
        assert.deepEqual(await s.urls.failures(5), { brokenLinks: { count: 0, shown: [] }, fetchFailures: { count: 0, shown: [] } });
      }),
    );
  });
}
