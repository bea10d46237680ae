/** The search log in PostgreSQL: every search node writes to one log (a batch a round trip). */
import type pg from 'pg';
import type { DayReport, LoggedSearch, QueryReport, SearchClick, SearchSource } from '../../model/index.ts';
import type { SearchLogStore } from '../analytics.ts';
import { run } from './db.ts';

type SearchRow = {
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
};

const searchFromRow = (r: SearchRow): LoggedSearch => ({
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
});

type ClickRow = { search_id: string; at: string; position: number; url: string };

export class PgSearchLog implements SearchLogStore {
  readonly writable = true;

  constructor(private readonly pool: pg.Pool) {}

  async append(searches: readonly LoggedSearch[], clicks: readonly SearchClick[]): Promise<void> {
    if (!searches.length && !clicks.length) return;
    // (One statement for both, so that a batch is one round trip and all or nothing.)
    await run(
      this.pool,
      `WITH s AS (
         INSERT INTO searches (id, at, session, source, query, understood, filters, page, total, shown, took_ms, prefixes)
         SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, at bigint, session text, source text, query text, understood text,
           filters jsonb, page integer, total integer, shown jsonb, took_ms double precision, prefixes jsonb)
         ON CONFLICT (id) DO NOTHING
       )
       INSERT INTO search_clicks (search_id, at, position, url)
       SELECT * FROM jsonb_to_recordset($2::jsonb) AS y(search_id text, at bigint, position integer, url text)`,
      [
        JSON.stringify(searches.map((s) => ({ ...s, session: s.session ?? null, took_ms: s.tookMs }))),
        JSON.stringify(clicks.map((c) => ({ search_id: c.searchId, at: c.at, position: c.position, url: c.url }))),
      ],
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

  async queries(since: number, until: number, limit: number): Promise<QueryReport[]> {
    const { rows } = await run<{ query: string; searches: number; clicked: number; first: number | null; empty: number }>(
      this.pool,
      `WITH s AS (SELECT id, understood, total FROM searches WHERE at >= $1 AND at < $2),
       c AS (SELECT search_id, position, row_number() OVER (PARTITION BY search_id ORDER BY at, n) AS k
             FROM search_clicks WHERE search_id IN (SELECT id FROM s))
       SELECT s.understood AS query, count(*)::int AS searches, count(c.search_id)::int AS clicked, avg(c.position)::float8 AS first,
              count(*) FILTER (WHERE s.total = 0)::int AS empty
       FROM s LEFT JOIN c ON c.search_id = s.id AND c.k = 1
       GROUP BY s.understood ORDER BY searches DESC, s.understood COLLATE "C" LIMIT $3`,
      [since, until, limit],
    );
    return rows.map((r) => ({ query: r.query, searches: r.searches, clicked: r.clicked, firstClickPosition: r.first, noResults: r.empty }));
  }

  async days(since: number, until: number): Promise<DayReport[]> {
    const { rows } = await run<DayReport>(
      this.pool,
      `SELECT to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS searches,
              count(*) FILTER (WHERE EXISTS (SELECT 1 FROM search_clicks c WHERE c.search_id = s.id))::int AS clicked
       FROM searches s WHERE at >= $1 AND at < $2 GROUP BY day ORDER BY day`,
      [since, until],
    );
    return rows;
  }

  async prune(before: number): Promise<number> {
    const { rowCount } = await run(
      this.pool,
      `WITH gone AS (DELETE FROM searches WHERE at < $1 RETURNING id), clicks AS (DELETE FROM search_clicks WHERE search_id IN (SELECT id FROM gone))
       SELECT 1 FROM gone`,
      [before],
    );
    return rowCount ?? 0;
  }
}
