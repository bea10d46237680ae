/**
 * The crawl's scheduling loop: it keeps `concurrency` requests in flight, picking ready hosts
 * round-robin from the scheduler and each host's next URL from the frontier, loads a host's
 * robots.txt while only that host's URLs wait, brings back retries and revisits as they fall due,
 * and decides when the crawl is done (nothing left, a limit, or stop()). What happens to one URL
 * is the crawler's (crawler.ts).
 *
 * The loop runs one pass at a time: a call while a pass runs (a request ended, new work came)
 * asks for another pass after it, so the store is never asked twice at once for the same host.
 *
 * When many processes share the frontier (`shared`: a PostgreSQL store), hosts come from leases
 * (frontier/leases.ts) instead of the store's lists of hosts with work: the loop claims hosts as it
 * has room, fetches only from those, releases each once nothing of it is left in the pipeline, and
 * is done when a claim finds nothing, nothing is in flight, no retry waits, and no other worker
 * holds a host (whose work may yet bring more).
 */
import type { EventEmitter } from 'node:events';
import type { ErrorCode, QueuedUrl } from '../model/index.ts';
import type { CrawlerDeps, CrawlerEvents } from './types.ts';
import { ERRORS } from './errors.ts';
import type { RobotsRules } from './robots/robots.ts';
import type { StatsRecorder } from './stats.ts';
import { PageLimit } from './frontier/page-limit.ts';
import { WorkerLeases } from './frontier/leases.ts';

export type LoopDeps = CrawlerDeps & {
  readonly now: () => number;
  readonly stats: StatsRecorder;
  /** The crawler, whose events the loop emits. */
  readonly emitter: EventEmitter<CrawlerEvents>;
  /** Handles a URL taken from the frontier (its request counts against `concurrency` until it ends). */
  readonly process: (q: QueuedUrl) => Promise<void>;
  /** A host's robots.txt was loaded (its sitemaps are queued). */
  readonly onRobots: (origin: string, rules: RobotsRules) => Promise<void>;
};

/** How often the loop looks for hosts with revisits that fell due (a query over an index). */
const REVISIT_CHECK_MS = 1000;
const ROBOTS_GIVE_UP_AFTER = 3;
/** How long stop() lets in-flight requests finish before it aborts them and puts them back. */
const STOP_GRACE_MS = 5000;

export class CrawlLoop {
  /** URLs being handled: fetched, parsed or stored. */
  active = 0;
  /** Of those, requests in flight: `limits.concurrency` caps these, not parsing. */
  fetching = 0;
  /** Hosts given up on in this run: URLs found for them later die at once instead of waking them. */
  readonly deadHosts = new Map<string, { error: ErrorCode; reason: string }>();
  private stopping = false;
  private finished = false;
  /** Paused by an admin: no new requests; those in flight finish. */
  private pausedFlag = false;
  private passing = false;
  private passAgain = false;
  private timer: NodeJS.Timeout | undefined;
  private statsTimer: NodeJS.Timeout | undefined;
  private readonly robotsLoading = new Set<string>();
  private readonly robotsFailures = new Map<string, number>();
  private readonly abort = new AbortController();
  private donePromise: Promise<CrawlerEvents['done'][0]> | undefined;
  private revisitCheckAt = 0;
  /** Hosts with no due revisit, taken out of turn while limits.maxPages was (or might be) reached. */
  private readonly heldByLimit = new Set<string>();
  /** For `due`: revisits due by this time are taken (set when the crawl runs or wakes). */
  private revisitCutoff = 0;
  /** Hosts whose robots.txt Crawl-delay the scheduler knows (rules cached by another run or worker included). */
  private readonly delaysKnown = new Set<string>();
  /** URLs of each host being handled (fetched, parsed or stored): a host is released only with none. */
  private readonly activeOf = new Map<string, number>();
  /** The hosts this worker holds, when the frontier is shared. */
  readonly leases: WorkerLeases | undefined;
  /** limits.maxPages: true when the pages fetched, plus those in flight that may still be, reach it. */
  private readonly pageLimit: PageLimit;

  constructor(private readonly d: LoopDeps) {
    this.pageLimit = new PageLimit(d.store, d.limits.maxPages);
    if (d.shared) {
      const figures = () => ({ pages: d.stats.snapshot().requests, pagesPerSecond: d.stats.pagesPerSecond() });
      this.leases = new WorkerLeases(d.store, d.scheduler, d.frontier, d.shared, d.now, figures, d.log, () => this.wake());
    }
  }

