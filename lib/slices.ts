/**
 * Cooperative slices of one thread's work, so that other work — a search request — never waits
 * long behind it. Callers ask for a turn before each unit of work (a page's commit, a page's
 * index add); turns are granted at once while the current slice is younger than its budget, and
 * once it is spent, one waiting caller at a time on later turns of the event loop (setImmediate):
 * between two, the loop polls its sockets, so a request that arrived meanwhile is served after at
 * most one unit of work. Without it, units that became ready together (several parse results
 * delivered in one poll) run back to back while requests wait behind all of them.
 *
 * Searches go first, but not always: run back to back, searches alone would hold the thread, and
 * the work that waits for turns — storing and indexing the crawl's pages — would starve (bench/
 * search-while-crawling: ~190 pages indexed in 2.5 s of back-to-back queries instead of ~1,700).
 * So a search (`search`) leaves the crawl a debt of the thread's time it took, paid back before the
 * next search starts whenever work is waiting: the time since the last search ended counts as paid
 * (queries a few a second never wait), and nothing is owed to work that does not wait.
 */
/**
 * The waiting work's share of the thread against the searches' own: 1 is half each. A little more
 * than 1, because a search's time in `search` leaves out its request's parsing and its answer's
 * JSON and compression, which run on the same thread.
 */
export const WORK_SHARE = 1.25;
/** The most a search waits for the work's share: one slow search must not hold the next one back long. */
export const MAX_OWED_MS = 25;

export class Slices {
  private sliceStart: number;
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;
  /** The thread's time, in ms, that searches owe the waiting work (at most MAX_OWED_MS). */
  private owed = 0;
  private lastSearchEnd = Number.NEGATIVE_INFINITY;

  constructor(
    /** How long a slice may hold the thread, in ms, before the next unit waits for a later turn. */
    readonly budgetMs: number,
    private readonly clock: () => number = () => performance.now(),
  ) {
    this.sliceStart = clock();
  }

  /**
   * Resolves when the caller may do its next unit of work: at once (undefined, no await needed)
   * while the slice lasts and nobody waits, else on a later turn of the event loop, in the order asked.
   */
  turn(): Promise<void> | undefined {
    if (!this.waiting.length && this.clock() - this.sliceStart < this.budgetMs) return undefined;
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.schedule();
    });
  }

  /**
   * Runs a search, once the waiting work has had its share of the thread: as much time as the
   * searches before took (× WORK_SHARE) less the time since they ended, while work still waits.
   * Searches at a few a second wait for nothing; back to back, each waits about as long as the
   * last one took, and the waiting work gets about half the thread.
   */
  async search<T>(run: () => Promise<T>): Promise<T> {
    const start = this.clock();
    this.owed = Math.max(0, this.owed - (start - this.lastSearchEnd));
    // (While the debt is paid, work waiting for turns is let go one at a time, as ever, and a
    // unit let go holds the thread for its slice's budget: a turn of the loop is the wait's unit.)
    while (this.owed > 0 && this.waiting.length && this.clock() - start < this.owed) await new Promise<void>((r) => setImmediate(r));
    this.owed = Math.max(0, this.owed - (this.clock() - start));
    const began = this.clock();
    try {
      return await run();
    } finally {
      const end = this.clock();
      this.owed = Math.min(MAX_OWED_MS, this.owed + WORK_SHARE * (end - began));
      this.lastSearchEnd = end;
    }
  }

  /** Callers waiting for a turn. */
  get queued(): number {
    return this.waiting.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.sliceStart = this.clock();
      // (One at a time: its work runs in the microtasks after this callback; the next is let go
      // on a later turn, once the loop has polled again.)
      this.waiting.shift()?.();
      if (this.waiting.length) this.schedule();
    });
  }
}
