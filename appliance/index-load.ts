/**
 * The index at start: the last flush, loaded, and the changes made after it replayed from the
 * store's change log; or, when there is no usable flush, rebuilt from the stored documents. The
 * store holds every page, so any damage to the index's files (a truncated file, a checksum that
 * does not match, a format or a stemming it cannot read) costs a logged rebuild, never a refusal
 * to start. So does a flush that cannot be brought up to date from this store's log: made from
 * another store (index-origin.ts), holding changes this store never made, or older than what the
 * log still keeps (other readers let it be pruned while this one was away: store/changes.ts) —
 * or holding another share of the documents than this node serves (cluster.shard).
 */
import { loadIndex, SearchIndex, type Manifest } from '../indexer/index.ts';
import type { Store } from '../store/index.ts';
import type { Log } from '../lib/log.ts';
import { IndexFeed } from './index-feed.ts';
import { newReader, readOrigin, type IndexOrigin } from './index-origin.ts';
import type { ShardFilter } from './shard-filter.ts';

/** An empty index over the store's documents and token sequences. */
export function newIndex(store: Store, stemming: string): SearchIndex {
  const index = new SearchIndex(
    (id, textChars) => store.documents.get(id, textChars),
    undefined,
    {},
    (ids) => store.documents.sequencesOf(ids, stemming),
  );
  // (The pages the console pins and hides, by URL: the store's ids are the index's.)
  index.idsOf = (urls) => store.urls.idsOf(urls);
  return index;
}

export type LoadOptions = {
  /**
   * This index holds the change log as a reader (it flushes, so the log may be pruned behind it):
   * from the sequence it starts at, before anything is replayed.
   */
  readonly holdLog?: boolean;
  readonly now?: () => number;
  /** The shard of the documents this index holds (cluster.shard); undefined: every document. */
  readonly shard?: ShardFilter;
};

export type Loaded = { index: SearchIndex; feed: IndexFeed; flushed: Manifest | undefined; origin: IndexOrigin };

export async function loadOrRebuild(indexDir: string, store: Store, stemming: string, log: Log, options: LoadOptions = {}): Promise<Loaded> {
  const started = performance.now();
  const now = options.now ?? Date.now;
  const recorded = readOrigin(indexDir);
  const origin: IndexOrigin = { store: await store.changes.identity(), reader: recorded?.reader ?? newReader() };
  // How far the log is pruned, once this reader holds it from `seq` (a reader that does not hold it only reads).
  const prunedFor = (seq: number) => (options.holdLog ? store.changes.hold(origin.reader, seq, now()) : store.changes.prunedThrough());
  let index = newIndex(store, stemming);
  let manifest: Manifest | undefined;
  try {
    manifest = loadIndex(indexDir, index);
  } catch (e) {
    log.warn(`index in ${indexDir} cannot be read (${(e as Error).message}); rebuilding it from the crawl database`);
    // (A load that failed half-way may have filled the index: start from an empty one.)
    index = newIndex(store, stemming);
    manifest = undefined;
  }
  if (manifest) {
    const unusable = otherShard(manifest, options.shard) ?? (await whyNotReplayable(manifest, recorded, origin, store, prunedFor));
    if (unusable) {
      log.warn(`index in ${indexDir} ${unusable}; rebuilding it from the crawl database`);
      index = newIndex(store, stemming);
      manifest = undefined;
    }
  }
  const feed = new IndexFeed(index, store, stemming, log, options.shard);
  if (manifest) {
    // SimHashes are not in the flush: the store has each document's (near-duplicates fold by them).
    for await (const [id, fingerprint] of store.documents.simhashes()) if (index.stats.has(id)) index.simhashes.set(id, fingerprint);
    // Only the last change of each document matters: it says what the document is now.
    const last = new Map<number, number>();
    for (const c of await store.changes.since(manifest.lastSeq)) last.set(c.docId, c.seq);
    await feed.refreshMany([...last]);
    feed.caughtUp(manifest.lastSeq);
    if (last.size) log.info(`index: replayed ${last.size} changes made after the last flush`);
  } else {
    const upTo = await rebuildPoint(store, prunedFor);
    // (A shard reads every document and keeps its own: the store cannot tell them apart by URL hash.)
    for await (const doc of store.documents.all())
      if (!options.shard || options.shard.admits(doc)) index.upsert(doc, undefined, await store.anchors.of(doc.id));
    feed.caughtUp(upTo);
  }
  const ms = Math.round(performance.now() - started);
  if (index.documentCount) log.info(`index: ${index.documentCount} documents loaded in ${ms} ms`);
  return { index, feed, flushed: manifest, origin };
}

/** Why a flush holds the wrong documents for this node: another shard of them, or all (undefined: the right ones). */
function otherShard(manifest: Manifest, shard: ShardFilter | undefined): string | undefined {
  if ((manifest.shard ?? '') === (shard?.text ?? '')) return undefined;
  const share = (s: string | undefined) => (s ? `shard ${s} of the documents` : 'every document');
  return `holds ${share(manifest.shard)}, but this node serves ${share(shard?.text)} (cluster.shard)`;
}

/** Why a flush cannot be brought up to date from this store's change log (undefined: it can). */
async function whyNotReplayable(
  manifest: Manifest,
  recorded: IndexOrigin | undefined,
  origin: IndexOrigin,
  store: Store,
  prunedFor: (seq: number) => Promise<number>,
): Promise<string | undefined> {
  // (No origin recorded: a flush from before origins were kept, beside its own SQLite store.)
  if (recorded && recorded.store !== origin.store) return `was built from another store (${recorded.store}, not ${origin.store})`;
  const last = await store.changes.lastSeq();
  if (manifest.lastSeq > last) return `holds changes up to ${manifest.lastSeq}, which this store never made (its log ends at ${last})`;
  const pruned = await prunedFor(manifest.lastSeq);
  if (pruned > manifest.lastSeq) return `holds changes up to ${manifest.lastSeq}, but the change log was pruned through ${pruned} meanwhile`;
  return undefined;
}

/**
 * The change a rebuild starts from: every document read after it holds at least what the log says
 * up to it. The reader holds the log from there first; a prune that slipped in between takes
 * another look (the log only grows).
 */
async function rebuildPoint(store: Store, prunedFor: (seq: number) => Promise<number>): Promise<number> {
  for (;;) {
    const upTo = await store.changes.lastSeq();
    if ((await prunedFor(upTo)) <= upTo) return upTo;
  }
}
