// The index feed (index-feed.ts) over a real SQLite store in a temp dir and a real SearchIndex: every
// change to the stored documents reaches the index through it, and it knows how far the index holds
// them all — what a flush may claim. Its slices run on a clock the test moves, so that "the slice is
// spent" is said, not waited for.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analysisTag, flushIndex } from '../indexer/index.ts';
import { holds, parseShard } from '../lib/shard.ts';
import { logTo } from '../lib/log.ts';
import { Slices } from '../lib/slices.ts';
import type { StoredDocument } from '../model/index.ts';
import { doc, taken } from '../store/contract/harness.ts';
import { openSqliteStore, type SqliteStore } from '../store/sqlite/index.ts';
import { IndexFeed, MAIN_SLICE_MS } from './index-feed.ts';
import { loadOrRebuild, newIndex } from './index-load.ts';
import { ShardFilter } from './shard-filter.ts';

const STEMMING = analysisTag();

/** A store, an empty index over it, and its feed, whose slices run on `clock.now`; what it logged. */
function setup(options: { shard?: string } = {}) {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-feed-'));
  const store = openSqliteStore(dir);
  const index = newIndex(store, STEMMING);
  const clock = { now: 0 };
  const slices = new Slices(MAIN_SLICE_MS, () => clock.now);
  const logs: string[] = [];
  const feed = new IndexFeed(
    index,
    store,
    STEMMING,
    logTo((m) => logs.push(m)),
    options.shard ? ShardFilter.of(options.shard) : undefined,
    slices,
  );
  /** Documents with `word`, as a search finds them. */
  const found = async (word: string) => (await index.search(word, { exact: true })).hits.map((h) => h.url);
  return { dir, store, index, feed, clock, slices, logs, found };
}

/** Stores a page at `url` with `text` as the crawler's commit would (its URL record, then the document); returns it and its change. */
async function stored(store: SqliteStore, url: string, text: string): Promise<{ doc: StoredDocument; seq: number }> {
  const record = (await store.urls.record(url)) ?? (await taken(store, url));
  const d = doc(record.id, text, { url, title: `Page ${url.slice(url.lastIndexOf('/') + 1)}` });
  return { doc: d, seq: await store.documents.put(d) };
}

/** One turn of the event loop: the slices let one waiting caller go on each. */
const nextTurn = () => new Promise((r) => setImmediate(r));

describe('the index feed: how far the index holds every change', () => {
  it('lets a flush claim no change past one not in the index yet, when a later change gets there first', async () => {
    const { store, index, feed, clock } = setup();
    try {
      const a = await stored(store, 'http://e.org/a', 'alpha');
      await feed.put(a.doc, undefined, a.seq);
      assert.equal(feed.through, a.seq);
      const b = await stored(store, 'http://e.org/b', 'bravo');
      const removal = (await store.documents.remove(a.doc.id))!;
      // The slice is spent: b's add waits for a later turn, while the removal (no turn to wait for) goes in at once.
      clock.now += MAIN_SLICE_MS;
      const adding = feed.put(b.doc, undefined, b.seq);
      await feed.remove(a.doc.id, removal);
      assert.deepEqual([index.stats.has(a.doc.id), index.stats.has(b.doc.id)], [false, false], 'the removal is in the index, the add not yet');
      assert.equal(feed.through, b.seq - 1, 'a flush claims nothing from the add on: a crash after it must not lose bravo');
      await adding;
      assert.equal(feed.through, removal, 'both in: every change is');
    } finally {
      await store.close();
    }
  });

  it('tells each change applied, in the order they reach the index', async () => {
    const { store, feed, clock } = setup();
    try {
      const applied: number[] = [];
      feed.on('applied', (seq) => applied.push(seq));
      const a = await stored(store, 'http://e.org/a', 'alpha');
      const b = await stored(store, 'http://e.org/b', 'bravo');
      clock.now += MAIN_SLICE_MS;
      const adding = feed.put(a.doc, undefined, a.seq);
      const gone = (await store.documents.remove(b.doc.id))!;
      await feed.remove(b.doc.id, gone);
      await adding;
      assert.deepEqual(applied, [gone, a.seq]);
    } finally {
      await store.close();
    }
  });

  it('on a change log followed (other processes write too), leaves it to the follower to say how far the index holds every change', async () => {
    const { store, feed } = setup();
    try {
      feed.follow();
      const a = await stored(store, 'http://e.org/a', 'alpha');
      await feed.put(a.doc, undefined, a.seq);
      assert.equal(feed.through, 0, "a change applied here says nothing of the others' before it");
      assert.equal(feed.appliedHere(a.seq), true, 'the follower skips it');
      feed.caughtUp(a.seq);
      assert.equal(feed.through, a.seq);
      assert.equal(feed.appliedHere(a.seq), false, 'forgotten once the follower is past it');
    } finally {
      await store.close();
    }
  });
});

