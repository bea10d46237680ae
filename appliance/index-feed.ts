/**
 * The index as the store feeds it. Every change to the stored documents reaches the in-RAM index
 * through here — a page the crawler stored, one it removed, one an admin removed, and at start
 * the changes made after the last flush — and the feed knows up to which change the index holds
 * them all: what a flush may claim, so that a crash never loses a searchable page. It also keeps
 * the anchor field of indexed pages up to date with the links found after they were indexed.
 * On a search node that holds one shard (`cluster.shard`), only that shard's documents go in.
 *
 * The index shares the main thread with the searches it answers: each document's add waits for its
 * turn in the thread's slices (lib/slices.ts), as the crawler's work on each page does, so that a
 * search waits behind one page's work at most, never behind a burst of them.
 *
 * It emits `applied` (the change's number) each time a change reaches the index: what a test, or
 * anything that follows the index, waits on instead of asking again and again.
 */
import { EventEmitter } from 'node:events';
import type { Anchors, StoredDocument } from '../model/index.ts';
import type { IndexSink } from '../crawler/index.ts';
import type { Log } from '../lib/log.ts';
import { Slices } from '../lib/slices.ts';
import { isAnalysis, type SearchIndex } from '../indexer/index.ts';
import type { Store, TokenSequence } from '../store/index.ts';
import type { ShardFilter } from './shard-filter.ts';

/** Documents read at once when changes made elsewhere are applied (refreshMany). */
const REFRESH_BATCH = 64;
/** Pages whose anchors an anchor refresh reads at once (refreshAnchors). */
const ANCHORS_READ_AT_ONCE = 16;

/**
 * How long the main thread's crawl work (pages' commits and index adds, anchor refreshes) holds it
 * before a search may run: with one page's work after it (~1–2 ms, more for a very large page: see
 * ARCHITECTURE.md), a search waits ≲ 5 ms.
 */
export const MAIN_SLICE_MS = 3;

/** What the feed tells as it goes. */
export type IndexFeedEvents = {
  /** Change `seq` is in the index now (a page added, replaced or removed). */
  applied: [seq: number];
};

export class IndexFeed extends EventEmitter<IndexFeedEvents> implements IndexSink {
  /** Changes handed to the index that have not been applied yet. */
  private readonly pending = new Set<number>();
  /** The highest change applied; with nothing pending, the index holds every change up to it. */
  private highest = 0;
  /** A change that failed to apply: flushes claim nothing past it, so a restart replays it. */
  private failedAt: number | undefined;
  /** Identities of pages that gained inbound anchor text since their anchor field was last read. */
  private readonly staleAnchors = new Set<string>();
  private refreshing: Promise<number> | undefined;
  /**
   * The change log is followed (follow.ts): the follower alone says how far the index holds every
   * change, since other processes make changes too; those this process applied itself (put,
   * remove) are noted, for the follower to skip.
   */
  private followed = false;
  private readonly direct = new Set<number>();

  constructor(
    private readonly index: SearchIndex,
    private readonly store: Store,
    private readonly stemming: string,
    private readonly log: Log,
    /** The shard this index holds (shard-filter.ts); undefined: every document. */
    readonly shard?: ShardFilter,
    /** The main thread's slices: the crawler's page work takes its turns in them too (a test's run on its own clock). */
    readonly slices: Slices = new Slices(MAIN_SLICE_MS),
  ) {
    super();
  }

  /** Every change up to this sequence number is in the index. */
  get through(): number {
    let through = this.highest;
    for (const seq of this.pending) through = Math.min(through, seq - 1);
    return this.failedAt !== undefined ? Math.min(through, this.failedAt - 1) : through;
  }

  /** The index holds every change up to `seq` (a snapshot was loaded and the log replayed; the follower read the log so far). */
  caughtUp(seq: number): void {
    this.highest = Math.max(this.highest, seq);
    if (this.followed) for (const s of this.direct) if (s <= seq) this.direct.delete(s);
  }

  /** From now on the change log's follower says how far the index holds every change. */
  follow(): void {
    this.followed = true;
  }

  /** True when change `seq` was applied (or is being applied) here directly: a follower skips it. */
  appliedHere(seq: number): boolean {
    return this.direct.has(seq);
  }

  sequenceOf(analysis: unknown): TokenSequence | undefined {
    return isAnalysis(analysis) ? { tokens: analysis.sequence, stemming: this.stemming } : undefined;
  }

