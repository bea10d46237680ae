/**
 * The document store in PostgreSQL: what was extracted from each fetched page, keyed by the URL
 * record's id, with the token sequence of its text (dropped whenever the page changes). Every put
 * and remove is appended to the change log in the same transaction (sequencer.ts: numbered after
 * the commit). The writes are functions over a `Queryable` and over many documents at once, so
 * that a group commit (group-commit.ts) writes the documents of all its fetches with one statement each.
 */
import type pg from 'pg';
import type { DocumentFacts, DocumentTopic, StoredDocument } from '../../model/index.ts';
import type { DocumentStore, TokenSequence } from '../documents.ts';
import { run, type Queryable } from './db.ts';

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
  heading_ids: [string, string][] | null;
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
  ...(r.heading_ids ? { headingIds: r.heading_ids } : {}),
});

/** A Row's columns, its text cut after $2 characters (a query reading pages' starts). */
const START_COLUMNS =
  'id, url, title, description, headings, left(text, $2) AS text, content_type, bytes, truncated, http_status, fetched_at, hash, lang, ' +
  'topic, facts, simhash, heading_ids';

/** Documents read per round trip while streaming them all. */
const PAGE = 256;

/*
 * One statement stores documents (one, or a group commit's: store.ts), each row of the arrays one
 * document: a URL that was a duplicate and now has content of its own is a document again, and the
 * token sequence of its old text no longer holds (the new one replaces it, or none is kept).
 */
const PUT_DOCUMENTS =
  `
WITH input AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::boolean[], $10::int[],
    $11::bigint[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::bytea[], $19::text[])
    AS t(id, url, title, description, headings, text, content_type, bytes, truncated, http_status, fetched_at, hash, ` +
  `lang, topic, facts, simhash, stemming, tokens, heading_ids)
), undup AS (DELETE FROM duplicates WHERE url_id IN (SELECT id FROM input)
), unsequenced AS (DELETE FROM sequences WHERE id IN (SELECT id FROM input WHERE tokens IS NULL)
), sequenced AS (
  INSERT INTO sequences (id, stemming, tokens) SELECT id, stemming, tokens FROM input WHERE tokens IS NOT NULL
  ON CONFLICT (id) DO UPDATE SET stemming = excluded.stemming, tokens = excluded.tokens
)
INSERT INTO documents (id, url, title, description, headings, text, content_type, bytes, truncated, http_status, fetched_at, hash, ` +
  `lang, topic, facts, simhash, heading_ids)
SELECT id, url, title, description, headings, text, content_type, bytes, truncated, http_status, fetched_at, hash, ` +
  `lang, topic::jsonb, facts::jsonb, simhash, heading_ids::jsonb FROM input
ON CONFLICT (id) DO UPDATE SET url = excluded.url, title = excluded.title, description = excluded.description, headings = excluded.headings,
  text = excluded.text, content_type = excluded.content_type, bytes = excluded.bytes, truncated = excluded.truncated, http_status = excluded.http_status,
  fetched_at = excluded.fetched_at, hash = excluded.hash, lang = excluded.lang, topic = excluded.topic, facts = excluded.facts, simhash = excluded.simhash,
  heading_ids = excluded.heading_ids`;

/** A document to store, with its token sequence (if any). */
export type DocumentPut = { readonly doc: StoredDocument; readonly sequence?: TokenSequence | undefined };

/**
 * Stores documents and their sequences in one statement (in the caller's transaction; the caller
 * logs the changes). Ids must differ; rows are written in id order, as every writer does, so that
 * two transactions never wait for each other's rows in opposite orders.
 */
export async function putDocuments(q: Queryable, puts: readonly DocumentPut[]): Promise<void> {
  if (!puts.length) return;
  const rows = [...puts].sort((a, b) => a.doc.id - b.doc.id);
  const column = <T>(f: (p: DocumentPut) => T) => rows.map(f);
  await run(q, PUT_DOCUMENTS, [
    column((p) => p.doc.id),
    column((p) => p.doc.url),
    column((p) => p.doc.title),
    column((p) => p.doc.description),
    column((p) => p.doc.headings.join('\n')),
    column((p) => p.doc.text),
    column((p) => p.doc.contentType),
    column((p) => p.doc.bytes),
    column((p) => p.doc.truncated),
    column((p) => p.doc.httpStatus),
    column((p) => p.doc.fetchedAt),
    column((p) => p.doc.hash),
    column((p) => p.doc.lang ?? null),
    column((p) => (p.doc.topic ? JSON.stringify(p.doc.topic) : null)),
    column((p) => (p.doc.document ? JSON.stringify(p.doc.document) : null)),
    column((p) => p.doc.simhash ?? null),
    column((p) => p.sequence?.stemming ?? null),
    column((p) => (p.sequence ? Buffer.from(p.sequence.tokens.buffer, p.sequence.tokens.byteOffset, p.sequence.tokens.byteLength) : null)),
    column((p) => (p.doc.headingIds ? JSON.stringify(p.doc.headingIds) : null)),
  ]);
}

