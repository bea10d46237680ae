/**
 * limits.maxPages as the frontier asks it — before every URL it hands out — without a round trip
 * each time. The store's count of pages fetched (a query on PostgreSQL) is read at most every
 * MAX_AGE_MS while the limit is far: meanwhile the count as last read, plus every URL this process
 * finished since (pages or not), bounds from above what it could be now as far as this process goes.
 * A limit that seems reached is read again before it is believed, so the crawl stops where it did
 * when every question was a read. Other workers' pages since the last read are missed for at most
 * MAX_AGE_MS (a shared crawl's limit was never exact: their pages in flight are not counted either).
 */
import type { Store } from '../../store/index.ts';

/** How long a read of the count is used while the limit is not near. */
const MAX_AGE_MS = 1000;

export class PageLimit {
  /** URLs handled to the end by this process. */
  private completed = 0;
  /** The count as last read, when (the clock's time), and `completed` just before the read. */
  private last: { readonly pages: number; readonly at: number; readonly completed: number } | undefined;

  constructor(
    private readonly store: Store,
    /** limits.maxPages (0: none). */
    private readonly max: number,
    /** A monotonic clock in ms for the age of a read (a test gives its own). */
    private readonly clock: () => number = () => performance.now(),
  ) {}

  /** A URL this process took was handled to the end (stored, or not). */
  finished(): void {
    this.completed++;
  }

  /** True when the pages fetched, plus `counting` (in flight, which may still be), reach the limit. */
  async reached(counting: number): Promise<boolean> {
    if (this.max <= 0) return false;
    const estimate = (r: { pages: number; completed: number }) => r.pages + (this.completed - r.completed) + counting;
    const last = this.last;
    if (last && this.clock() - last.at < MAX_AGE_MS && estimate(last) < this.max) return false;
    const at = this.clock();
    const completed = this.completed;
    this.last = { pages: await this.store.urls.pagesFetched(), at, completed };
    return estimate(this.last) >= this.max;
  }
}
