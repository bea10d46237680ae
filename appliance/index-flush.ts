/**
 * Writing the in-RAM index to disk (appliance.ts calls it on a timer and on close): atomically, a
 * slice at a time, searches going on meanwhile; then the change log forgets what the index holds —
 * as far as every other reader of the log holds it too (search nodes on a shared store).
 */
import { flushIndex, type FlushInfo, type SearchIndex } from '../indexer/index.ts';
import type { Store } from '../store/index.ts';
import type { IndexFeed } from './index-feed.ts';
import { writeOrigin, type IndexOrigin } from './index-origin.ts';

/** The last flush, as the status reports it (ms and bytes unknown for an index loaded, not written here). */
export type LastFlush = Pick<FlushInfo, 'createdAt' | 'lastSeq'> & { ms: number | null; bytes: number | null };

export type FlushTarget = {
  readonly store: Store;
  readonly index: SearchIndex;
  readonly feed: IndexFeed;
  /** The index's directory. */
  readonly dir: string;
  /** The store the index follows, and the index as a reader of its change log (index-origin.ts). */
  readonly origin: IndexOrigin;
  /** How long a reader of the change log that stopped holding it still counts (cluster.readerTimeout). */
  readonly readerTimeoutMs: number;
  /** False once the store is closed: the last flush then leaves the change log as it is. */
  readonly storeOpen: () => boolean;
};

export class IndexFlusher {
  private lastFlush: LastFlush | undefined;
  /** The index changed without a document change (anchor refresh): the next flush must write. */
  private changed = false;
  /** The flush being written, if any. */
  private flushing: Promise<unknown> | undefined;

  constructor(
    private readonly t: FlushTarget,
    loaded?: Pick<FlushInfo, 'createdAt' | 'lastSeq' | 'bytes'>,
  ) {
    if (loaded) this.lastFlush = { createdAt: loaded.createdAt, lastSeq: loaded.lastSeq, ms: null, bytes: loaded.bytes ?? null };
  }

  /** The last flush: this process's, or the one the index was loaded from. */
  get last(): LastFlush | undefined {
    return this.lastFlush;
  }

  /** The index changed in a way the change log does not show (an anchor refresh). */
  indexChanged(): void {
    this.changed = true;
  }

  /**
   * Resolves to undefined when nothing changed since the last flush. One flush at a time: a call
   * during a flush waits for it, then flushes what is new.
   */
  flush(): Promise<FlushInfo | undefined> {
    const next = (this.flushing ?? Promise.resolve()).then(
      () => this.flushNow(),
      () => this.flushNow(),
    );
    this.flushing = next.catch(() => undefined);
    return next;
  }

  /** Nothing new to flush still tells the change log this reader is alive. */
  async holdLog(): Promise<void> {
    if (this.lastFlush) await this.t.store.changes.hold(this.t.origin.reader, this.lastFlush.lastSeq, Date.now());
  }

  private async flushNow(): Promise<FlushInfo | undefined> {
    const { store, feed } = this.t;
    // What the flush holds must be durable first: a crash must never leave an index on disk
    // with pages the store does not have.
    await store.sync();
    const seq = feed.through;
    if (this.lastFlush && this.lastFlush.lastSeq === seq && !this.changed) return undefined;
    this.changed = false;
    try {
      const info = await flushIndex(this.t.dir, this.t.index, seq, { shard: feed.shard?.text });
      this.lastFlush = info;
      writeOrigin(this.t.dir, this.t.origin);
      if (this.t.storeOpen()) await this.pruneLog(seq);
      return info;
    } catch (e) {
      this.changed = true;
      throw e;
    }
  }

  /** This index holds the changes up to `seq` on disk: the log keeps only what some live reader still needs. */
  private async pruneLog(seq: number): Promise<void> {
    const now = Date.now();
    await this.t.store.changes.hold(this.t.origin.reader, seq, now);
    await this.t.store.changes.prune(seq, now - this.t.readerTimeoutMs);
  }
}