/** Removes documents and their sequences, where stored (the caller logs the changes). Returns the ids that were stored. */
export async function removeDocuments(q: Queryable, ids: readonly number[]): Promise<Set<number>> {
  if (!ids.length) return new Set();
  const sorted = [...ids].sort((a, b) => a - b);
  const { rows } = await run<{ id: number }>(
    q,
    'WITH sequence AS (DELETE FROM sequences WHERE id = ANY($1::bigint[])) DELETE FROM documents WHERE id = ANY($1::bigint[]) RETURNING id',
    [sorted],
  );
  return new Set(rows.map((r) => r.id));
}

/** Only the fetch time of stored copies found unchanged moves: the index and the change log are left alone. */
export async function touchDocuments(q: Queryable, touches: readonly { readonly id: number; readonly at: number }[]): Promise<void> {
  if (!touches.length) return;
  const sorted = [...touches].sort((a, b) => a.id - b.id);
  await run(q, 'UPDATE documents d SET fetched_at = t.at FROM unnest($1::bigint[], $2::bigint[]) AS t(id, at) WHERE d.id = t.id', [
    sorted.map((t) => t.id),
    sorted.map((t) => t.at),
  ]);
}

/** Records that each URL record `urlId` has the same content as document `docId`. */
export async function addDuplicates(q: Queryable, pairs: readonly { readonly urlId: number; readonly docId: number }[]): Promise<void> {
  if (!pairs.length) return;
  const sorted = [...pairs].sort((a, b) => a.urlId - b.urlId);
  const sql =
    'INSERT INTO duplicates (url_id, doc_id) SELECT * FROM unnest($1::bigint[], $2::bigint[]) ON CONFLICT (url_id) DO UPDATE SET doc_id = excluded.doc_id';
  await run(q, sql, [sorted.map((p) => p.urlId), sorted.map((p) => p.docId)]);
}

/** Hints kept at most: one per URL taken and not asked about yet (a URL taken and put back leaves one). */
const MAX_HINTS = 10_000;

/**
 * Whether the page of a URL just taken is stored, as the take read it (urls.ts): the crawler asks
 * `has()` of every URL it takes, and this answers without another round trip. A hint answers once;
 * only the worker holding the URL writes its page in between.
 */
export class StoredHints {
  private readonly hints = new Map<number, boolean>();

  learn(id: number, stored: boolean): void {
    if (this.hints.size >= MAX_HINTS) this.hints.delete(this.hints.keys().next().value!);
    this.hints.set(id, stored);
  }

  /** What the take read, once; undefined when it was not taken here lately. */
  take(id: number): boolean | undefined {
    const hint = this.hints.get(id);
    this.hints.delete(id);
    return hint;
  }
}

/** How documents are written: in the group commit of fetches (group-commit.ts). */
export type DocumentWriter = {
  put(put: DocumentPut): Promise<number>;
  remove(id: number): Promise<number | undefined>;
};

export class PgDocumentStore implements DocumentStore {
  constructor(
    private readonly pool: pg.Pool,
    private readonly group: DocumentWriter,
    private readonly stored: StoredHints = new StoredHints(),
  ) {}

  /** (In a group commit, with the fetches' commits of the moment: store.ts.) */
  async put(doc: StoredDocument, sequence?: TokenSequence): Promise<number> {
    this.stored.take(doc.id);
    return this.group.put({ doc, sequence });
  }

  async remove(id: number): Promise<number | undefined> {
    this.stored.take(id);
    return this.group.remove(id);
  }

  async get(id: number, textChars?: number): Promise<StoredDocument | undefined> {
    const row = (
      textChars === undefined
        ? await run<Row>(this.pool, 'SELECT * FROM documents WHERE id = $1', [id])
        : await run<Row>(this.pool, `SELECT ${START_COLUMNS} FROM documents WHERE id = $1`, [id, textChars])
    ).rows[0];
    return row && fromRow(row);
  }

  async getMany(ids: readonly number[]): Promise<Map<number, StoredDocument>> {
    const { rows } = await run<Row>(this.pool, 'SELECT * FROM documents WHERE id = ANY($1::bigint[])', [ids]);
    return new Map(rows.map((r) => [r.id, fromRow(r)]));
  }

  async has(id: number): Promise<boolean> {
    const hint = this.stored.take(id);
    if (hint !== undefined) return hint;
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
      const { rows } = await run<{ id: number; simhash: string }>(
        this.pool,
        'SELECT id, simhash FROM documents WHERE simhash IS NOT NULL AND id > $1 ORDER BY id LIMIT $2',
        [after, PAGE * 16],
      );
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
    const { rows } = await run<{ url: string }>(
      this.pool,
      'SELECT coalesce(u.fetch_url, u.url) AS url FROM duplicates d JOIN urls u ON u.id = d.url_id WHERE d.doc_id = $1 ORDER BY u.id',
      [doc.id],
    );
    return [doc.url, ...rows.map((r) => r.url)];
  }

  async sequencesOf(ids: readonly number[], stemming: string): Promise<Map<number, Uint32Array>> {
    const { rows } = await run<{ id: number; tokens: Buffer }>(this.pool, 'SELECT id, tokens FROM sequences WHERE id = ANY($1::bigint[]) AND stemming = $2', [
      ids,
      stemming,
    ]);
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
