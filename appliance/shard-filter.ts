/**
 * A search node that indexes one shard of the documents (`cluster.shard`, issue 22) admits only
 * those whose URL hashes to it (lib/shard.ts) — when it rebuilds from the documents table, when it
 * follows the change log, and when its own crawl stores a page. A document's URL never changes
 * for its id (it is its URL record's), so an id once seen to be another shard's is remembered, one
 * bit per id: the document of a later change to it is not read from the store again.
 */
import { holds, parseShard, shardText, type ShardSpec } from '../lib/shard.ts';

/** Ids below this are remembered in a bitmap; the rare others are read again each time. */
const DENSE_IDS = 50_000_000;

/** A shard that cannot be served as configured (exit code 2: the user's input). */
export class ShardError extends Error {
  readonly code = 'ERR_SHARD';
}

export class ShardFilter {
  private foreign = new Uint8Array(0);

  private constructor(readonly spec: ShardSpec) {}

  /** The filter of `cluster.shard` on a store that is `shared` (or not: a ShardError, since a shard follows a shared store). */
  static forConfig(text: string, shared: boolean): ShardFilter | undefined {
    if (text && !shared)
      throw new ShardError(`cluster.shard (--shard ${text}) needs a store the shards share: give --store postgres://user@host/db (or TRAWL_STORE)`);
    return ShardFilter.of(text);
  }

  /** The filter of `cluster.shard` ("K/N"); undefined for every document ("" or 1/1). */
  static of(text: string): ShardFilter | undefined {
    if (!text) return undefined;
    const spec = parseShard(text);
    return spec.n > 1 ? new ShardFilter(spec) : undefined;
  }

  /** "K/N", as the snapshot's manifest records it. */
  get text(): string {
    return shardText(this.spec);
  }

  /** True when this shard holds the document; remembers another shard's. */
  admits(doc: { readonly id: number; readonly url: string }): boolean {
    if (holds(this.spec, doc.url)) return true;
    if (doc.id >= 0 && doc.id < DENSE_IDS && Number.isInteger(doc.id)) {
      if (doc.id >= this.foreign.length * 8) {
        const bigger = new Uint8Array(Math.min(DENSE_IDS / 8, Math.max(1024, Math.ceil((doc.id + 1) / 8), this.foreign.length * 2)));
        bigger.set(this.foreign);
        this.foreign = bigger;
      }
      this.foreign[doc.id >> 3]! |= 1 << (doc.id & 7);
    }
    return false;
  }

  /** True when the document `id` is known to be another shard's (its changes need not be read). */
  isForeign(id: number): boolean {
    return id >= 0 && id < this.foreign.length * 8 && (this.foreign[id >> 3]! & (1 << (id & 7))) !== 0;
  }
}
