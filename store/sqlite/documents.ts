/**
 * The document store in SQLite: what was extracted from each fetched page, keyed by the URL
 * record's id, with the token sequence of its text (dropped whenever the page changes). Every put
 * and remove is appended to `changes` in the same transaction (changes.ts).
 */
import type { DocumentFacts, DocumentTopic, StoredDocument } from '../../model/index.ts';
import type { DocumentStore, TokenSequence } from '../documents.ts';
import type { SqliteChangeLog } from './changes.ts';
import type { Db } from './db.ts';

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
  facts: string | null;
  simhash: string | null;
  heading_ids: string | null;
};

/** The columns of a Row, in the table's order. */
const COLUMNS =
  'id, url, title, description, headings, text, content_type, bytes, truncated, http_status, fetched_at, hash, lang, topic, facts, simhash, heading_ids';

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
  ...(r.facts ? { document: JSON.parse(r.facts) as DocumentFacts } : {}),
  ...(r.simhash ? { simhash: r.simhash } : {}),
  ...(r.heading_ids ? { headingIds: JSON.parse(r.heading_ids) as [string, string][] } : {}),
});

export class SqliteDocumentStore implements DocumentStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly changes: SqliteChangeLog,
  ) {
    this.stmts = {
      put: db.prepare(
        `INSERT INTO documents (id, url, title, description, headings, text, content_type, bytes, truncated, http_status, ` +
          `fetched_at, hash, lang, topic, facts, simhash, heading_ids)
        VALUES (@id, @url, @title, @description, @headings, @text, @contentType, @bytes, @truncated, @httpStatus, ` +
          `@fetchedAt, @hash, @lang, @topic, @facts, @simhash, @headingIds)
        ON CONFLICT(id) DO UPDATE SET url=excluded.url, title=excluded.title, description=excluded.description, headings=excluded.headings,
          text=excluded.text, content_type=excluded.content_type, bytes=excluded.bytes, truncated=excluded.truncated,
          http_status=excluded.http_status, fetched_at=excluded.fetched_at, hash=excluded.hash, lang=excluded.lang, topic=excluded.topic, facts=excluded.facts,
          simhash=excluded.simhash, heading_ids=excluded.heading_ids`,
      ),
      simhashes: db.prepare('SELECT id, simhash FROM documents WHERE simhash IS NOT NULL ORDER BY id').raw(),
      // (No index on urls.host for this: it is read once per template decision, and an index would
      // cost every enqueue.)
      ofHost: db.prepare('SELECT d.id FROM documents d JOIN urls u ON u.id = d.id WHERE u.host = ? ORDER BY d.id').pluck(),
      remove: db.prepare('DELETE FROM documents WHERE id = ?'),
      dropSequence: db.prepare('DELETE FROM sequences WHERE id = ?'),
      putSequence: db.prepare('INSERT OR REPLACE INTO sequences (id, stemming, tokens) VALUES (?, ?, ?)'),
      sequences: db.prepare('SELECT id, tokens FROM sequences WHERE id IN (SELECT value FROM json_each(?)) AND stemming = ?').raw(),
      get: db.prepare('SELECT * FROM documents WHERE id = ?'),
      // (A query reading a page's start: turning a long text into a string was most of a read.)
      getStart: db.prepare(`SELECT ${COLUMNS.replace('text', 'substr(text, 1, @chars) AS text')} FROM documents WHERE id = @id`),
      getMany: db.prepare('SELECT * FROM documents WHERE id IN (SELECT value FROM json_each(?))'),
      has: db.prepare('SELECT 1 FROM documents WHERE id = ?').pluck(),
      touch: db.prepare('UPDATE documents SET fetched_at = ? WHERE id = ?'),
      count: db.prepare('SELECT count(*) FROM documents').pluck(),
      all: db.prepare('SELECT * FROM documents ORDER BY id'),
      byHash: db.prepare('SELECT id, url FROM documents WHERE hash = ? LIMIT 1'),
      addDuplicate: db.prepare('INSERT INTO duplicates (url_id, doc_id) VALUES (?, ?) ON CONFLICT(url_id) DO UPDATE SET doc_id = excluded.doc_id'),
      dropDuplicate: db.prepare('DELETE FROM duplicates WHERE url_id = ?'),
      urlsOf: db.prepare('SELECT coalesce(u.fetch_url, u.url) FROM duplicates d JOIN urls u ON u.id = d.url_id WHERE d.doc_id = ? ORDER BY u.id').pluck(),
    };
  }

  async put(doc: StoredDocument, sequence?: TokenSequence): Promise<number> {
    return this.db.transaction(() => this.putNow(doc, sequence))();
  }

  /** Stores a document (and its sequence) and logs the change, in the caller's transaction. */
  putNow(doc: StoredDocument, sequence?: TokenSequence): number {
    // A URL that was a duplicate and now has content of its own is a document again.
    this.stmts.dropDuplicate.run(doc.id);
    // The sequence of the document's old text, if any, no longer holds.
    this.stmts.dropSequence.run(doc.id);
    this.stmts.put.run({
      ...doc,
      headings: doc.headings.join('\n'),
      truncated: doc.truncated ? 1 : 0,
      lang: doc.lang ?? null,
      topic: doc.topic ? JSON.stringify(doc.topic) : null,
      facts: doc.document ? JSON.stringify(doc.document) : null,
      simhash: doc.simhash ?? null,
      headingIds: doc.headingIds ? JSON.stringify(doc.headingIds) : null,
    });
    if (sequence)
      this.stmts.putSequence.run(doc.id, sequence.stemming, Buffer.from(sequence.tokens.buffer, sequence.tokens.byteOffset, sequence.tokens.byteLength));
    return this.changes.log(doc.id, 'put');
  }

  async remove(id: number): Promise<number | undefined> {
    return this.db.transaction(() => this.removeNow(id))();
  }

  /** Removes a document (if stored) and logs the change, in the caller's transaction. */
  removeNow(id: number): number | undefined {
    if (this.stmts.remove.run(id).changes === 0) return undefined;
    this.stmts.dropSequence.run(id);
    return this.changes.log(id, 'remove');
  }

  /** Only the fetch time of a stored copy found unchanged moves: the index and the change log are left alone. */
  touchNow(id: number, fetchedAt: number): void {
    this.stmts.touch.run(fetchedAt, id);
  }

  /** Records that URL record `urlId` has the same content as document `docId`. */
  addDuplicateNow(urlId: number, docId: number): void {
    this.stmts.addDuplicate.run(urlId, docId);
  }

  async get(id: number, textChars?: number): Promise<StoredDocument | undefined> {
    const row = (textChars === undefined ? this.stmts.get.get(id) : this.stmts.getStart.get({ id, chars: textChars })) as Row | undefined;
    return row && fromRow(row);
  }

  async getMany(ids: readonly number[]): Promise<Map<number, StoredDocument>> {
    if (ids.length === 1) {
      const row = this.stmts.get.get(ids[0]) as Row | undefined;
      return new Map(row ? [[row.id, fromRow(row)]] : []);
    }
    return new Map((this.stmts.getMany.all(JSON.stringify(ids)) as Row[]).map((r) => [r.id, fromRow(r)]));
  }

  async has(id: number): Promise<boolean> {
    return this.stmts.has.get(id) !== undefined;
  }

  async count(): Promise<number> {
    return this.stmts.count.get() as number;
  }

  async *all(): AsyncIterable<StoredDocument> {
    for (const row of this.stmts.all.iterate() as IterableIterator<Row>) yield fromRow(row);
  }

  async *simhashes(): AsyncIterable<readonly [number, string]> {
    for (const row of this.stmts.simhashes.iterate() as IterableIterator<[number, string]>) yield row;
  }

  async idsOfHost(host: string): Promise<number[]> {
    return this.stmts.ofHost.all(host) as number[];
  }

  async findByHash(hash: string): Promise<{ id: number; url: string } | undefined> {
    return this.stmts.byHash.get(hash) as { id: number; url: string } | undefined;
  }

  async urlsOf(doc: StoredDocument): Promise<string[]> {
    return [doc.url, ...(this.stmts.urlsOf.all(doc.id) as string[])];
  }

  async sequencesOf(ids: readonly number[], stemming: string): Promise<Map<number, Uint32Array>> {
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
}
