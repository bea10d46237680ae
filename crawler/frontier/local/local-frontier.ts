/**
 * The frontier of one crawler on its own store (SQLite, or a PostgreSQL store no other crawler
 * takes URLs from). Hosts with work sit in a ring (HostScheduler: round-robin, never more than
 * perHost.maxConnections in flight, perHost.delayMs between requests, back-off, suspensions); each
 * host's next URL comes from HostUrls (breadth-first, due retries, due revisits every other turn);
 * robots.txt gates a host's URLs (RobotsGate); limits.maxPages is PageLimit's. Hosts join the ring
 * as work arrives — a page's links, seeds, and, looked up at each round, retries and revisits as
 * they fall due — and leave it when the store has nothing of theirs now. The crawl is done when
 * nothing is in the pipeline, no robots.txt loads, the ring is empty and no retry waits; or when
 * limits.maxPages is reached and no due revisit is left.
 *
 * A round is the takes of one pass of the loop (one `now`). The leased adapter (../leased/)
 * extends this one: its protected hooks say where hosts come from (startHosts, lookForWork),
 * which are given back after a round (releaseIdle), when the crawl is done (doneWhen), and when
 * to look again (claimAt).
 */
import type { Log } from '../../../lib/log.ts';
import type { ErrorCode, NewUrl, QueuedUrl } from '../../../model/index.ts';
import type { EnqueueBatch, EnqueueResult, FetchCommitResult, Store } from '../../../store/index.ts';
import type { RobotsSource } from '../../robots/robots.ts';
import type { PUT_BACK, Frontier, FrontierItem, FrontierRun, Next, RequestEnd, RevisitMode, UrlCommit } from '../frontier.ts';
import { HostUrls } from '../host-urls.ts';
import type { HostScheduler } from '../hosts.ts';
import { PageLimit } from '../page-limit.ts';
import { RobotsGate } from '../robots-gate.ts';

export type LocalFrontierOptions = {
  readonly store: Store;
  /** The hosts' politeness (perHost.*): the appliance shows its state on the status page. */
  readonly scheduler: HostScheduler;
  readonly robots: RobotsSource;
  /** limits.maxPages (0: no limit). */
  readonly maxPages: number;
  readonly revisits: RevisitMode;
  /** perHost.maxSuspensions: a host suspended this many times is given up. */
  readonly maxSuspensions: number;
  readonly now?: (() => number) | undefined;
  readonly log?: Log | undefined;
};

/** How long a look at the hosts with due revisits (a query over an index) is good for. */
const REVISIT_CHECK_MS = 1000;
/** doneWhen()'s answer when it found work: the round starts over. */
export const AGAIN = Symbol('again');

export class LocalFrontier implements Frontier {
  protected readonly store: Store;
  protected readonly scheduler: HostScheduler;
  protected readonly urls: HostUrls;
  protected readonly robots: RobotsGate;
  protected readonly now: () => number;
  protected readonly log: Log | undefined;
  /** The run, once started: robots.txt loads and leases call back through it. */
  protected run: FrontierRun | undefined;
  /** URLs of each host handed out and not settled (fetched, parsed or stored): a host is released only with none. */
  protected readonly inPipeline = new Map<string, number>();
  /** Hosts with no due revisit, taken out of turn while limits.maxPages was (or might be) reached. */
  protected readonly heldByLimit = new Set<string>();
  /** For `due`: revisits due by this time are taken (set when the crawl runs or wakes). */
  private revisitCutoff = 0;
  private revisitCheckAt = 0;
  /** URLs handed out and not settled, of every host: limits.maxPages counts them as pages they may yet be. */
  private handedOut = 0;
  /** The `now` of the round under way (undefined: the next call starts one). */
  private round: number | undefined;
  private started = false;
  private readonly pageLimit: PageLimit;
  /** Hosts given up on in this run: their URLs found later die at once instead of waking them. */
  private readonly deadHosts = new Map<string, { readonly error: ErrorCode; readonly reason: string }>();

  constructor(private readonly o: LocalFrontierOptions) {
    this.store = o.store;
    this.scheduler = o.scheduler;
    this.now = o.now ?? Date.now;
    this.log = o.log;
    this.urls = new HostUrls(o.store, this.now);
    this.pageLimit = new PageLimit(o.store, o.maxPages);
    this.robots = new RobotsGate(o.robots, o.scheduler, this.now, (host, error, reason) => this.giveUp(host, error, reason), o.log);
  }

  /** Reads the per-host counts from the store (once, before the crawl's URLs are filtered). */
  async load(): Promise<void> {
    await this.urls.load();
  }

  get worker(): string | undefined {
    return undefined;
  }

  get busy(): boolean {
    return this.robots.busy;
  }

