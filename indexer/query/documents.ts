/**
 * What a query reads from the store: candidates' documents (their text, for phrases, evidence and
 * snippets) and token sequences (for phrases). The store may be behind a network, so lookups may
 * answer later; an in-memory one (tests, benches) answers at once.
 */
import type { StoredDocument } from '../../model/index.ts';
import { BODY_CHARS } from './proximity.ts';

/**
 * A document by id; with `textChars`, its text may be cut after that many characters (store/documents.ts
 * `get`): a query reads most pages' starts only.
 */
export type DocumentLookup = (id: number, textChars?: number) => StoredDocument | undefined | Promise<StoredDocument | undefined>;

/**
 * How much of a page's text a query reads first (QueryDocuments.start): what phrase evidence reads
 * (proximity.ts BODY_CHARS), and where most snippets are. Turning a long page's whole text into a
 * string was a fifth of a rust-doc query's time.
 */
export const START_CHARS = BODY_CHARS;

/**
 * The token sequences (ingest/sequence.ts) kept of some documents, by id (those without one are
 * left out): exact phrases are checked on them first. Asked for a few dozen at a time (one read for all).
 */
export type SequenceLookup = (ids: readonly number[]) => ReadonlyMap<number, Uint32Array> | Promise<ReadonlyMap<number, Uint32Array>>;

type Read = StoredDocument | undefined | Promise<StoredDocument | undefined>;

/** The documents one query reads, each read once (its start, and then perhaps the whole). */
export class QueryDocuments {
  private readonly docs = new Map<number, Read>();
  private readonly starts = new Map<number, Read>();

  constructor(private readonly lookup: DocumentLookup) {}

  /** The whole document. */
  async get(id: number): Promise<StoredDocument | undefined> {
    if (!this.docs.has(id)) this.docs.set(id, this.lookup(id));
    return this.docs.get(id);
  }

  /** The document with at least its text's first START_CHARS characters (`textCut` tells whether it may go on). */
  async start(id: number): Promise<StoredDocument | undefined> {
    if (this.docs.has(id)) return this.docs.get(id);
    if (!this.starts.has(id)) this.starts.set(id, this.lookup(id, START_CHARS));
    return this.starts.get(id);
  }

  /** Reads these documents together (when the store can answer them at once). */
  async load(ids: readonly number[]): Promise<void> {
    await Promise.all(ids.map((id) => this.get(id)));
  }

  /** Reads these documents' starts together. */
  async loadStarts(ids: readonly number[]): Promise<void> {
    await Promise.all(ids.map((id) => this.start(id)));
  }
}

/** Whether the text of a document read by `start` may go on past it (a text shorter than START_CHARS is whole). */
export function textCut(d: StoredDocument): boolean {
  return d.text.length >= START_CHARS;
}
