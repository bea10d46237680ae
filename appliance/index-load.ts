/**
 * The index at start: the last flush, loaded, and the changes made after it replayed from the
 * store's change log; or, when there is no usable flush, rebuilt from the stored documents. The
 * store holds every page, so any damage to the index's files (a truncated file, a checksum that
 * does not match, a format or a stemming it cannot read) costs a logged rebuild, never a refusal
 * to start.
 */
import { loadIndex, SearchIndex, type Manifest } from '../indexer/index.ts';
import type { Store } from '../store/index.ts';
import type { Log } from '../lib/log.ts';
import { IndexFeed } from './index-feed.ts';

/** An empty index over the store's documents and token sequences. */
export function newIndex(store: Store, stemming: string): SearchIndex {
  return new SearchIndex(
    (id) => store.documents.get(id),
    undefined,
    {},
    (ids) => store.documents.sequencesOf(ids, stemming),
  );
}

export async function loadOrRebuild(indexDir: string, store: Store, stemming: string, log: Log): Promise<{ index: SearchIndex; feed: IndexFeed; flushed: Manifest | undefined }> {
  const started = performance.now();
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
  const feed = new IndexFeed(index, store, stemming, log);
  if (manifest) {
    // SimHashes are not in the flush: the store has each document's (near-duplicates fold by them).
    for await (const [id, fingerprint] of store.documents.simhashes()) if (index.stats.has(id)) index.simhashes.set(id, fingerprint);
    // Only the last change of each document matters: it says what the document is now.
    const last = new Map<number, number>();
    for (const c of await store.changes.since(manifest.lastSeq)) last.set(c.docId, c.seq);
    for (const [id, seq] of last) await feed.refresh(id, seq);
    feed.caughtUp(manifest.lastSeq);
    if (last.size) log.info(`index: replayed ${last.size} changes made after the last flush`);
  } else {
    const upTo = await store.changes.lastSeq();
    for await (const doc of store.documents.all()) index.upsert(doc, undefined, await store.anchors.of(doc.id));
    feed.caughtUp(upTo);
  }
  const ms = Math.round(performance.now() - started);
  if (index.documentCount) log.info(`index: ${index.documentCount} documents loaded in ${ms} ms`);
  return { index, feed, flushed: manifest };
}
