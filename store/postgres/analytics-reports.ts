/** The search console's reports in PostgreSQL: sums over the rollups (migrations.ts SEARCH_ROLLUPS), a day a row. */
import type pg from 'pg';
import {
  DAY_MS,
  type DayReport,
  daysOf,
  type QueryListing,
  type QueryReport,
  type RefinementReport,
  type ReportRange,
  type SearchClick,
} from '../../model/index.ts';
import type { SearchReportStore } from '../analytics-reports.ts';
import { type ClickRow, searchFromRow, type SearchRow } from './analytics.ts';
import { run } from './db.ts';

// (A filter not asked for matches every row: $3–$5 null.)
const IN_RANGE = 'day BETWEEN $1 AND $2 AND ($3::text IS NULL OR site = $3) AND ($4::text IS NULL OR lang = $4) AND ($5::text IS NULL OR type = $5)';
const SUMS = `query, sum(searches)::int AS searches, sum(clicked)::int AS clicked,
  (sum(first_clicks)::float8 / nullif(sum(clicked), 0)) AS "firstClickPosition", sum(no_results)::int AS "noResults"
  FROM search_days WHERE ${IN_RANGE} GROUP BY query`;
const LISTINGS: Record<QueryListing, string> = {
  top: `SELECT ${SUMS} ORDER BY searches DESC, query COLLATE "C" LIMIT $6`,
  'no-results': `SELECT ${SUMS} HAVING sum(no_results) > 0 ORDER BY "noResults" DESC, query COLLATE "C" LIMIT $6`,
  'no-clicks': `SELECT ${SUMS} HAVING sum(searches) > sum(no_results) AND sum(clicked) = 0 ORDER BY searches DESC, query COLLATE "C" LIMIT $6`,
};

export class PgSearchReports implements SearchReportStore {
  constructor(private readonly pool: pg.Pool) {}

  async queries(range: ReportRange, limit: number, listing: QueryListing = 'top'): Promise<QueryReport[]> {
    return (await run<QueryReport>(this.pool, LISTINGS[listing], [...params(range), limit])).rows;
  }

  async days(range: ReportRange): Promise<DayReport[]> {
    const { rows } = await run<{ day: number; searches: number; clicked: number }>(
      this.pool,
      `SELECT day, sum(searches)::int AS searches, sum(clicked)::int AS clicked FROM search_days WHERE ${IN_RANGE} GROUP BY day ORDER BY day`,
      params(range),
    );
    return rows.map((r) => ({ day: new Date(r.day * DAY_MS).toISOString().slice(0, 10), searches: r.searches, clicked: r.clicked }));
  }

  async refinements(range: ReportRange, limit: number): Promise<RefinementReport[]> {
    const { first, last } = daysOf(range);
    const { rows } = await run<RefinementReport>(
      this.pool,
      `SELECT from_query AS "from", to_query AS "to", sum(searches)::int AS searches, sum(from_clicked)::int AS "fromClicked",
              sum(to_clicked)::int AS "toClicked"
       FROM search_refinements WHERE day BETWEEN $1 AND $2 GROUP BY from_query, to_query
       ORDER BY searches DESC, from_query COLLATE "C", to_query COLLATE "C" LIMIT $3`,
      [first, last, limit],
    );
    return rows;
  }

  async recentSearches(query: string, range: ReportRange, limit: number) {
    const { first, last } = daysOf(range);
    const found = await run<SearchRow>(this.pool, 'SELECT * FROM searches WHERE understood = $1 AND at >= $2 AND at < $3 ORDER BY at DESC, id LIMIT $4', [
      query,
      first * DAY_MS,
      (last + 1) * DAY_MS,
      limit,
    ]);
    const searches = found.rows.map(searchFromRow);
    const { rows } = await run<ClickRow>(this.pool, 'SELECT * FROM search_clicks WHERE search_id = ANY($1::text[]) ORDER BY at, n', [
      searches.map((s) => s.id),
    ]);
    const clicks: SearchClick[] = rows.map((r) => ({ searchId: r.search_id, at: Number(r.at), position: r.position, url: r.url }));
    return { searches, clicks };
  }
}

function params(range: ReportRange): unknown[] {
  const f = range.filters ?? {};
  const { first, last } = daysOf(range);
  return [first, last, f.site ?? null, f.lang ?? null, f.type ?? null];
}