  async put(doc: StoredDocument, analysis: unknown, seq: number): Promise<void> {
    if (this.followed) this.direct.add(seq);
    // (Another shard's document: not here — removed, should it have been before.)
    if (this.shard && !this.shard.admits(doc)) return this.apply(seq, async () => this.index.remove(doc.id));
    // (Its anchors are asked for before its turn: the pages of a group commit ask together, and a
    // database reads them in one statement — store/postgres/anchors.ts. Caught here so that a failed
    // read is not an unhandled rejection while the turn is awaited; awaited below, it still fails the change.)
    const anchors = this.store.anchors.of(doc.id);
    anchors.catch(() => undefined);
    await this.apply(seq, async () => {
      await this.slices.turn();
      this.index.upsert(doc, analysis, await anchors);
    });
  }

  async remove(id: number, seq: number): Promise<void> {
    if (this.followed) this.direct.add(seq);
    await this.apply(seq, async () => this.index.remove(id));
  }

  /** Brings a document (by id) up to date with the store, as of change `seq`: indexed as stored, or removed. */
  async refresh(id: number, seq: number): Promise<void> {
    await this.refreshMany([[id, seq]]);
  }

  /**
   * refresh() for many documents (id, change), in order: read REFRESH_BATCH at a time in one
   * statement, their anchors in another — one round trip a page kept a search node following
   * several workers behind them.
   * (A document of another shard, known by its id, is not even read.) Each page's index work
   * takes its turn on the main thread (slices).
   */
  async refreshMany(changes: readonly (readonly [id: number, seq: number])[]): Promise<void> {
    for (let i = 0; i < changes.length; i += REFRESH_BATCH) {
      const batch = changes.slice(i, i + REFRESH_BATCH);
      const wanted = batch.map(([id]) => id).filter((id) => !this.shard?.isForeign(id));
      const docs = wanted.length <= 1 ? new Map() : await this.store.documents.getMany(wanted).catch(() => new Map());
      const anchors = wanted.length <= 1 ? new Map<number, Anchors>() : await this.store.anchors.ofMany(wanted).catch(() => new Map<number, Anchors>());
      for (const [id, seq] of batch)
        await this.apply(seq, async () => {
          await this.slices.turn();
          // (Not among those read — gone, or the batch's read failed: read alone, so that a failure is this change's.)
          const doc = this.shard?.isForeign(id) ? undefined : (docs.get(id) ?? (await this.store.documents.get(id)));
          if (doc && (!this.shard || this.shard.admits(doc))) this.index.upsert(doc, undefined, anchors.get(id) ?? (await this.anchorsOf(id)));
          else this.index.remove(id);
        });
    }
  }

  /** Links with anchor text to these identities were recorded: their pages' anchor field is stale. */
  anchorsChanged(targets: readonly string[]): void {
    for (const t of targets) this.staleAnchors.add(t);
  }

  /**
   * Brings the anchor field and in-link count of indexed pages up to date with the links recorded
   * since they were indexed, a page at a time in the main thread's slices so that searches never
   * wait long. Resolves with the number of pages updated.
   */
  refreshAnchors(): Promise<number> {
    this.refreshing ??= (async () => {
      await this.store.anchors.write();
      let updated = 0;
      while (this.staleAnchors.size) {
        const batch: string[] = [];
        for (const t of this.staleAnchors) if (batch.push(t) === 256) break;
        for (const t of batch) this.staleAnchors.delete(t);
        const ids = [...(await this.store.urls.idsOf(batch)).values()].filter((id) => this.index.stats.has(id));
        // (The anchors of a few indexed pages read at once: a round trip a page on a database, a
        // read short enough to hold the thread for on SQLite.)
        for (let i = 0; i < ids.length; i += ANCHORS_READ_AT_ONCE) {
          await this.slices.turn();
          const some = ids.slice(i, i + ANCHORS_READ_AT_ONCE);
          const anchors = await this.store.anchors.ofMany(some);
          for (const id of some) {
            await this.slices.turn();
            if (this.index.stats.has(id) && this.index.refreshAnchors(id, anchors.get(id) ?? (await this.anchorsOf(id)))) updated++;
          }
        }
      }
      return updated;
    })().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** The refresh of anchors in progress, if any. */
  get anchorRefresh(): Promise<number> | undefined {
    return this.refreshing;
  }

  private anchorsOf(id: number): Promise<Anchors> {
    return this.store.anchors.of(id);
  }

  private async apply(seq: number, change: () => Promise<void>): Promise<void> {
    this.pending.add(seq);
    try {
      await change();
      // (Followed: a change applied here says nothing of the others' changes before it.)
      if (!this.followed) this.highest = Math.max(this.highest, seq);
    } catch (e) {
      // The page is in the store; the index misses it until a restart replays the change.
      this.failedAt = Math.min(this.failedAt ?? seq, seq);
      this.log.error(`index: change ${seq} (document) could not be applied; it is replayed at the next start: ${(e as Error).message}`);
      return;
    } finally {
      this.pending.delete(seq);
    }
    this.emit('applied', seq);
  }
}