  /** Aborts requests in flight when a stop's grace period is over. */
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  get running(): boolean {
    return !this.finished && this.donePromise !== undefined;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  run(): Promise<CrawlerEvents['done'][0]> {
    this.donePromise ??= new Promise((resolve, reject) => {
      this.d.emitter.once('done', resolve);
      this.start().catch(reject);
    });
    return this.donePromise;
  }

  private async start(): Promise<void> {
    await this.startRevisits();
    const recovered = await this.d.store.urls.recoverInFlight();
    if (recovered) this.d.log?.info(`resumed: ${recovered} URLs that were in flight when the last run stopped are queued again`);
    // (Shared: hosts come by claim, in passes.)
    if (this.leases) await this.leases.start();
    else for (const host of await this.d.store.hosts.withWork()) this.d.scheduler.addWork(host);
    this.startStats();
    this.pump();
  }

  wake(): void {
    if (!this.donePromise || this.stopping) return;
    if (this.finished) {
      this.finished = false;
      this.startStats();
      void this.startRevisits()
        .then(() => this.leases?.start())
        .then(
          () => this.pump(),
          (e: unknown) => this.d.log?.error(`revisits: ${(e as Error).message}`),
        );
      return;
    }
    this.pump();
  }

  pause(): void {
    this.pausedFlag = true;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  resume(): void {
    if (!this.pausedFlag) return;
    this.pausedFlag = false;
    this.wake();
  }

  async stop(): Promise<void> {
    if (this.finished) return;
    this.stopping = true;
    clearTimeout(this.timer);
    const grace = setTimeout(() => this.abort.abort(), STOP_GRACE_MS);
    await new Promise<void>((resolve) => {
      const check = () => (this.active === 0 && this.robotsLoading.size === 0 && !this.passing ? resolve() : setTimeout(check, 20));
      check();
    });
    clearTimeout(grace);
    await this.leases?.stop();
    await this.finish('stopped');
  }

  /** A sitemap was read: its <lastmod>s may have made pages due; look at the next pass. */
  lookForRevisits(): void {
    this.revisitCheckAt = 0;
    this.d.frontier.revisitsChanged();
  }

  /** Asks for a pass of the loop (now, or after the one running). */
  pump(): void {
    if (this.passing) {
      this.passAgain = true;
      return;
    }
    this.passing = true;
    this.passAgain = false;
    void this.pass()
      .catch((e: unknown) => this.d.log?.error(`crawl loop: ${(e as Error).stack ?? String(e)}`))
      .finally(() => {
        this.passing = false;
        // (Asked for while this pass ran: the pass may have missed what the asker changed.)
        if (this.passAgain) this.pump();
      });
  }

  /** A run (or a wake) takes the revisits due from now; a `due` pass reads the sitemaps first (a newer <lastmod> makes a page due in the same pass). */
  private async startRevisits(): Promise<void> {
    this.revisitCutoff = this.d.now();
    this.lookForRevisits();
    if (this.d.limits.revisits === 'due') await this.d.store.urls.sitemapsDue(this.revisitCutoff);
  }

  private startStats(): void {
    this.statsTimer = setInterval(() => this.d.emitter.emit('stats', this.d.stats.snapshot()), 1000);
    this.statsTimer.unref();
  }

  private async pass(): Promise<void> {
    if (this.stopping || this.finished || this.pausedFlag) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    const { scheduler, store } = this.d;
    const now = this.d.now();
    const mode = this.d.limits.revisits ?? 'off';
    const revisitsDueBy = mode === 'off' ? undefined : mode === 'due' ? this.revisitCutoff : now;
    // Shared: hosts with due retries and revisits come by claim, with the others.
    if (this.leases) {
      if (this.fetching < this.d.limits.concurrency) await this.leases.claim(revisitsDueBy);
    } else for (const host of await store.hosts.withDueRetries(now)) scheduler.addWork(host);
    if (!this.leases && revisitsDueBy !== undefined && now >= this.revisitCheckAt) {
      this.revisitCheckAt = now + REVISIT_CHECK_MS;
      for (const host of await store.hosts.withDueRevisits(revisitsDueBy)) scheduler.addWork(host);
    }
    const revisits = revisitsDueBy !== undefined;
    // Hosts set aside while pages in flight might reach limits.maxPages: back, if they did not.
    if (this.heldByLimit.size && !(await this.pageLimit.reached(this.active))) {
      for (const host of this.heldByLimit) scheduler.addWork(host);
      this.heldByLimit.clear();
    }
    // Pages waiting to be parsed and stored do not hold a connection; the bound on them (as many
    // again as requests) keeps bodies in memory bounded when parsing is the slower stage.
    const { concurrency } = this.d.limits;
    while (this.fetching < concurrency && this.active < concurrency * 2 && !this.stopping && !this.pausedFlag) {
      // limits.maxPages counts pages, not fetches: once it is reached, revisits go on.
      const fresh = !(await this.pageLimit.reached(this.active));
      if (!fresh && !revisits) break;
      const host = scheduler.pick(now);
      if (!host) break;
      const dead = this.deadHosts.get(host);
      if (dead) {
        // (What was taken ahead for the host is queued again first: the kill ends it too.)
        await this.d.frontier.giveBack([host]);
        await store.hosts.kill(host, dead.error, dead.reason, this.d.now());
        scheduler.noWork(host);
        continue;
      }
      const mark = scheduler.workMark(host);
      const q = await this.d.frontier.next(host, { fresh, revisitsDueBy });
      if (!q) {
        scheduler.noWork(host, mark);
        if (!fresh) this.heldByLimit.add(host);
        continue;
      }
      const origin = new URL(q.fetchUrl).origin;
      const rules = await this.d.robots.cached(origin);
      if (!rules || rules.state === 'unavailable') {
        await store.urls.putBack(q.id);
        this.loadRobots(host, origin);
        continue;
      }
      // (Rules loaded by an earlier run, or another worker, still set the host's Crawl-delay here.)
      if (!this.delaysKnown.has(host)) {
        this.delaysKnown.add(host);
        scheduler.setCrawlDelay(host, rules.crawlDelaySeconds);
      }
      // (The host's last URL, the store says: out of the ring now, without asking it again.)
      if (q.last && fresh) scheduler.noWork(host, mark);
      if (!rules.isAllowed(q.fetchUrl)) {
        this.handling(host, q.fetchUrl, this.disallowed(q.id));
        continue;
      }
      this.fetching++;
      scheduler.begin(host);
      this.handling(host, q.fetchUrl, this.d.process(q));
    }
    await this.releaseIdle();
    await this.checkDone();
    await this.armTimer();
  }

  /** Work on a URL of `host` is being handled until it settles: limits, leases and the end of the crawl wait for it. */
  private handling(host: string, url: string, work: Promise<void>): void {
    this.active++;
    this.activeOf.set(host, (this.activeOf.get(host) ?? 0) + 1);
    void work
      .catch((e: unknown) => this.d.log?.error(`${url}: ${(e as Error).stack ?? String(e)}`))
      .finally(() => {
        this.active--;
        this.pageLimit.finished();
        const left = this.activeOf.get(host)! - 1;
        if (left) this.activeOf.set(host, left);
        else this.activeOf.delete(host);
        this.pump();
      });
  }

  /** A URL robots.txt disallows: recorded excluded; a page Trawl held leaves the index. */
  private async disallowed(id: number): Promise<void> {
    const r = await this.d.store.commitFetch(
      {
        id,
        outcome: { kind: 'excluded', reason: 'robots.txt disallows it' },
        revisit: null,
        unindex: true,
        links: { urls: [], rejected: new Map([['robots', 1]]) },
      },
      this.d.now(),
    );
    if (r.removed === undefined) return;
    await this.d.index?.remove(id, r.removed);
    this.d.emitter.emit('removed', id);
  }

  /** Shared: the hosts held with nothing left to do here go back to the shared frontier. */
  private async releaseIdle(): Promise<void> {
    if (!this.leases) return;
    const idle = [...this.leases.held].filter(
      (h) => !this.activeOf.has(h) && !this.robotsLoading.has(h) && !this.heldByLimit.has(h) && this.d.scheduler.idle(h),
    );
    await this.leases.release(idle);
  }

  /** Wakes the loop when the next host's delay is over, or the next failed URL is due. */
  private async armTimer(): Promise<void> {
    if (this.finished || this.stopping || this.timer) return;
    // (Shared: a claim may find hosts another worker released, or work that fell due.)
    const claimAt = this.leases && this.fetching < this.d.limits.concurrency ? this.leases.claimAt() : undefined;
    const candidates = [this.d.scheduler.nextReadyAt(), await this.d.store.urls.nextRetryAt(), claimAt].filter((x): x is number => x !== undefined);
    if (!candidates.length || this.fetching >= this.d.limits.concurrency || this.active >= this.d.limits.concurrency * 2) return;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.pump();
      },
      Math.max(5, Math.min(...candidates) - this.d.now()),
    );
  }

