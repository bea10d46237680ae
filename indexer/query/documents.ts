/**
 * What a query reads from the store: candidates' documents (their text, for phrases, evidence and
 * snippets) and token sequences (for phrases). The store may be behind a network, so lookups may
 * answer later; an in-memory one (tests, benches) answers at once.
 */
import type { StoredDocument } from '../../model/index.ts';

export type DocumentLookup = (id: number) => StoredDocument | undefined | Promise<StoredDocument | undefined>;

/**
 * The token sequences (ingest/sequence.ts) kept of some documents, by id (those without one are
 * left out): exact phrases are checked on them first. Asked for a few dozen at a time (one read for all).
 */
export type SequenceLookup = (ids: readonly number[]) => ReadonlyMap<number, Uint32Array> | Promise<ReadonlyMap<number, Uint32Array>>;

/** The documents one query reads, each read once. */
export class QueryDocuments {
  private readonly docs = new Map<number, StoredDocument | undefined | Promise<StoredDocument | undefined>>();

  constructor(private readonly lookup: DocumentLookup) {}

  async get(id: number): Promise<StoredDocument | undefined> {
    if (!this.docs.has(id)) this.docs.set(id, this.lookup(id));
    return this.docs.get(id);
  }

  /** Reads these documents together (when the store can answer them at once). */
  async load(ids: readonly number[]): Promise<void> {
    await Promise.all(ids.map((id) => this.get(id)));
  }
}