  async start(run: FrontierRun): Promise<void> {
    this.run = run;
    this.round = undefined;
    // A run (or a wake) takes the revisits due from now; a `due` pass reads the sitemaps first (a
    // newer <lastmod> makes a page due in the same pass).
    this.revisitCutoff = this.now();
    this.revisitsChanged();
    if (this.o.revisits === 'due') await this.store.urls.sitemapsDue(this.revisitCutoff);
    const first = !this.started;
    this.started = true;
    if (first) {
      const recovered = await this.store.urls.recoverInFlight();
      if (recovered) this.log?.info(`resumed: ${recovered} URLs that were in flight when the last run stopped are queued again`);
    }
    await this.startHosts(first);
  }

  async next(now: number): Promise<Next> {
    for (;;) {
      if (this.round !== now) {
        this.round = now;
        await this.lookForWork(now, this.revisitsDueBy(now));
        // Hosts set aside while pages in flight might reach limits.maxPages: back, if they did not.
        if (this.heldByLimit.size && !(await this.pageLimit.reached(this.handedOut))) this.restoreHeldByLimit();
      }
      const item = await this.take(now);
      if (item) return { kind: 'item', item };
      await this.releaseIdle();
      const done = await this.checkDone();
      if (done === AGAIN) this.round = undefined;
      else if (done) return done;
      else return { kind: 'wait', until: await this.wakeAt() };
    }
  }

  /** The round's next URL: the next ready host's (see the header), or undefined when none is ready. */
  private async take(now: number): Promise<FrontierItem | undefined> {
    const revisitsDueBy = this.revisitsDueBy(now);
    for (;;) {
      // limits.maxPages counts pages, not fetches: once it is reached, revisits go on.
      const fresh = !(await this.pageLimit.reached(this.handedOut));
      if (!fresh && revisitsDueBy === undefined) return undefined;
      const host = this.scheduler.pick(now);
      if (!host) return undefined;
      const dead = this.deadHosts.get(host);
      if (dead) {
        // (What was taken ahead for the host is queued again first: the kill ends it too.)
        await this.urls.giveBack([host]);
        await this.store.hosts.kill(host, dead.error, dead.reason, this.now());
        this.scheduler.noWork(host);
        continue;
      }
      const mark = this.scheduler.workMark(host);
      const q = await this.urls.next(host, { fresh, revisitsDueBy });
      if (!q) {
        this.scheduler.noWork(host, mark);
        if (!fresh) this.heldByLimit.add(host);
        continue;
      }
      const rules = await this.robots.rulesFor(host, q.fetchUrl);
      if (!rules) {
        await this.store.urls.putBack(q.id);
        this.robots.load(host, q.fetchUrl, this.run!);
        continue;
      }
      // (The host's last URL, the store says: out of the ring now, without asking it again.)
      if (q.last && fresh) this.scheduler.noWork(host, mark);
      const disallowed = !rules.isAllowed(q.fetchUrl);
      if (!disallowed) this.scheduler.begin(host);
      this.handedOut++;
      this.inPipeline.set(host, (this.inPipeline.get(host) ?? 0) + 1);
      return disallowed ? { ...q, disallowed } : q;
    }
  }

  /** Nothing ready in the round: whether the crawl is done, now that nothing is in the pipeline. */
  private async checkDone(): Promise<Next | typeof AGAIN | undefined> {
    if (this.handedOut > 0 || this.robots.busy) return undefined;
    const limit = await this.pageLimit.reached(0);
    const retryAt = await this.store.urls.nextRetryAt();
    // (A robots.txt load started meanwhile: its end decides.)
    if (this.handedOut > 0 || this.robots.busy) return undefined;
    if (!limit && this.heldByLimit.size) {
      // Hosts set aside while pages in flight might have reached limits.maxPages: they did not.
      this.restoreHeldByLimit();
      return AGAIN;
    }
    // (Past the limit, a crawl that takes due revisits ends once none is left.)
    return this.doneWhen(limit && !(this.o.revisits !== 'off' && this.scheduler.hasWork()), retryAt);
  }

  /** When the crawl is done, nothing being in the pipeline: `limit` when limits.maxPages ends it. One crawler: when nothing is left. */
  protected async doneWhen(limit: boolean, retryAt: number | undefined): Promise<Next | typeof AGAIN | undefined> {
    if (limit) return { kind: 'done', reason: 'limit' };
    if (!this.scheduler.hasWork() && retryAt === undefined) return { kind: 'done', reason: 'exhausted' };
    return undefined;
  }

  /** When next() may have a URL without new work: a host's delay over, a retry due, a claim. */
  private async wakeAt(): Promise<number | undefined> {
    const candidates = [this.scheduler.nextReadyAt(), await this.store.urls.nextRetryAt(), this.claimAt()].filter((x): x is number => x !== undefined);
    return candidates.length ? Math.min(...candidates) : undefined;
  }

