// A host's URLs: the order in which they are taken (the store's
// records themselves are tested by the store contract suite, store/contract/).
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openSqliteStore } from '../../store/sqlite/index.ts';
import { HostUrls } from './host-urls.ts';

const setup = () => {
  let t = 1_000_000;
  const clock = { now: () => t, at: (x: number) => (t = x) };
  const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-frontier-')));
  return { store, frontier: new HostUrls(store, clock.now), clock };
};

/** A page fetched once, due again at `revisitAt`. */
async function fetchedOnce(f: HostUrls, store: ReturnType<typeof openSqliteStore>, url: string, revisitAt: number): Promise<void> {
  await f.enqueue({ urls: [{ url, depth: 0 }] });
  const q = (await f.next(new URL(url).host))!;
  assert.equal(q.url, url);
  await store.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: { at: revisitAt, intervalMs: 500 } }, 1_000_000);
}

describe('HostUrls (which of a host\u2019s URLs next)', () => {
  const pick = { fresh: true, revisitsDueBy: Number.MAX_SAFE_INTEGER };

  it('takes due revisits every other turn from new URLs while a host has both', async () => {
    const { store, frontier: f, clock } = setup();
    await fetchedOnce(f, store, 'http://a.org/old1', 1_500_000);
    await fetchedOnce(f, store, 'http://a.org/old2', 1_500_001);
    await f.enqueue({ urls: ['n1', 'n2', 'n3'].map((n) => ({ url: `http://a.org/${n}`, depth: 1 })) });
    clock.at(2_000_000);
    const order: string[] = [];
    for (let q = await f.next('a.org', pick); q; q = await f.next('a.org', pick)) order.push(new URL(q.url).pathname);
    assert.deepEqual(order, ['/n1', '/old1', '/n2', '/old2', '/n3']);
    await store.close();
  });

  it('goes on with revisits only once new URLs are not wanted (limits.maxPages reached)', async () => {
    const { store, frontier: f, clock } = setup();
    await fetchedOnce(f, store, 'http://a.org/old', 1_500_000);
    await f.enqueue({ urls: [{ url: 'http://a.org/new', depth: 1 }] });
    clock.at(2_000_000);
    assert.equal((await f.next('a.org', { fresh: false, revisitsDueBy: 2_000_000 }))!.url, 'http://a.org/old');
    assert.equal(await f.next('a.org', { fresh: false, revisitsDueBy: 2_000_000 }), undefined);
    assert.equal((await f.next('a.org'))!.url, 'http://a.org/new', 'a pass over named pages takes the new URL');
    await store.close();
  });

  it('takes no due revisit in a pass over named pages, and retries once due', async () => {
    const { store, frontier: f, clock } = setup();
    await fetchedOnce(f, store, 'http://a.org/old', 1_500_000);
    await f.enqueue({ urls: [{ url: 'http://a.org/flaky', depth: 1 }] });
    const q = (await f.next('a.org'))!;
    await store.urls.finish(q.id, { outcome: { kind: 'failed', error: 'timeout', reason: 'timeout', retryAt: 2_000_000 }, revisit: null }, 1_000_000);
    clock.at(1_999_999);
    assert.equal(await f.next('a.org'), undefined, 'the retry is not due yet, the revisit is not asked for');
    clock.at(2_000_000);
    assert.equal((await f.next('a.org'))!.url, 'http://a.org/flaky');
    await store.close();
  });

  it('asks the store for no revisit while none is due anywhere, and again once one may be', async () => {
    const { store, frontier: f, clock } = setup();
    const asked: string[][] = [];
    const take = store.urls.take.bind(store.urls);
    store.urls.take = (host, options) => {
      asked.push([...options.kinds]);
      return take(host, options);
    };
    await f.enqueue({ urls: ['n1', 'n2', 'n3'].map((n) => ({ url: `http://a.org/${n}`, depth: 1 })) });
    const first = (await f.next('a.org', pick))!;
    await f.next('a.org', pick);
    assert.deepEqual(
      asked,
      [
        ['queued', 'retry'],
        ['queued', 'retry'],
      ],
      'no page was ever fetched: none can be due',
    );
    // A page fetched and due again (here at once); a sitemap's <lastmod> would say so too.
    await store.urls.finish(first.id, { outcome: { kind: 'indexed', status: 200 }, revisit: { at: 1_000_500, intervalMs: 500 } }, 1_000_000);
    clock.at(1_000_500);
    f.revisitsChanged();
    assert.equal((await f.next('a.org', pick))!.url, 'http://a.org/n3');
    assert.deepEqual(asked.at(-1), ['queued', 'retry', 'revisit']);
    assert.equal((await f.next('a.org', pick))!.url, 'http://a.org/n1', 'the revisit\u2019s turn');
    await store.close();
  });

  it('counts the URLs of each host as they are queued, for limits.maxPagesPerHost', async () => {
    const { store, frontier: f } = setup();
    await f.enqueue({
      urls: [
        { url: 'http://a.org/1', depth: 0 },
        { url: 'http://a.org/2', depth: 0 },
        { url: 'http://a.org/1', depth: 1 },
        { url: 'http://b.org/', depth: 0 },
      ],
    });
    assert.deepEqual([f.urlsOfHost('a.org'), f.urlsOfHost('b.org'), f.urlsOfHost('c.org')], [2, 1, 0]);
    f.added(['http://c.org/x']);
    assert.equal(f.urlsOfHost('c.org'), 1);
    // A new frontier over the same store reads the counts back.
    const again = new HostUrls(store);
    await again.load();
    assert.deepEqual([again.urlsOfHost('a.org'), again.urlsOfHost('b.org')], [2, 1]);
    await store.close();
  });
});
