/**
 * Inbound link text in SQLite. The words other pages use to link to a page are often the words
 * people search for it by (the PostgreSQL docs link `shared_buffers` to the page that defines
 * it): the index gives them a field of their own, and the number of links in is a prior.
 *
 * One row per (target, text) with the number of links that carry it, keyed by the target's
 * identity URL, so that links to pages not fetched yet count too. Navigation repeats the same
 * links on every page: on rust-doc, 3.4 million links are ~200,000 rows.
 */
import type { Statement } from 'better-sqlite3';
import type { AnchorLink, Anchors } from '../../model/index.ts';
import { MAX_ANCHOR_TEXT, MAX_ANCHORS_READ, type AnchorStore } from '../anchors.ts';
import type { Db } from './db.ts';

/** Rows per INSERT statement (3 parameters each; SQLite allows 32,766). */
const ROWS_PER_INSERT = 64;
/** Buffered distinct rows that trigger a write. */
const WRITE_EVERY_ROWS = 20_000;
/** Rows written in one transaction: 20,000 at once held the main thread ~90 ms (rust-doc). */
const ROWS_PER_WRITE = 2_000;

export class SqliteAnchorStore implements AnchorStore {
  private readonly stmts;
  private readonly inserts = new Map<number, Statement>();
  /** Links waiting to be written: "target\0text" → count. */
  private readonly buffer = new Map<string, number>();
  /** The write under way, if any. */
  private writing: Promise<void> | undefined;

  constructor(private readonly db: Db) {
    this.stmts = {
      texts: db.prepare(
        `SELECT a.text, a.links FROM urls u JOIN anchors a ON a.target = u.url WHERE u.id = ? ORDER BY a.links DESC, a.text LIMIT ${MAX_ANCHORS_READ}`,
      ),
      links: db.prepare('SELECT coalesce(sum(a.links), 0) AS n FROM urls u JOIN anchors a ON a.target = u.url WHERE u.id = ?'),
    };
  }

  /**
   * Records the links of the page whose identity is `source` (its links to itself do not count).
   * Empty texts are skipped. Links are counted in memory and written by `write()` in a few
   * transactions of multi-row upserts: anchors are a ranking signal derived from pages, and writing
   * them with each page cost a tenth of the crawl's main thread (bench/crawl). A crash loses what
   * came since the last write (the appliance writes at least every second).
   */
  add(source: string, links: Iterable<AnchorLink>): void {
    for (const { target, text } of links) {
      if (target === source) continue;
      const t = text.trim().slice(0, MAX_ANCHOR_TEXT);
      if (!t) continue;
      const key = `${target}\0${t}`;
      this.buffer.set(key, (this.buffer.get(key) ?? 0) + 1);
    }
    // (A failure puts its rows back: the appliance's next write tells it, in the log.)
    if (this.buffer.size >= WRITE_EVERY_ROWS) void this.write().catch(() => undefined);
  }

  /**
   * Writes the counted links, ROWS_PER_WRITE to a transaction with a turn of the event loop
   * between two, so that a search waits behind one of them at most; rows counted meanwhile are
   * written too. One write at a time: a call during one resolves with it.
   */
  write(): Promise<void> {
    this.writing ??= (async () => {
      while (this.buffer.size) {
        this.writeRows(ROWS_PER_WRITE);
        if (this.buffer.size) await new Promise((resolve) => setImmediate(resolve));
      }
    })().finally(() => (this.writing = undefined));
    return this.writing;
  }

  /** Writes every counted link at once (at close: nothing may wait for a later turn). */
  writeNow(): void {
    this.writeRows(Infinity);
  }

  /** Writes the first `max` counted links in one transaction (of multi-row upserts); on a failure they are counted again. */
  private writeRows(max: number): void {
    const rows: [string, number][] = [];
    for (const row of this.buffer) if (rows.push(row) >= max) break;
    for (const [key] of rows) this.buffer.delete(key);
    try {
      this.db.transaction(() => {
        for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
          const values: (string | number)[] = [];
          for (const [key, n] of rows.slice(i, i + ROWS_PER_INSERT)) {
            const cut = key.indexOf('\0');
            values.push(key.slice(0, cut), key.slice(cut + 1), n);
          }
          this.insert(values.length / 3).run(...values);
        }
      })();
    } catch (e) {
      for (const [key, n] of rows) this.buffer.set(key, (this.buffer.get(key) ?? 0) + n);
      throw e;
    }
  }

  /** Distinct (target, text) pairs waiting to be written. */
  get buffered(): number {
    return this.buffer.size;
  }

  async of(id: number): Promise<Anchors> {
    const rows = this.stmts.texts.all(id) as { text: string; links: number }[];
    if (!rows.length) return { texts: [], sources: 0 };
    const sources = rows.length < MAX_ANCHORS_READ ? rows.reduce((s, r) => s + r.links, 0) : (this.stmts.links.get(id) as { n: number }).n;
    return { texts: rows.map((r) => r.text), sources };
  }

  /** (SQLite is in this process: a statement a page costs no round trip.) */
  async ofMany(ids: readonly number[]): Promise<Map<number, Anchors>> {
    const out = new Map<number, Anchors>();
    for (const id of ids) out.set(id, await this.of(id));
    return out;
  }

  /** The upsert for `rows` rows (prepared once per size). */
  private insert(rows: number): Statement {
    let stmt = this.inserts.get(rows);
    if (!stmt) {
      stmt = this.db.prepare(
        `INSERT INTO anchors (target, text, links) VALUES ${Array(rows).fill('(?, ?, ?)').join(', ')} ` +
          'ON CONFLICT (target, text) DO UPDATE SET links = links + excluded.links',
      );
      this.inserts.set(rows, stmt);
    }
    return stmt;
  }
}