  /** Revisits due by this time are taken (none: undefined). */
  protected revisitsDueBy(now: number): number | undefined {
    const mode = this.o.revisits;
    return mode === 'off' ? undefined : mode === 'due' ? this.revisitCutoff : now;
  }

  private restoreHeldByLimit(): void {
    for (const host of this.heldByLimit) this.scheduler.addWork(host);
    this.heldByLimit.clear();
  }

  /** Where the ring's hosts come from at a run's start: one crawler, the store's hosts with work (a wake adds none: they were found as they came). */
  protected async startHosts(first: boolean): Promise<void> {
    if (first) for (const host of await this.store.hosts.withWork()) this.scheduler.addWork(host);
  }

  /** At each round: hosts whose retries fell due, and (at most once a second) those whose revisits did. */
  protected async lookForWork(now: number, revisitsDueBy: number | undefined): Promise<void> {
    for (const host of await this.store.hosts.withDueRetries(now)) this.scheduler.addWork(host);
    if (revisitsDueBy !== undefined && now >= this.revisitCheckAt) {
      this.revisitCheckAt = now + REVISIT_CHECK_MS;
      for (const host of await this.store.hosts.withDueRevisits(revisitsDueBy)) this.scheduler.addWork(host);
    }
  }

  /** After a round: hosts given back (one crawler keeps them all). */
  protected async releaseIdle(): Promise<void> {}

  /** When a look for hosts elsewhere may find some (one crawler: never). */
  protected claimAt(): number | undefined {
    return undefined;
  }

  async fetched(item: FrontierItem, end: RequestEnd): Promise<void> {
    const { host } = item;
    this.scheduler.end(host, end.at, { ok: end.ok, retryAfterMs: end.retryAfterMs, ...(end.error ? { error: end.error } : {}) });
    const suspensions = this.scheduler.suspensions(host);
    if (!this.deadHosts.has(host) && suspensions >= this.o.maxSuspensions)
      await this.giveUp(host, 'host-suspended', `suspended ${suspensions} times; last error: ${end.error ?? 'unknown'}`);
  }

  finish(item: QueuedUrl, end: UrlCommit): Promise<FetchCommitResult>;
  finish(item: QueuedUrl, end: typeof PUT_BACK): Promise<undefined>;
  async finish(item: QueuedUrl, end: UrlCommit | typeof PUT_BACK): Promise<FetchCommitResult | undefined> {
    if ('putBack' in end) {
      await this.store.urls.putBack(item.id);
      // (Its host's work again, should anything take from it before the run ends.)
      this.scheduler.addWork(item.host);
      return undefined;
    }
    const result = await this.store.commitFetch(end.commit, end.at);
    if (result.contentSeen) return result;
    this.urls.added(result.enqueued.added);
    for (const host of result.enqueued.hosts) this.scheduler.addWork(host);
    for (const { source, links } of end.anchors) this.store.anchors.add(source, links);
    if (end.sitemap) this.revisitsChanged();
    // (A failed URL is the host's work again once its retry is due.)
    if (end.commit.outcome.kind === 'failed') this.scheduler.addWork(item.host);
    return result;
  }

  settled(item: FrontierItem): void {
    this.handedOut--;
    this.pageLimit.finished();
    const left = this.inPipeline.get(item.host)! - 1;
    if (left) this.inPipeline.set(item.host, left);
    else this.inPipeline.delete(item.host);
  }

  claim(url: NewUrl, now: number): Promise<QueuedUrl> {
    return this.store.urls.claim(url, now);
  }

  async enqueue(batch: EnqueueBatch): Promise<EnqueueResult> {
    const result = await this.urls.enqueue(batch);
    for (const host of result.hosts) this.scheduler.addWork(host);
    return result;
  }

  addWork(host: string): void {
    this.scheduler.addWork(host);
  }

  givenUp(host: string): { readonly error: ErrorCode; readonly reason: string } | undefined {
    return this.deadHosts.get(host);
  }

  urlsOfHost(host: string): number {
    return this.urls.urlsOfHost(host);
  }

  sync(): Promise<void> {
    return this.store.sync();
  }

  async stop(): Promise<void> {
    await this.store.sync();
  }

  /**
   * Pages may be due sooner than read (a sitemap's <lastmod>, a run's start): looked for at the next
   * call of next(), even one in the same millisecond as the last round (else a crawl could end
   * there, the sitemap's pages not looked for).
   */
  private revisitsChanged(): void {
    this.revisitCheckAt = 0;
    this.round = undefined;
    this.urls.revisitsChanged();
  }

  /** A host that keeps failing: its URLs die, and later ones at once. */
  private async giveUp(host: string, error: ErrorCode, reason: string): Promise<void> {
    this.deadHosts.set(host, { error, reason });
    this.scheduler.noWork(host);
    const n = await this.store.hosts.kill(host, error, reason, this.now());
    this.log?.warn(`giving up on ${host}: ${reason}; ${n} URLs marked dead`);
  }
}
