// The crawl loop on its own (loop.ts): an in-memory frontier and a scripted pipeline
// (loop-fixture.ts), steps held and let go by the test, conditions awaited on what they recorded;
// the loop's timers on node:test's fake clock where time matters (a wake time, a stop's grace).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it, type TestContext } from 'node:test';
import type { StoredDocument } from '../model/index.ts';
import { PUT_BACK } from './frontier/frontier.ts';
import { CrawlLoop, STOP_GRACE_MS } from './loop.ts';
import { Changes, item, MemoryFrontier, response, ScriptedPipeline, stored } from './loop-fixture.ts';
import { StatsRecorder } from './stats.ts';
import type { CrawlerEvents } from './types.ts';

/** A loop over `paths` with `concurrency`, and what it told. */
function setup(paths: readonly string[], concurrency = 2) {
  const changes = new Changes();
  const frontier = new MemoryFrontier(
    changes,
    paths.map((p) => item(p)),
  );
  const pipeline = new ScriptedPipeline(changes);
  const emitter = new EventEmitter<CrawlerEvents>();
  const told = { documents: [] as number[], removed: [] as number[], fetches: [] as string[], anchors: [] as string[][] };
  emitter.on('document', (doc: StoredDocument) => told.documents.push(doc.id));
  emitter.on('removed', (id) => told.removed.push(id));
  emitter.on('fetch', (e) => told.fetches.push(new URL(e.url).pathname));
  emitter.on('anchors', (targets) => told.anchors.push(targets));
  const indexed = { put: [] as number[], removed: [] as number[] };
  const index = {
    sequenceOf: () => undefined,
    put: (doc: StoredDocument) => void indexed.put.push(doc.id),
    remove: (id: number) => void indexed.removed.push(id),
  };
  const loop = new CrawlLoop({
    frontier,
    pipeline,
    index,
    emitter,
    stats: new StatsRecorder(() => 0),
    concurrency,
    now: () => Date.now(),
    robotsLoaded: async () => undefined,
  });
  return { loop, frontier, pipeline, changes, told, indexed, until: (cond: () => boolean) => changes.until(cond) };
}

