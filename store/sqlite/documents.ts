/**
 * The document store: what was extracted from each fetched page, keyed by the URL record's id.
 * Every put and remove is appended to `changes` in the same transaction, so the index can always
 * catch up from SQLite alone.
 */
import type { Db } from './db.ts';
import type { DocumentTopic, StoredDocument } from '../../model/index.ts';

export type Change = { readonly seq: number; readonly docId: number; readonly op: 'put' | 'remove' };

type Row = {
  id: number;
  url: string;
  title: string;
  description: string;
  headings: string;
  text: string;
  content_type: string;
  bytes: number;
  truncated: number;
  http_status: number;
  fetched_at: number;
  hash: string;
  lang: string | null;
  topic: string | null;
};

const fromRow = (r: Row): StoredDocument => ({
  id: r.id,
  url: r.url,
  title: r.title,
  description: r.description,
  headings: r.headings ? r.headings.split('\n') : [],
  text: r.text,
  contentType: r.content_type,
  bytes: r.bytes,
  truncated: r.truncated === 1,
  httpStatus: r.http_status,
  fetchedAt: r.fetched_at,
  hash: r.hash,
  ...(r.lang ? { lang: r.lang } : {}),
  ...(r.topic ? { topic: JSON.parse(r.topic) as DocumentTopic } : {}),
});

