/**
 * Inbound link text. The words other pages use to link to a page are often the words people search
 * for it by (the PostgreSQL docs link `shared_buffers` to the page that defines it): the index
 * gives them a field of their own, and the number of pages linking in is a prior.
 *
 * Rows are keyed by the target's identity URL, so that links to pages not fetched yet count too;
 * one row per (target, source page, text).
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

/** Anchor texts kept per link (longer ones are cut). */
export const MAX_ANCHOR_TEXT = 120;
/** Rows per INSERT statement (3 parameters each; SQLite allows 32,766). */
const ROWS_PER_INSERT = 64;
/** Buffered rows that trigger a write. */
const WRITE_EVERY_ROWS = 20_000;
/** Anchor texts read per page (its most linked-in page would otherwise cost a scan). */
const MAX_ANCHORS_READ = 300;

export type Anchors = {
  /** Anchor texts of links to the page, one per (source page, text). */
  readonly texts: readonly string[];
  /** Distinct pages linking to it. */
  readonly sources: number;
};

export class AnchorStore {
  private readonly stmts;
  private readonly inserts = new Map<number, Statement>();
  private buffer: (string | number)[] = [];

  constructor(private readonly db: Db) {
    this.stmts = {
      texts: db.prepare(`SELECT a.text FROM urls u JOIN anchors a ON a.target = u.url WHERE u.id = ? AND a.source != u.id LIMIT ${MAX_ANCHORS_READ}`),
      sources: db.prepare('SELECT count(DISTINCT a.source) AS n FROM urls u JOIN anchors a ON a.target = u.url WHERE u.id = ? AND a.source != u.id'),
    };
  }

  /**
   * Records the links of page `source`. Empty texts are skipped. Rows are buffered and written by
   * `write()` in one transaction of multi-row INSERTs: anchors are a ranking signal derived from
   * pages, and writing them with each page's own transaction cost a tenth of the crawl's main
   * thread (bench/crawl). A crash loses at most the buffered rows (WRITE_EVERY_ROWS, or what came
   * since the last write — the appliance writes at least every second).
   */
  add(source: number, links: Iterable<{ readonly target: string; readonly text: string }>): void {
    for (const { target, text } of links) {
      const t = text.trim().slice(0, MAX_ANCHOR_TEXT);
      if (t) this.buffer.push(target, source, t);
    }
    if (this.buffer.length >= WRITE_EVERY_ROWS * 3) this.write();
  }

  /** Writes the buffered rows. */
  write(): void {
    if (!this.buffer.length) return;
    const values = this.buffer;
    this.buffer = [];
    this.db.transaction(() => {
      const chunk = ROWS_PER_INSERT * 3;
      for (let i = 0; i < values.length; i += chunk) {
        const part = values.slice(i, i + chunk);
        this.insert(part.length / 3).run(...part);
      }
    })();
  }

  /** Rows waiting to be written. */
  get buffered(): number {
    return this.buffer.length / 3;
  }

  /** The INSERT statement for `rows` rows (prepared once per size). */
  private insert(rows: number): Statement {
    let stmt = this.inserts.get(rows);
    if (!stmt) {
      stmt = this.db.prepare(`INSERT INTO anchors (target, source, text) VALUES ${Array(rows).fill('(?, ?, ?)').join(', ')} ON CONFLICT DO NOTHING`);
      this.inserts.set(rows, stmt);
    }
    return stmt;
  }

  /** The anchors of links to the page with URL id `id` (its own links to itself excluded; written rows only). */
  of(id: number): Anchors {
    const texts = (this.stmts.texts.all(id) as { text: string }[]).map((r) => r.text);
    return { texts, sources: texts.length ? (this.stmts.sources.get(id) as { n: number }).n : 0 };
  }
}
