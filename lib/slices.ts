/**
 * Cooperative slices of one thread's work, so that other work — a search request — never waits
 * long behind it. Callers ask for a turn before each unit of work (a page's commit, a page's
 * index add); turns are granted at once while the current slice is younger than its budget, and
 * once it is spent, one waiting caller at a time on later turns of the event loop (setImmediate):
 * between two, the loop polls its sockets, so a request that arrived meanwhile is served after at
 * most one unit of work. Without it, units that became ready together (several parse results
 * delivered in one poll) run back to back while requests wait behind all of them.
 */
export class Slices {
  private sliceStart: number;
  private readonly waiting: (() => void)[] = [];
  private scheduled = false;

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