describe('the index feed: pages stored and removed', () => {
  it('takes a removed page out of the index (the crawler’s removal or an admin’s), and a replaced page’s old words with it', async () => {
    const { store, index, feed, found } = setup();
    try {
      const a = await stored(store, 'http://e.org/a', 'alpha common');
      const b = await stored(store, 'http://e.org/b', 'bravo common');
      await feed.put(a.doc, undefined, a.seq);
      await feed.put(b.doc, undefined, b.seq);
      assert.deepEqual((await found('common')).sort(), ['http://e.org/a', 'http://e.org/b']);
      const edited = await stored(store, 'http://e.org/a', 'altered common');
      await feed.put(edited.doc, undefined, edited.seq);
      assert.deepEqual(await found('alpha'), [], 'the old text is gone');
      assert.deepEqual(await found('altered'), ['http://e.org/a']);
      const gone = (await store.documents.remove(b.doc.id))!;
      await feed.remove(b.doc.id, gone);
      assert.deepEqual([index.documentCount, index.stats.has(b.doc.id)], [1, false], 'out of the index, not only of the answers');
      assert.deepEqual(await found('common'), ['http://e.org/a']);
      assert.equal(feed.through, gone);
    } finally {
      await store.close();
    }
  });

  it('on a shard, keeps only its own share: a page of another shard is not added, and is not read again when it changes', async () => {
    const { store, index, feed } = setup({ shard: '1/2' });
    try {
      const spec = parseShard('1/2');
      const urls = Array.from({ length: 20 }, (_, i) => `http://e.org/${i}`);
      const ours = urls.find((u) => holds(spec, u))!;
      const theirs = urls.find((u) => !holds(spec, u))!;
      const mine = await stored(store, ours, 'ourword');
      const other = await stored(store, theirs, 'theirword');
      await feed.put(mine.doc, undefined, mine.seq);
      await feed.put(other.doc, undefined, other.seq);
      assert.deepEqual([index.stats.has(mine.doc.id), index.stats.has(other.doc.id)], [true, false]);
      assert.equal(feed.through, other.seq, 'the other shard’s change counts as applied');
      const reads: number[] = [];
      const get = store.documents.get.bind(store.documents);
      store.documents.get = (id) => {
        reads.push(id);
        return get(id);
      };
      const again = await stored(store, theirs, 'theirword changed');
      await feed.refresh(other.doc.id, again.seq);
      assert.deepEqual(reads, [], 'known to be another shard’s: not read');
      assert.equal(feed.through, again.seq);
    } finally {
      await store.close();
    }
  });
});

describe('the index feed: anchor text found after a page was indexed', () => {
  it('refreshes the anchor field of the indexed pages that gained links, one refresh at a time', async () => {
    const { store, feed, found } = setup();
    try {
      const b = await stored(store, 'http://e.org/b', 'bravo');
      await feed.put(b.doc, undefined, b.seq);
      await taken(store, 'http://e.org/unfetched');
      // Page a, stored later, links to b and to a page not fetched (not indexed: nothing to refresh there).
      store.anchors.add('http://e.org/a', [
        { target: 'http://e.org/b', text: 'zanzibar cartography' },
        { target: 'http://e.org/unfetched', text: 'nowhere' },
      ]);
      feed.anchorsChanged(['http://e.org/b', 'http://e.org/unfetched']);
      assert.deepEqual(await found('zanzibar'), [], 'not before the refresh');
      const refreshing = feed.refreshAnchors();
      assert.equal(feed.refreshAnchors(), refreshing, 'a second call shares the refresh under way');
      assert.equal(feed.anchorRefresh, refreshing);
      assert.equal(await refreshing, 1, 'the indexed page only');
      assert.equal(feed.anchorRefresh, undefined);
      assert.deepEqual(await found('zanzibar'), ['http://e.org/b'], 'found by the words of the links to it');
      assert.equal(await feed.refreshAnchors(), 0, 'nothing stale any more');
    } finally {
      await store.close();
    }
  });
});

