/** The search log in PostgreSQL: every search node writes to one log (a batch a round trip). */
import type pg from 'pg';
import { dayOf, type LoggedSearch, type SearchClick, type SearchSource } from '../../model/index.ts';
import type { SearchLogStore } from '../analytics.ts';
import { run, transaction } from './db.ts';

export type SearchRow = {
  id: string;
  at: string;
  session: string | null;
  source: string;
  query: string;
  understood: string;
  filters: Record<string, string>;
  page: number;
  total: number;
  shown: string[];
  took_ms: number;
  prefixes: string[];
  refines: string | null;
};

export const searchFromRow = (r: SearchRow): LoggedSearch => ({
  id: r.id,
  at: Number(r.at),
  ...(r.session ? { session: r.session } : {}),
  source: r.source as SearchSource,
  query: r.query,
  understood: r.understood,
  filters: r.filters,
  page: r.page,
  total: r.total,
  shown: r.shown,
  tookMs: r.took_ms,
  prefixes: r.prefixes,
  ...(r.refines ? { refines: r.refines } : {}),
});

export type ClickRow = { search_id: string; at: string; position: number; url: string };

export class PgSearchLog implements SearchLogStore {
  readonly writable = true;

  constructor(private readonly pool: pg.Pool) {}

  async append(searches: readonly LoggedSearch[], clicks: readonly SearchClick[]): Promise<void> {
    if (!searches.length && !clicks.length) return;
    // (Searches, then clicks, in one transaction: two statements, so that a search's rollup trigger
    // never sees a click written after it — migrations.ts SEARCH_ROLLUPS.)
    await transaction(
      this.pool,
      async (c) => {
        if (searches.length)
          await c.query(
            `INSERT INTO searches (id, at, session, source, query, understood, filters, page, total, shown, took_ms, prefixes, refines)
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, at bigint, session text, source text, query text, understood text,
             filters jsonb, page integer, total integer, shown jsonb, took_ms double precision, prefixes jsonb, refines text)
           ON CONFLICT (id) DO NOTHING`,
            [JSON.stringify(searches.map((s) => ({ ...s, session: s.session ?? null, took_ms: s.tookMs, refines: s.refines ?? null })))],
          );
        if (clicks.length)
          await c.query(
            `INSERT INTO search_clicks (search_id, at, position, url)
           SELECT * FROM jsonb_to_recordset($1::jsonb) AS y(search_id text, at bigint, position integer, url text)`,
            [JSON.stringify(clicks.map((c) => ({ search_id: c.searchId, at: c.at, position: c.position, url: c.url })))],
          );
        // (READ WRITE: a search node opens the store read-only for the crawl's state, and writes the log.)
      },
      { readWrite: true },
    );
  }

  async search(id: string): Promise<LoggedSearch | undefined> {
    const row = (await run<SearchRow>(this.pool, 'SELECT * FROM searches WHERE id = $1', [id])).rows[0];
    return row && searchFromRow(row);
  }

  async searches(since: number, limit: number): Promise<LoggedSearch[]> {
    return (await run<SearchRow>(this.pool, 'SELECT * FROM searches WHERE at >= $1 ORDER BY at, id LIMIT $2', [since, limit])).rows.map(searchFromRow);
  }

  async clicksOf(searchIds: readonly string[]): Promise<SearchClick[]> {
    const { rows } = await run<ClickRow>(this.pool, 'SELECT * FROM search_clicks WHERE search_id = ANY($1::text[]) ORDER BY at, n', [searchIds]);
    return rows.map((r) => ({ searchId: r.search_id, at: Number(r.at), position: r.position, url: r.url }));
  }

  async prune(before: number): Promise<number> {
    const { rowCount } = await run(
      this.pool,
      `WITH gone AS (DELETE FROM searches WHERE at < $1 RETURNING id), clicks AS (DELETE FROM search_clicks WHERE search_id IN (SELECT id FROM gone)),
       days AS (DELETE FROM search_days WHERE day < $2), refinements AS (DELETE FROM search_refinements WHERE day < $2)
       SELECT 1 FROM gone`,
      [before, dayOf(before)],
    );
    return rowCount ?? 0;
  }
}
