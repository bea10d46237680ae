/**
 * The search console's reports: read from rollups a day (UTC) wide that the store keeps as searches
 * and clicks are appended (triggers beside the tables), so that a report over a million logged
 * searches reads thousands of rows, not millions. One query's detail reads its recent searches.
 */
import type { DayReport, QueryListing, QueryReport, RefinementReport, ReportRange, SearchClick, LoggedSearch } from '../model/index.ts';

export interface SearchReportStore {
  /**
   * The queries (as understood) of a range, at most `limit`: `top`, the most searched first; `no-results`,
   * those that found nothing, the most often first; `no-clicks`, those that found something and were
   * never clicked, the most searched first. Ties by query.
   */
  queries(range: ReportRange, limit: number, listing?: QueryListing): Promise<QueryReport[]>;
  /** The searches of each day of a range, in order (days without one left out). */
  days(range: ReportRange): Promise<DayReport[]>;
  /** The refinements of a range (A, then B in one session), the most frequent first, at most `limit`. */
  refinements(range: ReportRange, limit: number): Promise<RefinementReport[]>;
  /** The most recent searches of one query (as understood) in a range, at most `limit`, newest first, with their clicks. */
  recentSearches(query: string, range: ReportRange, limit: number): Promise<{ searches: LoggedSearch[]; clicks: SearchClick[] }>;
}