  private async checkDone(): Promise<void> {
    if (this.active > 0 || this.robotsLoading.size > 0 || this.finished) return;
    const limit = await this.pageLimit.reached(0);
    const retryAt = await this.d.store.urls.nextRetryAt();
    // Something happened while the store was asked (a request ended, work arrived): the pass
    // asked for after this one decides.
    if (this.passAgain || this.active > 0 || this.robotsLoading.size > 0) return;
    if (!limit && this.heldByLimit.size) {
      // Hosts set aside while pages in flight might have reached limits.maxPages: they did not.
      for (const host of this.heldByLimit) this.d.scheduler.addWork(host);
      this.heldByLimit.clear();
      this.passAgain = true;
      return;
    }
    const revisits = this.d.limits.revisits !== undefined && this.d.limits.revisits !== 'off';
    if (this.leases) return this.checkSharedDone(limit && !(revisits && this.d.scheduler.hasWork()), retryAt);
    // (Past the limit, a crawl that takes due revisits ends once none is left.)
    if (limit && !(revisits && this.d.scheduler.hasWork())) await this.finish('limit');
    else if (!this.d.scheduler.hasWork() && retryAt === undefined) await this.finish('exhausted');
  }

  /**
   * Shared: the crawl is done when this worker holds nothing, a claim finds nothing, no retry
   * waits, and no other worker holds a host — else it looks again when a claim may run. A worker
   * that runs until stopped (trawl worker) only looks again.
   */
  private async checkSharedDone(limit: boolean, retryAt: number | undefined): Promise<void> {
    const leases = this.leases!;
    if (limit && !leases.shared.untilStopped) return this.finish('limit');
    if (leases.held.size || this.d.scheduler.hasWork() || leases.shared.untilStopped) return;
    const mode = this.d.limits.revisits ?? 'off';
    if (await leases.claim(mode === 'off' ? undefined : mode === 'due' ? this.revisitCutoff : this.d.now(), true)) {
      this.passAgain = true;
      return;
    }
    if (retryAt !== undefined || this.passAgain || this.active > 0 || (await leases.othersHoldHosts())) return;
    await this.finish('exhausted');
  }

