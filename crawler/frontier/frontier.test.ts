import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { openDb } from '../../store/db.ts';
import { Frontier } from './frontier.ts';

const freshDb = () => openDb(join(mkdtempSync(join(tmpdir(), 'trawl-frontier-')), 'crawl.db'));

describe('Frontier', () => {
  it('queues a URL once in its life (the seen-set)', () => {
    const f = new Frontier(freshDb());
    assert.equal(f.enqueue('http://a.org/1', 0), true);
    assert.equal(f.enqueue('http://a.org/1', 3), false);
    const q = f.next('a.org')!;
    f.finish(q.id, { kind: 'fetched', status: 200 });
    assert.equal(f.enqueue('http://a.org/1', 0), false, 'a fetched URL is still seen');
    assert.equal(f.counts().queued, 0);
    assert.equal(f.counts().fetched, 1);
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

  it('counts attempts: a retried URL keeps its attempt count', () => {
    const f = new Frontier(freshDb());
    f.enqueue('http://a.org/x', 0);
    const a = f.next('a.org')!;
    assert.equal(a.attempts, 1);
    f.requeue(a.id);
    assert.equal(f.next('a.org')!.attempts, 2);
  });

  it('records outcomes with their reasons', () => {
    const f = new Frontier(freshDb());
    f.enqueue('http://a.org/gone', 0);
    const q = f.next('a.org')!;
    f.finish(q.id, { kind: 'failed', status: 404, reason: 'HTTP 404' });
    const r = f.record('http://a.org/gone')!;
    assert.equal(r.state, 'failed');
    assert.equal(r.httpStatus, 404);
    assert.equal(r.reason, 'HTTP 404');
    assert.equal(f.record('http://a.org/never'), undefined);
  });

  it('marks a given-up host\'s queue failed', () => {
    const f = new Frontier(freshDb());
    f.enqueueMany([{ url: 'http://a.org/1', depth: 0 }, { url: 'http://a.org/2', depth: 0 }, { url: 'http://b.org/1', depth: 0 }]);
    assert.equal(f.failHost('a.org', 'robots.txt unavailable'), 2);
    assert.equal(f.counts().failed, 2);
    assert.equal(f.counts().queued, 1);
  });

  it('counts rejection reasons', () => {
    const f = new Frontier(freshDb());
    f.enqueueMany([], new Map([['out-of-scope', 3]]));
    f.countRejection('out-of-scope');
    f.countRejection('robots');
    assert.deepEqual(f.rejections(), [{ reason: 'out-of-scope', count: 4 }, { reason: 'robots', count: 1 }]);
  });
});
