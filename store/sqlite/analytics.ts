/** The search log in SQLite: a row a search (its page's URLs and its prefixes as JSON), a row a click. */
import { dayOf, type LoggedSearch, type SearchClick, type SearchSource } from '../../model/index.ts';
import type { SearchLogStore } from '../analytics.ts';
import type { Db } from './db.ts';

export type SearchRow = {
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
  refines: string | null;
};

export const searchFromRow = (r: SearchRow): LoggedSearch => ({
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
  ...(r.refines ? { refines: r.refines } : {}),
});

export type ClickRow = { search_id: string; at: number; position: number; url: string };
export const clickFromRow = (r: ClickRow): SearchClick => ({ searchId: r.search_id, at: r.at, position: r.position, url: r.url });

export class SqliteSearchLog implements SearchLogStore {
  private readonly stmts;

  readonly writable: boolean;

  constructor(private readonly db: Db) {
    this.writable = !db.readonly;
    this.stmts = {
      putSearch: db.prepare(
        `INSERT OR IGNORE INTO searches (id, at, session, source, query, understood, filters, page, total, shown, took_ms, prefixes, refines)
         VALUES (@id, @at, @session, @source, @query, @understood, @filters, @page, @total, @shown, @tookMs, @prefixes, @refines)`,
      ),
      putClick: db.prepare('INSERT INTO search_clicks (search_id, at, position, url) VALUES (?, ?, ?, ?)'),
      search: db.prepare('SELECT * FROM searches WHERE id = ?'),
      since: db.prepare('SELECT * FROM searches WHERE at >= ? ORDER BY at, id LIMIT ?'),
      clicksOf: db.prepare('SELECT * FROM search_clicks WHERE search_id IN (SELECT value FROM json_each(?)) ORDER BY at, rowid'),
      pruneClicks: db.prepare('DELETE FROM search_clicks WHERE search_id IN (SELECT id FROM searches WHERE at < ?)'),
      prune: db.prepare('DELETE FROM searches WHERE at < ?'),
      // (The rollups go by whole days: those before the day of the cut.)
      pruneDays: db.prepare('DELETE FROM search_days WHERE day < ?'),
      pruneRefinements: db.prepare('DELETE FROM search_refinements WHERE day < ?'),
    };
  }

  async append(searches: readonly LoggedSearch[], clicks: readonly SearchClick[]): Promise<void> {
    this.db.transaction(() => {
      for (const s of searches)
        this.stmts.putSearch.run({
          ...s,
          session: s.session ?? null,
          refines: s.refines ?? null,
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

  async prune(before: number): Promise<number> {
    return this.db.transaction(() => {
      this.stmts.pruneClicks.run(before);
      this.stmts.pruneDays.run(dayOf(before));
      this.stmts.pruneRefinements.run(dayOf(before));
      return this.stmts.prune.run(before).changes;
    })();
  }
}
