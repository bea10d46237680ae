import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDb } from '../../store/sqlite/db.ts';
import { Frontier } from './frontier.ts';

const freshDb = () => openDb(join(mkdtempSync(join(tmpdir(), 'trawl-frontier-')), 'crawl.db'));

describe('Frontier', () => {
  it('queues a URL once in its life (the seen-set)', () => {
    const f = new Frontier(freshDb());
    assert.equal(f.enqueue('http://a.org/1', 0), true);
    assert.equal(f.enqueue('http://a.org/1', 3), false);
    const q = f.next('a.org')!;
    f.finish(q.id, { kind: 'indexed', status: 200 });
    assert.equal(f.enqueue('http://a.org/1', 0), false, 'a fetched URL is still seen');
    assert.equal(f.counts().queued, 0);
    assert.equal(f.counts().indexed, 1);
    assert.equal(f.pagesFetched(), 1);
  });

  it('serves each host breadth-first: lowest depth first, then oldest', () => {
    const f = new Frontier(freshDb());
    f.enqueueMany([
      { url: 'http://a.org/deep', depth: 2 },
      { url: 'http://a.org/first', depth: 1 },
      { url: 'http://b.org/other', depth: 0 },
      { url: 'http://a.org/second', depth: 1 },
      { url: 'http://a.org/root', depth: 0 },
    ]);
    const order: string[] = [];
    for (let q = f.next('a.org'); q; q = f.next('a.org')) order.push(q.url);
    assert.deepEqual(order, ['http://a.org/root', 'http://a.org/first', 'http://a.org/second', 'http://a.org/deep']);
    assert.deepEqual(f.hostsWithWork(), ['b.org']);
  });

  it('puts in-flight URLs back, and recovers them after a crash', () => {
    const db = freshDb();
    const f = new Frontier(db);
    f.enqueueMany([{ url: 'http://a.org/1', depth: 0 }, { url: 'http://a.org/2', depth: 0 }]);
    const one = f.next('a.org')!;
    f.putBack(one.id);
    assert.equal(f.next('a.org')!.url, 'http://a.org/1', 'put back at its place in the queue');
    f.next('a.org');
    assert.equal(f.counts().fetching, 2);
    // A new process on the same database: both in-flight rows come back.
    const after = new Frontier(db);
    assert.equal(after.counts().fetching, 2, 'counters are rebuilt from the database');
    assert.equal(after.recoverInFlight(), 2);
    assert.equal(after.counts().queued, 2);
  });

  it('brings a failed URL back when its next attempt is due, keeping its attempt count', () => {
    let now = 1000;
    const f = new Frontier(freshDb(), () => now);
    f.enqueue('http://a.org/x', 0);
    const a = f.next('a.org')!;
    assert.equal(a.attempts, 1);
    f.finish(a.id, { kind: 'failed', status: 503, error: 'http-5xx', reason: 'HTTP 503', retryAt: 5000 });
    const r = f.record('http://a.org/x')!;
    assert.deepEqual([r.state, r.error, r.attempts, r.nextAttemptAt], ['failed', 'http-5xx', 1, 5000]);
    assert.equal(f.nextRetryAt(), 5000);
    assert.equal(f.next('a.org'), undefined, 'not due yet');
    assert.deepEqual(f.hostsWithDueRetries(), []);
    now = 5000;
    assert.deepEqual(f.hostsWithDueRetries(), ['a.org']);
    const again = f.next('a.org')!;
    assert.equal(again.attempts, 2);
    f.finish(again.id, { kind: 'indexed', status: 200 });
    assert.equal(f.nextRetryAt(), undefined);
    assert.deepEqual(f.counts().failed, 0);
  });

  it('records outcomes with their reasons, errors and what the fetch learned', () => {
    let now = 10;
    const f = new Frontier(freshDb(), () => now);
    f.enqueue('http://a.org/gone', 0);
    f.finish(f.next('a.org')!.id, { kind: 'dead', status: 404, error: 'http-4xx', reason: 'HTTP 404' });
    const r = f.record('http://a.org/gone')!;
    assert.deepEqual([r.state, r.httpStatus, r.reason, r.error], ['dead', 404, 'HTTP 404', 'http-4xx']);
    assert.equal(f.record('http://a.org/never'), undefined);

    f.enqueue('http://a.org/page', 0);
    const meta = { contentType: 'text/html', charset: 'utf-8', lang: 'en', size: 1234, hash: 'h1', etag: '"v1"', lastModified: 'Sat, 01 Jan 2026 00:00:00 GMT' };
    f.finish(f.next('a.org')!.id, { kind: 'indexed', status: 200, meta });
    const p = f.record('http://a.org/page')!;
    assert.deepEqual(
      [p.contentType, p.charset, p.lang, p.size, p.hash, p.etag, p.lastModified, p.changedAt, p.fetchedAt],
      ['text/html', 'utf-8', 'en', 1234, 'h1', '"v1"', 'Sat, 01 Jan 2026 00:00:00 GMT', 10, 10],
    );
  });

  it('marks a given-up host\'s queued and failed URLs dead', () => {
    const f = new Frontier(freshDb());
    f.enqueueMany([{ url: 'http://a.org/1', depth: 0 }, { url: 'http://a.org/2', depth: 0 }, { url: 'http://b.org/1', depth: 0 }]);
    f.finish(f.next('a.org')!.id, { kind: 'failed', error: 'timeout', reason: 'timeout', retryAt: 0 });
    assert.equal(f.killHost('a.org', 'host-suspended', 'suspended 3 times'), 2);
    assert.deepEqual([f.counts().dead, f.counts().failed, f.counts().queued], [2, 0, 1]);
    assert.equal(f.record('http://a.org/2')?.error, 'host-suspended');
  });

  it('counts rejection reasons', () => {
    const f = new Frontier(freshDb());
    f.enqueueMany([], new Map([['out-of-scope', 3]]));
    f.countRejection('out-of-scope');
    f.countRejection('robots');
    f.enqueueMany([{ url: 'http://a.org/1', depth: 0 }, { url: 'http://a.org/1', depth: 1 }, { url: 'http://a.org/2', depth: 1 }]);
    assert.deepEqual(f.rejections(), [{ reason: 'out-of-scope', count: 4 }, { reason: 'already-seen', count: 1 }, { reason: 'robots', count: 1 }]);
  });
});

