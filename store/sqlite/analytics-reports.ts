/** The search console's reports in SQLite: sums over the rollups (db.ts ROLLUPS), a day a row. */
import { DAY_MS, type DayReport, daysOf, type QueryListing, type QueryReport, type RefinementReport, type ReportRange } from '../../model/index.ts';
import type { SearchReportStore } from '../analytics-reports.ts';
import { clickFromRow, type ClickRow, searchFromRow, type SearchRow } from './analytics.ts';
import type { Db } from './db.ts';

// (A filter not asked for matches every row: one statement serves every combination.)
const IN_RANGE = `day BETWEEN @first AND @last AND (@site IS NULL OR site = @site) AND (@lang IS NULL OR lang = @lang)
  AND (@type IS NULL OR type = @type)`;
const SUMS = `query, sum(searches) AS searches, sum(clicked) AS clicked, sum(first_clicks) * 1.0 / nullif(sum(clicked), 0) AS firstClickPosition,
  sum(no_results) AS noResults FROM search_days WHERE ${IN_RANGE} GROUP BY query`;
const LISTINGS: Record<QueryListing, string> = {
  top: `SELECT ${SUMS} ORDER BY searches DESC, query LIMIT @limit`,
  'no-results': `SELECT ${SUMS} HAVING noResults > 0 ORDER BY noResults DESC, query LIMIT @limit`,
  'no-clicks': `SELECT ${SUMS} HAVING searches > noResults AND clicked = 0 ORDER BY searches DESC, query LIMIT @limit`,
};

export class SqliteSearchReports implements SearchReportStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      listings: Object.fromEntries(Object.entries(LISTINGS).map(([k, sql]) => [k, db.prepare(sql)])) as Record<QueryListing, ReturnType<Db['prepare']>>,
      days: db.prepare(
        `SELECT day * ${DAY_MS} AS at, sum(searches) AS searches, sum(clicked) AS clicked FROM search_days WHERE ${IN_RANGE} GROUP BY day ORDER BY day`,
      ),
      // (Refinements are kept without filters: A and B may carry different ones.)
      refinements: db.prepare(
        `SELECT from_query AS "from", to_query AS "to", sum(searches) AS searches, sum(from_clicked) AS fromClicked, sum(to_clicked) AS toClicked
         FROM search_refinements WHERE day BETWEEN @first AND @last GROUP BY from_query, to_query ORDER BY searches DESC, "from", "to" LIMIT @limit`,
      ),
      recent: db.prepare('SELECT * FROM searches WHERE understood = ? AND at >= ? AND at < ? ORDER BY at DESC, id LIMIT ?'),
      clicksOf: db.prepare('SELECT * FROM search_clicks WHERE search_id IN (SELECT value FROM json_each(?)) ORDER BY at, rowid'),
    };
  }

  async queries(range: ReportRange, limit: number, listing: QueryListing = 'top'): Promise<QueryReport[]> {
    return this.stmts.listings[listing].all({ ...params(range), limit }) as QueryReport[];
  }

  async days(range: ReportRange): Promise<DayReport[]> {
    const rows = this.stmts.days.all(params(range)) as { at: number; searches: number; clicked: number }[];
    return rows.map((r) => ({ day: new Date(r.at).toISOString().slice(0, 10), searches: r.searches, clicked: r.clicked }));
  }

  async refinements(range: ReportRange, limit: number): Promise<RefinementReport[]> {
    const { first, last } = daysOf(range);
    return this.stmts.refinements.all({ first, last, limit }) as RefinementReport[];
  }

  async recentSearches(query: string, range: ReportRange, limit: number) {
    const { first, last } = daysOf(range);
    const searches = (this.stmts.recent.all(query, first * DAY_MS, (last + 1) * DAY_MS, limit) as SearchRow[]).map(searchFromRow);
    const clicks = (this.stmts.clicksOf.all(JSON.stringify(searches.map((s) => s.id))) as ClickRow[]).map(clickFromRow);
    return { searches, clicks };
  }
}

function params(range: ReportRange) {
  const f = range.filters ?? {};
  return { ...daysOf(range), site: f.site ?? null, lang: f.lang ?? null, type: f.type ?? null };
}
