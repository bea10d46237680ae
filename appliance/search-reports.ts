/**
 * The search console's reports (search-ui/console.ts and /api/analytics/*): what the store's rollups
 * answer (store/analytics-reports.ts), what is queued in the log written first, and what is made
 * of them — one query's page as searchers saw it, and the synonyms the log suggests.
 */
import type {
  DayReport,
  LoggedSearch,
  QueryDetail,
  QueryListing,
  QueryReport,
  RefinementReport,
  ReportRange,
  SearchClick,
  SynonymSuggestion,
} from '../model/index.ts';
import type { SearchReportStore } from '../store/index.ts';

/** One query's searches read for its page, the most recent first: enough to see its positions, bounded so that a page of a popular query stays quick. */
export const QUERY_SAMPLE = 2000;
/** Refinements read to suggest synonyms from, the most frequent first. */
const SUGGESTION_POOL = 2000;

export class SearchReports {
  constructor(
    private readonly store: SearchReportStore,
    /** Writes what the log has queued (so that a report includes the searches just made). */
    private readonly flush: () => Promise<void>,
    /** The log's clock: a report's default range ends at its now. */
    readonly now: () => number = Date.now,
  ) {}

  async queries(range: ReportRange, limit: number, listing: QueryListing = 'top'): Promise<QueryReport[]> {
    await this.flush();
    return this.store.queries(range, limit, listing);
  }

  async days(range: ReportRange): Promise<DayReport[]> {
    await this.flush();
    return this.store.days(range);
  }

  async refinements(range: ReportRange, limit: number): Promise<RefinementReport[]> {
    await this.flush();
    return this.store.refinements(range, limit);
  }

  /**
   * Synonyms to consider: a query searched without a click, then another in the same session that
   * was clicked (A → B) — a correction accepted is one too, "did you mean" being a search of its
   * own. A refinement that only adds words to A, or only takes some away, narrows or widens the
   * query and is no synonym: left out.
   */
  async suggestions(range: ReportRange, limit: number): Promise<SynonymSuggestion[]> {
    const found = await this.refinements(range, SUGGESTION_POOL);
    return found
      .filter((r) => r.toClicked > 0 && r.searches > r.fromClicked && !narrowsOrWidens(r.from, r.to))
      .map((r) => ({ from: r.from, to: r.to, unclicked: r.searches - r.fromClicked, toClicked: r.toClicked, line: `${quoted(r.from)} => ${quoted(r.to)}` }))
      .sort((a, b) => Math.min(b.unclicked, b.toClicked) - Math.min(a.unclicked, a.toClicked) || a.from.localeCompare(b.from) || a.to.localeCompare(b.to))
      .slice(0, limit);
  }

  /** One query's page as its recent searches showed it: by position, shown and clicked; the URLs, the most clicked first. */
  async query(query: string, range: ReportRange): Promise<QueryDetail> {
    await this.flush();
    const { searches, clicks } = await this.store.recentSearches(query, range, QUERY_SAMPLE);
    return detailOf(query, searches, clicks);
  }
}

/** The detail of one query from its searches (first pages and later ones alike: a position is on its page) and their clicks. */
export function detailOf(query: string, searches: readonly LoggedSearch[], clicks: readonly SearchClick[]): QueryDetail {
  const positions = new Map<number, { shown: number; clicks: number }>();
  const urls = new Map<string, { shown: number; positions: number; clicks: number }>();
  for (const s of searches)
    s.shown.forEach((url, i) => {
      const p = positions.get(i + 1) ?? { shown: 0, clicks: 0 };
      p.shown++;
      positions.set(i + 1, p);
      const u = urls.get(url) ?? { shown: 0, positions: 0, clicks: 0 };
      u.shown++;
      u.positions += i + 1;
      urls.set(url, u);
    });
  const clicked = new Set<string>();
  for (const c of clicks) {
    clicked.add(c.searchId);
    const p = positions.get(c.position);
    if (p) p.clicks++;
    const u = urls.get(c.url);
    if (u) u.clicks++;
  }
  return {
    query,
    searches: searches.length,
    clicked: clicked.size,
    positions: [...positions].sort((a, b) => a[0] - b[0]).map(([position, p]) => ({ position, ...p })),
    urls: [...urls]
      .map(([url, u]) => ({ url, shown: u.shown, meanPosition: Math.round((10 * u.positions) / u.shown) / 10, clicks: u.clicks }))
      .sort((a, b) => b.clicks - a.clicks || a.meanPosition - b.meanPosition || a.url.localeCompare(b.url)),
  };
}

/** Whether `b` only adds words to `a`, or only takes some away. */
function narrowsOrWidens(a: string, b: string): boolean {
  const x = new Set(a.split(' '));
  const y = new Set(b.split(' '));
  return [...x].every((w) => y.has(w)) || [...y].every((w) => x.has(w));
}

const quoted = (entry: string) => (entry.includes(' ') ? `"${entry}"` : entry);

/** The console's reports over `store`'s log when `analytics.enabled` (also over a store this server only reads: a crawler's process logs). */
export function searchReportsFor(
  settings: { readonly enabled: boolean },
  store: { readonly searchReports: SearchReportStore },
  log: { flush(): Promise<void>; readonly now: () => number } | undefined,
): SearchReports | undefined {
  if (!settings.enabled) return undefined;
  return new SearchReports(store.searchReports, () => log?.flush() ?? Promise.resolve(), log?.now);
}