  private async finish(reason: 'exhausted' | 'limit' | 'stopped'): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    clearTimeout(this.timer);
    clearInterval(this.statsTimer);
    // (Exhausted or at the limit: whatever is still held goes back; stopped: already released.)
    await this.leases?.stop();
    await this.d.store.sync();
    this.d.emitter.emit('stats', this.d.stats.snapshot());
    this.d.emitter.emit('done', { reason });
  }

  /** Loads a host's robots.txt while its URLs wait; other hosts go on. */
  private loadRobots(host: string, origin: string): void {
    if (this.robotsLoading.has(host)) return;
    this.robotsLoading.add(host);
    this.d.scheduler.setWaitingForRobots(host, true);
    this.d.scheduler.begin(host);
    void this.d.robots
      .load(origin, this.abort.signal)
      .then((rules) => this.robotsLoaded(host, origin, rules))
      .catch((e: unknown) => this.d.log?.warn(`robots.txt of ${host}: ${(e as Error).message}`))
      .finally(() => {
        this.robotsLoading.delete(host);
        this.d.scheduler.setWaitingForRobots(host, false);
        this.pump();
      });
  }

  private async robotsLoaded(host: string, origin: string, rules: RobotsRules): Promise<void> {
    const ok = rules.state !== 'unavailable';
    this.d.scheduler.end(host, this.d.now(), { ok, ...(ok ? {} : { error: 'robots-unavailable' }) });
    if (!ok) {
      const failures = (this.robotsFailures.get(host) ?? 0) + 1;
      this.robotsFailures.set(host, failures);
      // (A failure that trying again cannot mend — TLS, an address not allowed — gives up at once.)
      if (failures < ROBOTS_GIVE_UP_AFTER && !(rules.error && !ERRORS[rules.error].retry)) return;
      // The real cause when the host could not be reached at all (DNS, refused, TLS…).
      const error = rules.error ?? 'robots-unavailable';
      await this.giveUpHost(
        host,
        error,
        rules.error ? `${ERRORS[error].describe} (${failures} tries; ${rules.detail})` : `robots.txt unavailable ${failures} times (${rules.detail})`,
      );
      return;
    }
    this.robotsFailures.delete(host);
    this.d.scheduler.setCrawlDelay(host, rules.crawlDelaySeconds);
    await this.d.onRobots(origin, rules);
  }

  /** A host that keeps failing: its URLs die, and later ones at once. */
  async giveUpHost(host: string, error: ErrorCode, reason: string): Promise<void> {
    this.deadHosts.set(host, { error, reason });
    this.d.scheduler.noWork(host);
    const n = await this.d.store.hosts.kill(host, error, reason, this.d.now());
    this.d.log?.warn(`giving up on ${host}: ${reason}; ${n} URLs marked dead`);
  }
}
