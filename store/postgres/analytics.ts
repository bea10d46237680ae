/** The search log in PostgreSQL: every search node writes to one log (a batch a round trip). */
import type pg from 'pg';
import type { LoggedSearch, SearchClick, SearchSource } from '../../model/index.ts';
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