describe('the crawl loop', () => {
  it('keeps at most `concurrency` requests in flight, and as many URLs again waiting to be judged', async () => {
    const t = setup(
      Array.from({ length: 10 }, (_, i) => `/${i}`),
      2,
    );
    t.pipeline.immediate = { fetch: false, judge: false };
    const done = t.loop.run();
    await t.until(() => t.pipeline.fetches.length === 2);
    assert.equal(t.frontier.nextCalls, 2, 'no room for a third: the frontier is not asked');
    assert.equal(t.loop.fetching, 2);
    // A request ends while its page waits for judgement: the connection goes to the next URL.
    t.pipeline.fetches[0]!.resolve(response());
    await t.until(() => t.pipeline.fetches.length === 3);
    assert.deepEqual([t.pipeline.judgements.length, t.loop.fetching], [1, 2]);
    t.pipeline.fetches[1]!.resolve(response());
    await t.until(() => t.pipeline.fetches.length === 4);
    t.pipeline.fetches[2]!.resolve(response());
    t.pipeline.fetches[3]!.resolve(response());
    await t.until(() => t.pipeline.judgements.length === 4);
    assert.equal(t.loop.fetching, 0, 'every connection free');
    assert.deepEqual([t.pipeline.fetches.length, t.frontier.nextCalls], [4, 4], 'twice `concurrency` URLs in the pipeline: none more taken');
    // Everything else settles at once.
    t.pipeline.immediate = { fetch: true, judge: true };
    for (const j of t.pipeline.judgements) j.resolve(stored(j.item, response()));
    assert.deepEqual(await done, { reason: 'exhausted' });
    assert.equal(t.frontier.settledItems.length, 10);
    assert.equal(t.frontier.stopped, 1, 'the frontier is stopped when the crawl is done');
  });

  it("writes each URL's end through the frontier, then tells the index and the listeners", async () => {
    const t = setup(['/page', '/gone']);
    t.frontier.results = (q) => (q.url.endsWith('/gone') ? { removed: 9 } : {});
    assert.deepEqual(await t.loop.run(), { reason: 'exhausted' });
    const [page, gone] = t.frontier.handedOut;
    assert.deepEqual(
      t.frontier.requests.map((r) => r.item.id),
      [page!.id, gone!.id],
      'each request told to the frontier',
    );
    assert.deepEqual(
      t.frontier.finished.map((f) => f.item.id),
      [page!.id, gone!.id],
      'one commit each',
    );
    assert.deepEqual(
      [t.indexed.put, t.told.documents],
      [
        [page!.id, gone!.id],
        [page!.id, gone!.id],
      ],
      'stored pages indexed and told',
    );
    assert.deepEqual([t.indexed.removed, t.told.removed], [[gone!.id], [gone!.id]], 'a page that left the store leaves the index');
    assert.deepEqual(t.told.fetches, ['/page', '/gone']);
    assert.deepEqual(t.told.anchors, [['http://a.org/linked'], ['http://a.org/linked']]);
    assert.equal(t.pipeline.committed_.length, 2, 'the pipeline learns what each came to');
  });

  it('decides again as a duplicate when the store had the content already (contentSeen), and writes that', async () => {
    const t = setup(['/copy']);
    const seen = { id: 77, url: 'http://a.org/original' };
    t.frontier.results = (_, __, n) => (n === 1 ? { contentSeen: seen } : {});
    await t.loop.run();
    const [copy] = t.frontier.handedOut;
    assert.equal(t.pipeline.duplicates.length, 1);
    assert.deepEqual(t.pipeline.duplicates[0]!.seen, seen);
    assert.deepEqual(
      t.frontier.finished.map((f) => ('putBack' in f.end ? 'put back' : f.end.commit.outcome.kind)),
      ['indexed', 'excluded'],
    );
    assert.deepEqual([t.indexed.put, t.told.documents], [[], []], 'nothing stored, nothing indexed');
    assert.equal(t.frontier.finished[1]!.item.id, copy!.id);
  });

  it('writes a URL robots.txt disallows without fetching it: no connection, no fetch event', async () => {
    const t = setup([]);
    t.frontier.add(item('/private', { disallowed: true }));
    t.frontier.results = () => ({ removed: 4 });
    await t.loop.run();
    assert.deepEqual([t.pipeline.fetches.length, t.frontier.requests.length, t.told.fetches.length], [0, 0, 0]);
    assert.deepEqual(
      t.frontier.finished.map((f) => ('putBack' in f.end ? 'put back' : f.end.commit.outcome)),
      [{ kind: 'excluded', reason: 'robots.txt disallows it' }],
    );
    assert.deepEqual(t.indexed.removed, [t.frontier.handedOut[0]!.id], 'a page Trawl held leaves the index');
  });

  it('records a URL whose judgement threw through the same commit, and goes on with the others', async () => {
    const t = setup(['/a', '/broken', '/c']);
    t.pipeline.throwsFor.add('http://a.org/broken');
    assert.deepEqual(await t.loop.run(), { reason: 'exhausted' });
    assert.equal(t.pipeline.failures.length, 1);
    assert.deepEqual(t.frontier.finished.map((f) => [new URL(f.item.url).pathname, 'putBack' in f.end ? 'put back' : f.end.commit.outcome.kind]).sort(), [
      ['/a', 'indexed'],
      ['/broken', 'dead'],
      ['/c', 'indexed'],
    ]);
    assert.deepEqual(t.told.fetches.sort(), ['/a', '/broken', '/c'], 'its fetch is told too');
  });

  it('does not end when work arrives while the frontier looks: the next pass decides', async () => {
    const t = setup(['/1']);
    t.frontier.beforeDone = () => {
      t.frontier.beforeDone = undefined;
      t.frontier.add(item('/late'));
      t.loop.wake();
    };
    assert.deepEqual(await t.loop.run(), { reason: 'exhausted' });
    assert.deepEqual(t.told.fetches, ['/1', '/late']);
  });

  it('handles an archive capture through the same decision and commit (ingest)', async () => {
    const t = setup([]);
    const q = await t.frontier.claim({ url: 'http://a.org/captured', depth: 0 });
    assert.equal(await t.loop.ingest(q, response()), 'indexed');
    assert.deepEqual([t.frontier.finished.length, t.indexed.put, t.frontier.syncs], [1, [q.id], 1], 'alone in the pipeline: made durable at once');
  });

  it('pauses: no new request until resumed, and the crawl does not end meanwhile', async () => {
    const t = setup(['/1', '/2', '/3'], 1);
    t.pipeline.immediate = { fetch: false, judge: true };
    const done = t.loop.run();
    await t.until(() => t.pipeline.fetches.length === 1);
    t.loop.pause();
    t.pipeline.fetches[0]!.resolve(response());
    await t.until(() => t.frontier.settledItems.length === 1);
    assert.equal(t.pipeline.fetches.length, 1, 'paused: nothing taken');
    assert.equal(t.loop.running, true);
    t.pipeline.immediate = { fetch: true, judge: true };
    t.loop.resume();
    assert.deepEqual(await done, { reason: 'exhausted' });
    assert.equal(t.pipeline.fetches.length, 3);
  });

  describe('on a fake clock', () => {
    /** Moves the fake clock a millisecond at a time, letting what is due run, until `cond`; returns the time then. */
    async function advanceUntil(c: TestContext, cond: () => boolean): Promise<number> {
      for (;;) {
        await new Promise((resolve) => setImmediate(resolve));
        if (cond()) return Date.now();
        c.mock.timers.tick(1);
      }
    }

    it("sleeps until the frontier's wake time, then takes; ends with the frontier's reason", async (c) => {
      c.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 50_000 });
      const t = setup(['/1']);
      t.frontier.hold = true;
      t.frontier.wakeAt = 51_000;
      t.frontier.reason = 'limit';
      const done = t.loop.run();
      const askedAgain = await advanceUntil(c, () => t.frontier.nextCalls > 1);
      assert.equal(askedAgain, 51_000, 'asked again at the time it named, not before');
      t.frontier.hold = false;
      let ended = false;
      void done.then(() => (ended = true));
      await advanceUntil(c, () => ended);
      assert.deepEqual(await done, { reason: 'limit' });
      assert.deepEqual(t.told.fetches, ['/1']);
    });

    it('stops: a request in flight past STOP_GRACE_MS is aborted and its URL put back through the frontier', async (c) => {
      c.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 50_000 });
      const t = setup(['/slow', '/fast']);
      t.pipeline.immediate = { fetch: false, judge: true };
      const done = t.loop.run();
      await t.until(() => t.pipeline.fetches.length === 2);
      t.pipeline.fetches[1]!.resolve(response());
      await t.until(() => t.frontier.settledItems.length === 1);
      let stopped = false;
      void t.loop.stop().then(() => (stopped = true));
      const at = await advanceUntil(c, () => stopped);
      assert.equal(at, 50_000 + STOP_GRACE_MS, 'the request in flight was given its grace, then aborted');
      assert.deepEqual(await done, { reason: 'stopped' });
      const slow = t.frontier.finished.find((f) => f.item.url.endsWith('/slow'))!;
      assert.equal(slow.end, PUT_BACK);
      assert.deepEqual(t.told.fetches, ['/fast'], 'no fetch told of the URL put back');
      assert.equal(t.frontier.stopped, 1);
    });

    it('stops at once when nothing is in flight', async (c) => {
      c.mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 50_000 });
      const t = setup(['/1']);
      t.frontier.hold = true;
      const done = t.loop.run();
      await t.until(() => t.frontier.nextCalls === 1);
      await t.loop.stop();
      assert.deepEqual(await done, { reason: 'stopped' });
      assert.equal(Date.now(), 50_000, 'no time passed');
    });
  });
});
