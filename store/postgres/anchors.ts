/**
 * Inbound link text in PostgreSQL: one row per (target, text) with the number of links carrying
 * it, as in SQLite (store/sqlite/anchors.ts says why). Links are counted in RAM and written by
 * `write()` in one transaction of array upserts; rows are sent sorted, so that two workers writing
 * the same popular targets lock them in the same order and never deadlock.
 */
import type pg from 'pg';
import type { AnchorLink, Anchors } from '../../model/index.ts';
import { MAX_ANCHOR_TEXT, MAX_ANCHORS_READ, type AnchorStore } from '../anchors.ts';
import { BatchedReads } from '../../lib/batched-reads.ts';
import { run, transaction } from './db.ts';

/** Rows per upsert statement. */
const ROWS_PER_UPSERT = 5_000;
/** Buffered distinct rows that start a write without waiting for the appliance's. */
const WRITE_EVERY_ROWS = 20_000;

const UPSERT = `INSERT INTO anchors (target, text, links) SELECT * FROM unnest($1::text[], $2::text[], $3::bigint[])
  ON CONFLICT (target, text) DO UPDATE SET links = anchors.links + excluded.links`;

export class PgAnchorStore implements AnchorStore {
  /** Links waiting to be written: "target\0text" → count. */
  private buffer = new Map<string, number>();
  /** A write started by add() when the buffer filled: the next write() waits for it and reports its failure. */
  private pending: Promise<void> | undefined;

  /**
   * Pages' anchors asked for in one turn are read by one statement (ofMany): the pages of a group
   * commit reach the index together, and each asks for its own — a round trip a page before
   * (bench/scale: 1.06 reads a page).
   */
  private readonly reads = new BatchedReads<number, Anchors>(
    (ids) => this.ofMany(ids),
    async (id) => (await this.ofMany([id])).get(id)!,
  );

  constructor(private readonly pool: pg.Pool) {}

  add(source: string, links: Iterable<AnchorLink>): void {
    for (const { target, text } of links) {
      if (target === source) continue;
      const t = text.trim().slice(0, MAX_ANCHOR_TEXT);
      if (!t) continue;
      const key = `${target}\0${t}`;
      this.buffer.set(key, (this.buffer.get(key) ?? 0) + 1);
    }
    if (this.buffer.size >= WRITE_EVERY_ROWS && !this.pending) {
      const started = this.writeBuffer();
      // (Caught here so that a failure is not an unhandled rejection; write() rethrows it.)
      this.pending = started.catch((e: unknown) => {
        this.pending = Promise.reject(e as Error);
        this.pending.catch(() => undefined);
      });
    }
  }

  async write(): Promise<void> {
    const before = this.pending;
    this.pending = undefined;
    await before;
    await this.writeBuffer();
  }

  get buffered(): number {
    return this.buffer.size;
  }

  of(id: number): Promise<Anchors> {
    return this.reads.get(id);
  }

  async ofMany(ids: readonly number[]): Promise<Map<number, Anchors>> {
    const out = new Map(ids.map((id) => [id, { texts: [] as string[], sources: 0 }]));
    if (!ids.length) return out;
    // (For each page: its most used texts, and all its links counted by a window over the same
    // rows before the limit — one scan of the primary key's target prefix a page. A
    // window over all the pages' joined rows took 4.6 ms a call of 16 pages: bench/scale.)
    const { rows } = await run<{ id: number; text: string; sources: number }>(
      this.pool,
      `SELECT u.id, t.text, t.sources FROM urls u
        CROSS JOIN LATERAL (SELECT a.text, a.links, sum(a.links) OVER ()::bigint AS sources FROM anchors a WHERE a.target = u.url
          ORDER BY a.links DESC, a.text LIMIT ${MAX_ANCHORS_READ}) t
        WHERE u.id = ANY($1::bigint[]) ORDER BY u.id, t.links DESC, t.text`,
      [ids],
    );
    for (const r of rows) {
      const a = out.get(Number(r.id))!;
      a.texts.push(r.text);
      a.sources = Number(r.sources);
    }
    return out;
  }

  /** Writes what was counted so far, sorted, in one transaction. */
  private async writeBuffer(): Promise<void> {
    if (!this.buffer.size) return;
    const rows = [...this.buffer].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    this.buffer = new Map();
    await transaction(this.pool, async (q) => {
      for (let i = 0; i < rows.length; i += ROWS_PER_UPSERT) {
        const chunk = rows.slice(i, i + ROWS_PER_UPSERT);
        const cut = chunk.map(([key]) => key.indexOf('\0'));
        await run(q, UPSERT, [chunk.map(([key], j) => key.slice(0, cut[j])), chunk.map(([key], j) => key.slice(cut[j]! + 1)), chunk.map(([, n]) => n)]);
      }
    });
  }
}
