/**
 * The document store: what was extracted from each fetched page, keyed by the URL record's id,
 * with the token sequence of its text (for exact phrases). Every put and remove is logged in the
 * change log in the same transaction, so the index can always catch up from the store alone.
 */
import type { StoredDocument } from '../model/index.ts';

/** A document's terms in order, hashed (indexer/ingest/sequence.ts), and the tokenizing they were made with. */
export type TokenSequence = { readonly tokens: Uint32Array; readonly stemming: string };

export interface DocumentStore {
  /** Stores (or replaces) a document with its token sequence, if any, and logs the change. Returns its sequence number. */
  put(doc: StoredDocument, sequence?: TokenSequence): Promise<number>;
  /** Removes a document (if stored) and logs the change; undefined when there was none. */
  remove(id: number): Promise<number | undefined>;
  /**
   * A document; with `textChars`, its text may be cut after that many characters (a query reading
   * pages' starts: a text shorter than that is whole).
   */
  get(id: number, textChars?: number): Promise<StoredDocument | undefined>;
  /** Several documents at once (one read for all); missing ones are left out. */
  getMany(ids: readonly number[]): Promise<Map<number, StoredDocument>>;
  has(id: number): Promise<boolean>;
  count(): Promise<number>;
  /** Every document, streamed in id order (memory stays flat for any collection size). */
  all(): AsyncIterable<StoredDocument>;
  /** Every document's SimHash, streamed in id order (an index loaded from its flush reads them here). */
  simhashes(): AsyncIterable<readonly [id: number, simhash: string]>;
  /** The documents stored under URLs of this host (an identity, as the frontier keeps it), in id order. */
  idsOfHost(host: string): Promise<number[]>;
  /** The stored document with this content hash, if any (the content-seen test). */
  findByHash(hash: string): Promise<{ readonly id: number; readonly url: string } | undefined>;
  /** Every URL a document was found under: its own first, then those of its duplicates. */
  urlsOf(doc: StoredDocument): Promise<string[]>;
  /** The token sequences kept with this stemming of some documents, by id (one read for all). */
  sequencesOf(ids: readonly number[], stemming: string): Promise<Map<number, Uint32Array>>;
}