export class DocumentStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      put: db.prepare(`INSERT INTO documents (id, url, title, description, headings, text, content_type, bytes, truncated, http_status, fetched_at, hash, lang, topic)
        VALUES (@id, @url, @title, @description, @headings, @text, @contentType, @bytes, @truncated, @httpStatus, @fetchedAt, @hash, @lang, @topic)
        ON CONFLICT(id) DO UPDATE SET url=excluded.url, title=excluded.title, description=excluded.description, headings=excluded.headings,
          text=excluded.text, content_type=excluded.content_type, bytes=excluded.bytes, truncated=excluded.truncated,
          http_status=excluded.http_status, fetched_at=excluded.fetched_at, hash=excluded.hash, lang=excluded.lang, topic=excluded.topic`),
      remove: db.prepare('DELETE FROM documents WHERE id = ?'),
      dropSequence: db.prepare('DELETE FROM sequences WHERE id = ?'),
      putSequence: db.prepare('INSERT OR REPLACE INTO sequences (id, stemming, tokens) VALUES (?, ?, ?)'),
      sequences: db.prepare('SELECT id, tokens FROM sequences WHERE id IN (SELECT value FROM json_each(?)) AND stemming = ?').raw(),
      change: db.prepare('INSERT INTO changes (doc_id, op) VALUES (?, ?)'),
      get: db.prepare('SELECT * FROM documents WHERE id = ?'),
      has: db.prepare('SELECT 1 FROM documents WHERE id = ?').pluck(),
      touch: db.prepare('UPDATE documents SET fetched_at = ? WHERE id = ?'),
      count: db.prepare('SELECT count(*) AS n FROM documents'),
      all: db.prepare('SELECT * FROM documents ORDER BY id'),
      since: db.prepare('SELECT seq, doc_id AS docId, op FROM changes WHERE seq > ? ORDER BY seq'),
      // The last sequence number ever given out: AUTOINCREMENT keeps it after the rows are pruned.
      lastSeq: db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0) AS seq"),
      prune: db.prepare('DELETE FROM changes WHERE seq <= ?'),
      byHash: db.prepare('SELECT id, url FROM documents WHERE hash = ? LIMIT 1'),
      addDuplicate: db.prepare('INSERT INTO duplicates (url_id, doc_id) VALUES (?, ?) ON CONFLICT(url_id) DO UPDATE SET doc_id = excluded.doc_id'),
      dropDuplicate: db.prepare('DELETE FROM duplicates WHERE url_id = ?'),
      urlsOf: db.prepare('SELECT coalesce(u.fetch_url, u.url) AS url FROM duplicates d JOIN urls u ON u.id = d.url_id WHERE d.doc_id = ? ORDER BY u.id'),
    };
  }

  /** Stores (or replaces) a document and logs the change. Returns the change's sequence number. */
  put(doc: StoredDocument): number {
    return this.db.transaction(() => {
      // A URL that was a duplicate and now has content of its own is a document again.
      this.stmts.dropDuplicate.run(doc.id);
      // The sequence of the document's old text, if any, no longer holds.
      this.stmts.dropSequence.run(doc.id);
      this.stmts.put.run({ ...doc, headings: doc.headings.join('\n'), truncated: doc.truncated ? 1 : 0, lang: doc.lang ?? null, topic: doc.topic ? JSON.stringify(doc.topic) : null });
      return Number(this.stmts.change.run(doc.id, 'put').lastInsertRowid);
    })();
  }

  /** Removes a document (if stored) and logs the change. */
  remove(id: number): number | undefined {
    return this.db.transaction(() => {
      if (this.stmts.remove.run(id).changes === 0) return undefined;
      this.stmts.dropSequence.run(id);
      return Number(this.stmts.change.run(id, 'remove').lastInsertRowid);
    })();
  }

  /** The stored document with this content hash, if any (the content-seen test). */
  findByHash(hash: string): { id: number; url: string } | undefined {
    return this.stmts.byHash.get(hash) as { id: number; url: string } | undefined;
  }

  /** Records that URL record `urlId` has the same content as document `docId`. */
  addDuplicate(urlId: number, docId: number): void {
    this.stmts.addDuplicate.run(urlId, docId);
  }

  /** Every URL a document was found under: its own first, then those of its duplicates. */
  urlsOf(doc: StoredDocument): string[] {
    return [doc.url, ...(this.stmts.urlsOf.all(doc.id) as { url: string }[]).map((r) => r.url)];
  }

  /** Keeps a stored document's token sequence (indexer/sequence.ts), made with `stemming`. */
  putSequence(id: number, tokens: Uint32Array, stemming: string): void {
    this.stmts.putSequence.run(id, stemming, Buffer.from(tokens.buffer, tokens.byteOffset, tokens.byteLength));
  }

  /** The token sequences kept with this stemming of some documents, by id (one statement for all). */
  sequencesOf(ids: readonly number[], stemming: string): Map<number, Uint32Array> {
    const found = new Map<number, Uint32Array>();
    for (const [id, blob] of this.stmts.sequences.all(JSON.stringify(ids), stemming) as [number, Buffer][]) {
      if (blob.byteLength % 4) continue;
      // A view when the Buffer is aligned (as SQLite's copies are), else a copy: no second allocation.
      if (blob.byteOffset % 4 === 0) found.set(id, new Uint32Array(blob.buffer, blob.byteOffset, blob.byteLength / 4));
      else {
        const tokens = new Uint32Array(blob.byteLength / 4);
        new Uint8Array(tokens.buffer).set(blob);
        found.set(id, tokens);
      }
    }
    return found;
  }

  has(id: number): boolean {
    return this.stmts.has.get(id) !== undefined;
  }

  /**
   * Records that a stored page was fetched again and found unchanged (a 304, or the same text):
   * only its fetch time changes, so the index and the change log are left alone.
   */
  touch(id: number, fetchedAt: number): void {
    this.stmts.touch.run(fetchedAt, id);
  }

  get(id: number): StoredDocument | undefined {
    const row = this.stmts.get.get(id) as Row | undefined;
    return row && fromRow(row);
  }

  count(): number {
    return (this.stmts.count.get() as { n: number }).n;
  }

  /** Every document, streamed in id order (memory stays flat for any collection size). */
  *all(): IterableIterator<StoredDocument> {
    for (const row of this.stmts.all.iterate() as IterableIterator<Row>) yield fromRow(row);
  }

  /** Changes after `seq`, in order. */
  changesSince(seq: number): Change[] {
    return this.stmts.since.all(seq) as Change[];
  }

  lastSeq(): number {
    return (this.stmts.lastSeq.get() as { seq: number }).seq;
  }

  /** Forgets changes the index has flushed; they are no longer needed for replay. */
  pruneChanges(uptoSeq: number): void {
    this.stmts.prune.run(uptoSeq);
  }
}
