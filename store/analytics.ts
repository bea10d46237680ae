/**
 * The search log's store: searches and the clicks on their results, appended in batches (off the
 * query path: appliance/search-log.ts), read back for reports and exports, pruned by age.
 */
import type { LoggedSearch, SearchClick } from '../model/index.ts';

export interface SearchLogStore {
  /**
   * Whether the log can be written: not on a SQLite file opened read-only; always on PostgreSQL,
   * where every search node — a store it opens read-only for the crawl's state — writes to one log.
   */
  readonly writable: boolean;
  /** Appends searches and clicks, in one transaction. */
  append(searches: readonly LoggedSearch[], clicks: readonly SearchClick[]): Promise<void>;
  /** A logged search by id. */
  search(id: string): Promise<LoggedSearch | undefined>;
  /** The searches made at `since` or later, in time order (then id), at most `limit`. */
  searches(since: number, limit: number): Promise<LoggedSearch[]>;
  /** The clicks on results of these searches, in time order. */
  clicksOf(searchIds: readonly string[]): Promise<SearchClick[]>;
  /** Deletes the searches made before `before`, with their clicks and the reports' days before its day; returns how many searches. */
  prune(before: number): Promise<number>;
}
