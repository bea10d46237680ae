/**
 * The document store in PostgreSQL: what was extracted from each fetched page, keyed by the URL
 * record's id, with the token sequence of its text (dropped whenever the page changes). Every put
 * and remove is appended to the change log in the same transaction (changes.ts). The writes are
 * functions over a `Queryable`, so that a fetch's commit (store.ts) runs them in its transaction.
 */
import type pg from 'pg';
import type { DocumentFacts, DocumentTopic, StoredDocument } from '../../model/index.ts';
import type { DocumentStore, TokenSequence } from '../documents.ts';
import { logChanges } from './changes.ts';
import { run, transaction, type Queryable } from './db.ts';

type Row = {
  id: number;
  url: string;
  title: string;
  description: string;
  headings: string;
  text: string;
  content_type: string;
  bytes: number;
  truncated: boolean;
  http_status: number;
  fetched_at: number;
  hash: string;
  lang: string | null;
  topic: DocumentTopic | null;
  facts: DocumentFacts | null;
  simhash: string | null;
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
  truncated: r.truncated,
  httpStatus: r.http_status,
  fetchedAt: r.fetched_at,
  hash: r.hash,
  ...(r.lang ? { lang: r.lang } : {}),
  ...(r.topic ? { topic: r.topic } : {}),
  ...(r.facts ? { document: r.facts } : {}),
  ...(r.simhash ? { simhash: r.simhash } : {}),
});

/** Documents read per round trip while streaming them all. */
const PAGE = 256;

/*
 * One statement stores a document: a URL that was a duplicate and now has content of its own is a
 * document again, the sequence of its old text no longer holds ($17, $18: the new one, or none).
 */
const PUT_DOCUMENT = (withSequence: boolean) => `
WITH undup AS (DELETE FROM duplicates WHERE url_id = $1),
sequence AS (${withSequence ? 'INSERT INTO sequences (id, stemming, tokens) VALUES ($1, $17, $18) ON CONFLICT (id) DO UPDATE SET stemming = excluded.stemming, tokens = excluded.tokens' : 'DELETE FROM sequences WHERE id = $1'})
INSERT INTO documents (id, url, title, description, headings, text, content_type, bytes, truncated, http_status, fetched_at, hash, lang, topic, facts, simhash)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15::jsonb, $16)
ON CONFLICT (id) DO UPDATE SET url = excluded.url, title = excluded.title, description = excluded.description, headings = excluded.headings,
  text = excluded.text, content_type = excluded.content_type, bytes = excluded.bytes, truncated = excluded.truncated, http_status = excluded.http_status,
  fetched_at = excluded.fetched_at, hash = excluded.hash, lang = excluded.lang, topic = excluded.topic, facts = excluded.facts, simhash = excluded.simhash`;

/** Stores a document and its sequence (in the caller's transaction; the caller logs the change). */
export async function putDocument(q: Queryable, doc: StoredDocument, sequence?: TokenSequence): Promise<void> {
  const params: unknown[] = [
    doc.id,
    doc.url,
    doc.title,
    doc.description,
    doc.headings.join('\n'),
    doc.text,
    doc.contentType,
    doc.bytes,
    doc.truncated,
    doc.httpStatus,
    doc.fetchedAt,
    doc.hash,
    doc.lang ?? null,
    doc.topic ? JSON.stringify(doc.topic) : null,
    doc.document ? JSON.stringify(doc.document) : null,
    doc.simhash ?? null,
  ];
  if (sequence) params.push(sequence.stemming, Buffer.from(sequence.tokens.buffer, sequence.tokens.byteOffset, sequence.tokens.byteLength));
  await run(q, PUT_DOCUMENT(sequence !== undefined), params);
}

/** Removes a document and its sequence, if stored (the caller logs the change). True when there was one. */
export async function removeDocument(q: Queryable, id: number): Promise<boolean> {
  const r = await run(q, 'WITH sequence AS (DELETE FROM sequences WHERE id = $1) DELETE FROM documents WHERE id = $1', [id]);
  return (r.rowCount ?? 0) > 0;
}

/** Only the fetch time of a stored copy found unchanged moves: the index and the change log are left alone. */
export async function touchDocument(q: Queryable, id: number, fetchedAt: number): Promise<void> {
  await run(q, 'UPDATE documents SET fetched_at = $1 WHERE id = $2', [fetchedAt, id]);
}

