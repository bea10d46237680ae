/** The search log in SQLite: a row a search (its page's URLs and its prefixes as JSON), a row a click. */
import type { DayReport, LoggedSearch, QueryReport, SearchClick, SearchSource } from '../../model/index.ts';
import type { SearchLogStore } from '../analytics.ts';
import type { Db } from './db.ts';

type SearchRow = {
  id: string;
  at: number;
  session: string | null;
  source: string;
  query: string;
  understood: string;
  filters: string;
  page: number;
  total: number;
  shown: string;
  took_ms: number;
  prefixes: string;
};

const searchFromRow = (r: SearchRow): LoggedSearch => ({
  id: r.id,
  at: r.at,
  ...(r.session ? { session: r.session } : {}),
  source: r.source as SearchSource,
  query: r.query,
  understood: r.understood,
  filters: JSON.parse(r.filters) as Record<string, string>,
  page: r.page,
  total: r.total,
  shown: JSON.parse(r.shown) as string[],
  tookMs: r.took_ms,
  prefixes: JSON.parse(r.prefixes) as string[],
});

type ClickRow = { search_id: string; at: number; position: number; url: string };
const clickFromRow = (r: ClickRow): SearchClick => ({ searchId: r.search_id, at: r.at, position: r.position, url: r.url });

export class SqliteSearchLog implements SearchLogStore {
  private readonly stmts;

  readonly writable: boolean;

  constructor(private readonly db: Db) {
    this.writable = !db.readonly;
    this.stmts = {
      putSearch: db.prepare(
        `INSERT OR IGNORE INTO searches (id, at, session, source, query, understood, filters, page, total, shown, took_ms, prefixes)
         VALUES (@id, @at, @session, @source, @query, @understood, @filters, @page, @total, @shown, @tookMs, @prefixes)`,
      ),
      putClick: db.prepare('INSERT INTO search_clicks (search_id, at, position, url) VALUES (?, ?, ?, ?)'),
      search: db.prepare('SELECT * FROM searches WHERE id = ?'),
      since: db.prepare('SELECT * FROM searches WHERE at >= ? ORDER BY at, id LIMIT ?'),
      clicksOf: db.prepare('SELECT * FROM search_clicks WHERE search_id IN (SELECT value FROM json_each(?)) ORDER BY at, rowid'),
      // (Each search's first click: the earliest, by the order clicks were written.)
      queries: db.prepare(
        `WITH s AS (SELECT id, understood, total FROM searches WHERE at >= @since AND at < @until),
         c AS (SELECT search_id, position, row_number() OVER (PARTITION BY search_id ORDER BY at, rowid) AS k
               FROM search_clicks WHERE search_id IN (SELECT id FROM s))
         SELECT s.understood AS query, count(*) AS searches, count(c.search_id) AS clicked, avg(c.position) AS firstClickPosition,
                sum(s.total = 0) AS noResults
         FROM s LEFT JOIN c ON c.search_id = s.id AND c.k = 1
         GROUP BY s.understood ORDER BY searches DESC, query LIMIT @limit`,
      ),
      days: db.prepare(
        `SELECT date(at / 1000, 'unixepoch') AS day, count(*) AS searches,
                sum(EXISTS (SELECT 1 FROM search_clicks c WHERE c.search_id = s.id)) AS clicked
         FROM searches s WHERE at >= ? AND at < ? GROUP BY day ORDER BY day`,
      ),
      pruneClicks: db.prepare('DELETE FROM search_clicks WHERE search_id IN (SELECT id FROM searches WHERE at < ?)'),
      prune: db.prepare('DELETE FROM searches WHERE at < ?'),
    };
  }

  async append(searches: readonly LoggedSearch[], clicks: readonly SearchClick[]): Promise<void> {
    this.db.transaction(() => {
      for (const s of searches)
        this.stmts.putSearch.run({
          ...s,
          session: s.session ?? null,
          filters: JSON.stringify(s.filters),
          shown: JSON.stringify(s.shown),
          prefixes: JSON.stringify(s.prefixes),
        });
      for (const c of clicks) this.stmts.putClick.run(c.searchId, c.at, c.position, c.url);
    })();
  }

  async search(id: string): Promise<LoggedSearch | undefined> {
    const row = this.stmts.search.get(id) as SearchRow | undefined;
    return row && searchFromRow(row);
  }

  async searches(since: number, limit: number): Promise<LoggedSearch[]> {
    return (this.stmts.since.all(since, limit) as SearchRow[]).map(searchFromRow);
  }

  async clicksOf(searchIds: readonly string[]): Promise<SearchClick[]> {
    return (this.stmts.clicksOf.all(JSON.stringify(searchIds)) as ClickRow[]).map(clickFromRow);
  }

  async queries(since: number, until: number, limit: number): Promise<QueryReport[]> {
    return this.stmts.queries.all({ since, until, limit }) as QueryReport[];
  }

  async days(since: number, until: number): Promise<DayReport[]> {
    return this.stmts.days.all(since, until) as DayReport[];
  }

  async prune(before: number): Promise<number> {
    return this.db.transaction(() => {
      this.stmts.pruneClicks.run(before);
      return this.stmts.prune.run(before).changes;
    })();
  }
}