describe('Frontier group commit', () => {
  const setup = () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-frontier-'));
    const db = openDb(join(dir, 'crawl.db'));
    // Another connection sees only what is committed (as a process after a crash would).
    const other = openDb(join(dir, 'crawl.db'));
    const committed = () => (other.prepare('SELECT count(*) AS n FROM urls').get() as { n: number }).n;
    return { f: new Frontier(db), db, other, committed };
  };

  it('shares one transaction between the pages of a group, committed by commit()', () => {
    const { f, db, other, committed } = setup();
    f.inGroup(() => f.enqueue('http://a.org/1', 0));
    f.inGroup(() => f.enqueue('http://a.org/2', 0));
    assert.equal(committed(), 0, 'not committed yet');
    f.commit();
    assert.equal(committed(), 2);
    f.commit(); // nothing open: nothing happens
    db.close();
    other.close();
  });

  it('commits on its own within GROUP_COMMIT_MS', async () => {
    const { f, db, other, committed } = setup();
    f.inGroup(() => f.enqueue('http://a.org/1', 0));
    await new Promise((r) => setTimeout(r, 150));
    assert.equal(committed(), 1);
    db.close();
    other.close();
  });

  it('rolls back only the page that failed', () => {
    const { f, db, other, committed } = setup();
    f.inGroup(() => f.enqueue('http://a.org/ok', 0));
    assert.throws(() =>
      f.inGroup(() => {
        f.enqueue('http://a.org/broken', 0);
        throw new Error('page failed');
      }),
    );
    f.commit();
    assert.equal(committed(), 1);
    assert.equal(f.idOf('http://a.org/broken'), undefined);
    db.close();
    other.close();
  });

  describe('revisits', () => {
    const pick = { fresh: true, revisitsDueBy: Number.MAX_SAFE_INTEGER };
    const setup = () => {
      let t = 1_000_000;
      const clock = { now: () => t, at: (x: number) => (t = x) };
      const f = new Frontier(freshDb(), clock.now);
      return { f, clock };
    };
    const fetchOnce = (f: Frontier, url: string, revisitAt: number) => {
      f.enqueue(url, 0);
      const q = f.next(new URL(url).host)!;
      assert.equal(q.url, url);
      f.finish(q.id, { kind: 'indexed', status: 200 }, { at: revisitAt, intervalMs: 500 });
      return q.id;
    };

    it('hands out a page when its revisit is due, not before, and only when asked for revisits', () => {
      const { f, clock } = setup();
      fetchOnce(f, 'http://a.org/p', 2_000_000);
      assert.equal(f.next('a.org', { fresh: true, revisitsDueBy: clock.now() }), undefined, 'not due yet');
      assert.equal(f.nextRevisitAt(), 2_000_000);
      clock.at(2_000_000);
      assert.equal(f.dueRevisits(), 1);
      assert.deepEqual(f.hostsWithDueRevisits(), ['a.org']);
      assert.equal(f.next('a.org'), undefined, 'a pass over named pages leaves due ones alone');
      assert.equal(f.next('a.org', { fresh: true, revisitsDueBy: 1_999_999 }), undefined, 'not due by the given time');
      const q = f.next('a.org', { fresh: true, revisitsDueBy: 2_000_000 })!;
      assert.equal(q.url, 'http://a.org/p');
      assert.equal(q.revisit, true);
      assert.equal(q.revisitMs, 500);
      assert.equal(f.counts().fetching, 1);
      assert.equal(f.counts().indexed, 0);
      assert.equal(f.dueRevisits(), 0, 'in flight: no longer due');
      f.finish(q.id, { kind: 'not-modified', status: 304 }, { at: 3_000_000, intervalMs: 1000 });
      assert.equal(f.record('http://a.org/p')!.revisitAt, 3_000_000);
      assert.equal(f.record('http://a.org/p')!.revisitMs, 1000);
    });

    it('takes every other turn from new URLs while a host has both', () => {
      const { f, clock } = setup();
      fetchOnce(f, 'http://a.org/old1', 1_500_000);
      fetchOnce(f, 'http://a.org/old2', 1_500_001);
      f.enqueueMany(['n1', 'n2', 'n3'].map((n) => ({ url: `http://a.org/${n}`, depth: 1 })));
      clock.at(2_000_000);
      const order: string[] = [];
      for (let q = f.next('a.org', pick); q; q = f.next('a.org', pick)) order.push(new URL(q.url).pathname);
      assert.deepEqual(order, ['/n1', '/old1', '/n2', '/old2', '/n3']);
    });

    it('goes on with revisits only once new URLs are not wanted (limits.maxPages reached)', () => {
      const { f, clock } = setup();
      fetchOnce(f, 'http://a.org/old', 1_500_000);
      f.enqueue('http://a.org/new', 1);
      clock.at(2_000_000);
      assert.equal(f.next('a.org', { fresh: false, revisitsDueBy: 2_000_000 })!.url, 'http://a.org/old');
      assert.equal(f.next('a.org', { fresh: false, revisitsDueBy: 2_000_000 }), undefined);
    });

    it('makes a page due when a sitemap dates it after its last fetch', () => {
      const { f, clock } = setup();
      fetchOnce(f, 'http://a.org/p', 9_000_000);
      clock.at(2_000_000);
      f.enqueue('http://a.org/p', 0, 0, undefined, new Date(500_000).toISOString());
      assert.equal(f.dueRevisits(), 0, 'an older <lastmod> changes nothing');
      f.enqueue('http://a.org/p', 0, 0, undefined, new Date(1_500_000).toISOString());
      assert.equal(f.record('http://a.org/p')!.revisitAt, 1_500_000, 'due since the sitemap says it changed');
      assert.equal(f.next('a.org', pick)!.url, 'http://a.org/p');
    });

    it('schedules no revisit for a URL waiting for a retry, queued again by hand, or removed', () => {
      const { f, clock } = setup();
      const id = fetchOnce(f, 'http://a.org/p', 1_500_000);
      fetchOnce(f, 'http://a.org/q', 1_500_000);
      fetchOnce(f, 'http://a.org/r', 1_500_000);
      clock.at(2_000_000);
      const q = f.next('a.org', pick)!;
      assert.equal(q.id, id);
      f.finish(q.id, { kind: 'failed', status: 503, error: 'http-5xx', reason: 'HTTP 503', retryAt: 2_100_000 }, { at: 2_000_500, intervalMs: 500 });
      assert.equal(f.record('http://a.org/p')!.revisitAt, null);
      f.requeue({ url: 'http://a.org/q' });
      assert.equal(f.record('http://a.org/q')!.revisitAt, null);
      f.exclude({ url: 'http://a.org/r' });
      assert.equal(f.record('http://a.org/r')!.revisitAt, null);
      assert.equal(f.dueRevisits(), 0);
      assert.equal(f.nextRevisitAt(), undefined);
    });
  });
});