/** Records that URL record `urlId` has the same content as document `docId`. */
export async function addDuplicate(q: Queryable, urlId: number, docId: number): Promise<void> {
  await run(q, 'INSERT INTO duplicates (url_id, doc_id) VALUES ($1, $2) ON CONFLICT (url_id) DO UPDATE SET doc_id = excluded.doc_id', [urlId, docId]);
}

export class PgDocumentStore implements DocumentStore {
  constructor(private readonly pool: pg.Pool) {}

  async put(doc: StoredDocument, sequence?: TokenSequence): Promise<number> {
    return transaction(this.pool, async (q) => {
      await putDocument(q, doc, sequence);
      return (await logChanges(q, [{ docId: doc.id, op: 'put' }]))[0]!;
    });
  }

  async remove(id: number): Promise<number | undefined> {
    return transaction(this.pool, async (q) => ((await removeDocument(q, id)) ? (await logChanges(q, [{ docId: id, op: 'remove' }]))[0] : undefined));
  }

  async get(id: number): Promise<StoredDocument | undefined> {
    const row = (await run<Row>(this.pool, 'SELECT * FROM documents WHERE id = $1', [id])).rows[0];
    return row && fromRow(row);
  }

  async getMany(ids: readonly number[]): Promise<Map<number, StoredDocument>> {
    const { rows } = await run<Row>(this.pool, 'SELECT * FROM documents WHERE id = ANY($1::bigint[])', [ids]);
    return new Map(rows.map((r) => [r.id, fromRow(r)]));
  }

  async has(id: number): Promise<boolean> {
    return ((await run(this.pool, 'SELECT 1 FROM documents WHERE id = $1', [id])).rowCount ?? 0) > 0;
  }

  async count(): Promise<number> {
    return (await run<{ n: number }>(this.pool, 'SELECT count(*) AS n FROM documents')).rows[0]!.n;
  }

  /** Read a page of PAGE documents at a time, after the last id seen: memory stays flat, and no transaction stays open. */
  async *all(): AsyncIterable<StoredDocument> {
    for (let after = -1; ; ) {
      const { rows } = await run<Row>(this.pool, 'SELECT * FROM documents WHERE id > $1 ORDER BY id LIMIT $2', [after, PAGE]);
      for (const row of rows) yield fromRow(row);
      if (rows.length < PAGE) return;
      after = rows.at(-1)!.id;
    }
  }

  async *simhashes(): AsyncIterable<readonly [number, string]> {
    for (let after = -1; ; ) {
      const { rows } = await run<{ id: number; simhash: string }>(this.pool, 'SELECT id, simhash FROM documents WHERE simhash IS NOT NULL AND id > $1 ORDER BY id LIMIT $2', [after, PAGE * 16]);
      for (const row of rows) yield [row.id, row.simhash] as const;
      if (rows.length < PAGE * 16) return;
      after = rows.at(-1)!.id;
    }
  }

  async idsOfHost(host: string): Promise<number[]> {
    const { rows } = await run<{ id: number }>(this.pool, 'SELECT d.id FROM documents d JOIN urls u ON u.id = d.id WHERE u.host = $1 ORDER BY d.id', [host]);
    return rows.map((r) => r.id);
  }

  async findByHash(hash: string): Promise<{ id: number; url: string } | undefined> {
    return (await run<{ id: number; url: string }>(this.pool, 'SELECT id, url FROM documents WHERE hash = $1 ORDER BY id LIMIT 1', [hash])).rows[0];
  }

  async urlsOf(doc: StoredDocument): Promise<string[]> {
    const { rows } = await run<{ url: string }>(this.pool, 'SELECT coalesce(u.fetch_url, u.url) AS url FROM duplicates d JOIN urls u ON u.id = d.url_id WHERE d.doc_id = $1 ORDER BY u.id', [doc.id]);
    return [doc.url, ...rows.map((r) => r.url)];
  }

  async sequencesOf(ids: readonly number[], stemming: string): Promise<Map<number, Uint32Array>> {
    const { rows } = await run<{ id: number; tokens: Buffer }>(this.pool, 'SELECT id, tokens FROM sequences WHERE id = ANY($1::bigint[]) AND stemming = $2', [ids, stemming]);
    const found = new Map<number, Uint32Array>();
    for (const { id, tokens: blob } of rows) {
      if (blob.byteLength % 4) continue;
      // A view when the Buffer is aligned, else a copy (small Buffers share a pool at any offset).
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