describe("the index feed in the main thread's slices", () => {
  it('adds each page on its turn: once the slice is spent, one a turn of the event loop, in the order they came', async () => {
    const { store, index, feed, clock, slices } = setup();
    try {
      const pages = [];
      for (const name of ['a', 'b', 'c']) pages.push(await stored(store, `http://e.org/${name}`, `${name} words`));
      await feed.put(pages[0]!.doc, undefined, pages[0]!.seq);
      assert.equal(index.documentCount, 1, 'within the slice: at once');
      clock.now += MAIN_SLICE_MS;
      const adds = pages.slice(1).map((p) => feed.put(p.doc, undefined, p.seq));
      assert.equal(slices.queued, 2, 'the others wait for their turns');
      const counts: number[] = [];
      for (let i = 0; i < 2; i++) {
        await nextTurn();
        counts.push(index.documentCount);
      }
      assert.deepEqual(counts, [2, 3], 'one add a turn: between two, the loop serves whatever arrived (a search)');
      await Promise.all(adds);
      assert.equal(feed.through, pages[2]!.seq);
    } finally {
      await store.close();
    }
  });
});

describe('the index feed at start, and when an add fails', () => {
  it('replays the changes made after the last flush, so that a crash loses no searchable page', async () => {
    const { dir, store, index, feed } = setup();
    try {
      const a = await stored(store, 'http://e.org/a', 'alpha');
      const b = await stored(store, 'http://e.org/b', 'bravo');
      await feed.put(a.doc, undefined, a.seq);
      await feed.put(b.doc, undefined, b.seq);
      const indexDir = join(dir, 'index');
      await flushIndex(indexDir, index, feed.through);
      // After the flush: a new page, an edit, a removal — all in the store, none in a flush. Then a crash.
      const c = await stored(store, 'http://e.org/c', 'charlie');
      await feed.put(c.doc, undefined, c.seq);
      await stored(store, 'http://e.org/b', 'bravissimo');
      await store.documents.remove(a.doc.id);
      const logs: string[] = [];
      const restarted = await loadOrRebuild(
        indexDir,
        store,
        STEMMING,
        logTo((m) => logs.push(m)),
      );
      assert.ok(
        logs.some((l) => /replayed 3 changes made after the last flush/.test(l)),
        logs.join('\n'),
      );
      const found = async (word: string) => (await restarted.index.search(word, { exact: true })).hits.map((h) => h.url);
      assert.deepEqual(
        [await found('alpha'), await found('bravo'), await found('bravissimo'), await found('charlie')],
        [[], [], ['http://e.org/b'], ['http://e.org/c']],
      );
      assert.deepEqual([restarted.index.documentCount, restarted.index.stats.has(a.doc.id)], [2, false], 'the removed page is out of the index');
      assert.equal(restarted.feed.through, await store.changes.lastSeq(), 'the index holds every change again');
    } finally {
      await store.close();
    }
  });

  it('logs an add that fails and goes on with the others; flushes claim nothing from it on, and a restart replays it', async () => {
    const { dir, store, index, feed, logs, found } = setup();
    try {
      const a = await stored(store, 'http://e.org/a', 'alpha');
      const b = await stored(store, 'http://e.org/b', 'bravo');
      const c = await stored(store, 'http://e.org/c', 'charlie');
      await feed.put(a.doc, undefined, a.seq);
      // (The document as a bug upstream could hand it, without its text: the index's add throws.)
      await feed.put({ ...b.doc, text: undefined as unknown as string }, undefined, b.seq);
      await feed.put(c.doc, undefined, c.seq);
      assert.equal(logs.length, 1, logs.join('\n'));
      assert.match(logs[0]!, new RegExp(`^index: change ${b.seq} \\(document\\) could not be applied; it is replayed at the next start: \\S`));
      assert.deepEqual([await found('alpha'), await found('charlie')], [['http://e.org/a'], ['http://e.org/c']], 'the failure cost that page alone');
      assert.equal(feed.through, b.seq - 1);
      const later = await stored(store, 'http://e.org/d', 'delta');
      await feed.put(later.doc, undefined, later.seq);
      assert.equal(feed.through, b.seq - 1, 'not even later: only a restart brings the page in');
      const indexDir = join(dir, 'index');
      await flushIndex(indexDir, index, feed.through);
      const restarted = await loadOrRebuild(
        indexDir,
        store,
        STEMMING,
        logTo(() => undefined),
      );
      assert.deepEqual(
        (await restarted.index.search('bravo', { exact: true })).hits.map((h) => h.url),
        ['http://e.org/b'],
        'replayed from the store',
      );
      assert.equal(restarted.feed.through, later.seq);
    } finally {
      await store.close();
    }
  });
});
