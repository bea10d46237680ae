/**
 * The frontier of one of many crawlers sharing a PostgreSQL store (issue 22): the local frontier's
 * ring, politeness, robots.txt gate and limits, over the hosts this worker holds a lease on
 * (leases.ts) — so that per-host politeness holds across all the workers, as it does inside one.
 * What differs from one crawler on its own store:
 *
 *   - hosts come by claim (as the worker has room, at most every CLAIM_MIN_MS), not from the store's
 *     lists of hosts with work; work found for a host it does not hold goes to the next claim;
 *   - a host's queued URLs are taken TAKE_AHEAD at a time (one round trip for several fetches), and
 *     what was taken ahead goes back to the queue when the host is given up;
 *   - a host with nothing left in the pipeline here is released after each round, claimable by any
 *     worker once its politeness allows the next request;
 *   - the crawl is done when this worker holds nothing, a claim finds nothing, no retry waits and no
 *     other worker holds a host (whose work may yet bring more); a worker that runs until stopped
 *     (`trawl worker`, SharedFrontier.untilStopped) never is.
 */
import type { Next } from '../frontier.ts';
import { AGAIN, LocalFrontier, type LocalFrontierOptions } from '../local/local-frontier.ts';
import { type SharedFrontier, WorkerLeases } from './leases.ts';

export type LeasedFrontierOptions = LocalFrontierOptions & {
  /** How this worker shares the frontier: its name, its leases, how many hosts it holds. */
  readonly shared: SharedFrontier;
};

/** What a heartbeat says before the run has started. */
const NO_FIGURES = { pages: 0, pagesPerSecond: 0 };

export class LeasedFrontier extends LocalFrontier {
  private readonly leases: WorkerLeases;
  private readonly shared: SharedFrontier;

  constructor(o: LeasedFrontierOptions) {
    super(o);
    this.shared = o.shared;
    this.leases = new WorkerLeases(
      o.store,
      o.scheduler,
      this.urls,
      o.shared,
      this.now,
      () => this.run?.figures() ?? NO_FIGURES,
      o.log,
      () => this.run?.wake(),
    );
  }

  override get worker(): string {
    return this.shared.worker;
  }

  /** Hosts come by claim, in rounds; the leases are renewed from now on (a heartbeat with them). */
  protected override async startHosts(): Promise<void> {
    await this.leases.start();
  }

  /** Hosts with due retries and revisits come by claim, with the others. */
  protected override async lookForWork(_now: number, revisitsDueBy: number | undefined): Promise<void> {
    await this.leases.claim(revisitsDueBy);
  }

  /** The hosts held with nothing left to do here go back to the shared frontier. */
  protected override async releaseIdle(): Promise<void> {
    const idle = [...this.leases.held].filter(
      (h) => !this.inPipeline.has(h) && !this.robots.isLoading(h) && !this.heldByLimit.has(h) && this.scheduler.idle(h),
    );
    await this.leases.release(idle);
  }

  protected override async doneWhen(limit: boolean, retryAt: number | undefined): Promise<Next | typeof AGAIN | undefined> {
    const { untilStopped } = this.shared;
    if (limit && !untilStopped) return { kind: 'done', reason: 'limit' };
    if (this.leases.held.size || this.scheduler.hasWork() || untilStopped) return undefined;
    // (A claim forced now: hosts another worker released, or work that fell due.)
    if (await this.leases.claim(this.revisitsDueBy(this.now()), true)) return AGAIN;
    if (retryAt !== undefined || this.inPipeline.size > 0 || (await this.leases.othersHoldHosts())) return undefined;
    return { kind: 'done', reason: 'exhausted' };
  }

  /** A claim may find hosts another worker released, or work that fell due. */
  protected override claimAt(): number | undefined {
    return this.leases.claimAt();
  }

  /** Stops renewing and releases every host held (what was taken ahead goes back to the queue). */
  override async stop(): Promise<void> {
    await this.leases.stop();
    await super.stop();
  }
}
