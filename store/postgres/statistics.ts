/**
 * The planner's statistics of the tables a crawl grows, kept current while it grows them.
 *
 * A crawl on a new database grows `urls` and `documents` from nothing to tens of thousands of rows
 * in a minute or two — sooner than autovacuum analyzes them (it looks once a minute by default, and
 * then only at 10 % more rows). Until then the planner takes each for the few rows it held when
 * last analyzed, and the store's prepared statements keep plans made for that: the group commit's
 * update of its URLs' records and its content-seen lookup by hash scanned the whole table (a hash
 * join over a sequential scan, 5–17 ms a call at 14,000 documents, against a fraction of a
 * millisecond by their indexes; auto_explain, bench/scale). So a writer analyzes them itself each
 * time the rows it added have doubled, from FIRST_ANALYZE on: a handful of ANALYZEs a crawl (each
 * reads a sample of at most 30,000 rows), off the commit path; ANALYZE also invalidates the cached
 * plans of the statements that read them.
 */
import type pg from 'pg';

/** Rows added (URLs queued, documents stored) before the first ANALYZE; each next one at twice as many. */
export const FIRST_ANALYZE = 1_000;

/** What several writers analyzing at once would only repeat: one at a time (an advisory lock's key). */
const ANALYZE_LOCK = "hashtextextended('trawl: analyze', 0)";

export class TableStatistics {
  private added = 0;
  private next = FIRST_ANALYZE;
  private running: Promise<void> | undefined;
  /** ANALYZEs run by this writer (tests, bench/scale). */
  analyzed = 0;

  constructor(private readonly pool: pg.Pool) {}

  /** This writer added `rows` rows to the growing tables; analyzes them when they have doubled. */
  grew(rows: number): void {
    this.added += rows;
    if (this.running || this.added < this.next) return;
    this.next = this.added * 2;
    // (A failure costs only plans: autovacuum still analyzes in its own time. A user who does not
    // own the tables gets a warning from PostgreSQL, not an error.)
    this.running = this.analyze()
      .catch(() => undefined)
      .finally(() => (this.running = undefined));
  }

  /** The ANALYZE under way, if any (tests; close waits for it). */
  settled(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  private async analyze(): Promise<void> {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query<{ got: boolean }>(`SELECT pg_try_advisory_lock(${ANALYZE_LOCK}) AS got`);
      if (!rows[0]?.got) return;
      try {
        await client.query('ANALYZE urls, documents');
        this.analyzed++;
      } finally {
        await client.query(`SELECT pg_advisory_unlock(${ANALYZE_LOCK})`);
      }
    } finally {
      client.release();
    }
  }
}
