/**
 * A host's URLs, as both frontier adapters (local/, leased/) take them: which of a host's URLs to
 * take next, over the store's records (store/urls.ts) — breadth-first among new ones, then retries that are due; due
 * revisits take every other turn while the host also has new URLs (so neither starves the other),
 * and all turns when there are none — and how many URLs each host has (for limits.maxPagesPerHost,
 * which the URL filters ask for every link: kept in RAM, one number per host).
 */
import type { EnqueueBatch, EnqueueResult, Store, TakeKind, TakeOptions, Taken } from '../../store/index.ts';

/** Which of a host's URLs next() may take. */
export type PickOptions = {
  /** New and queued URLs, and retries (false once limits.maxPages is reached). */
  readonly fresh: boolean;
  /** Pages whose revisit is due by this time (none when undefined). */
  readonly revisitsDueBy?: number | undefined;
};

/** How long the earliest revisit's time, as read, is used. */
const REVISITS_MAX_AGE_MS = 1000;
/**
 * Queued URLs of a host taken at once when the frontier is shared (a store over the network: one
 * round trip for this many fetches, instead of one each — bench/scale). The host is this worker's
 * alone while its lease lasts, so taking ahead holds back nothing another worker could fetch.
 */
export const TAKE_AHEAD = 8;

export class HostUrls {
  /** Hosts whose last URL handed out was not a revisit: their next may be a due revisit (interleaving). */
  private readonly revisitTurn = new Set<string>();
  private perHost = new Map<string, number>();
  /** Shared with other workers (share()): the hosts whose count was asked for since the last refresh. */
  private asked: Set<string> | undefined;
  /** When the earliest revisit falls due (undefined: none is scheduled), as read at `at` (performance.now()). */
  private revisits: { readonly next: number | undefined; readonly at: number } | undefined;
  /** Shared: URLs taken ahead, by host — in flight in the store, handed out by next() in order. */
  private readonly ahead = new Map<string, Taken[]>();
  private takeAhead = 1;

  constructor(
    private readonly store: Store,
    private readonly now: () => number = Date.now,
  ) {}

  /** Reads the per-host counts from the store (once, before the crawl starts). */
  async load(): Promise<void> {
    this.perHost = await this.store.hosts.urlCounts();
  }

  /** Takes the host's next URL and marks it in flight (see the order above); `last` when the store says it was the host's last. */
  async next(host: string, pick: PickOptions = { fresh: true }): Promise<Taken | undefined> {
    // (No page due for a revisit anywhere: the store is not asked for one.)
    const by = pick.revisitsDueBy !== undefined && (await this.revisitsDue(pick.revisitsDueBy)) ? pick.revisitsDueBy : undefined;
    const turn = by !== undefined && this.revisitTurn.has(host);
    const kinds: TakeKind[] = [];
    if (turn) kinds.push('revisit');
    if (pick.fresh) kinds.push('queued', 'retry');
    if (by !== undefined && !turn) kinds.push('revisit');
    if (!kinds.length) return undefined;
    let q: Taken | undefined;
    if (kinds[0] === 'queued') q = await this.nextQueued(host, kinds, by);
    else {
      // (A revisit's turn while URLs taken ahead wait: a due revisit, else the next of those.)
      const waiting = Boolean(this.ahead.get(host)?.length) && kinds.includes('queued');
      q = await this.store.urls.take(host, this.takeOptions(waiting ? ['revisit'] : kinds, by));
      if (!q && waiting) q = await this.nextQueued(host, kinds, by);
    }
    if (!q) return undefined;
    if (q.kind === 'revisit') this.revisitTurn.delete(host);
    else if (by !== undefined) this.revisitTurn.add(host);
    // (The store's last of the host, but URLs taken ahead wait: not its last.)
    return q.last && this.ahead.get(host)?.length ? { ...q, last: false } : q;
  }

  /** The host's next queued URL: one taken ahead, or, shared, several taken at once (TAKE_AHEAD). */
  private async nextQueued(host: string, kinds: readonly TakeKind[], by: number | undefined): Promise<Taken | undefined> {
    let ahead = this.ahead.get(host) ?? [];
    const waited = ahead.length > 0;
    if (!waited) {
      const options = this.takeOptions(kinds, by);
      if (this.takeAhead <= 1 || !this.store.urls.takeSome) return this.store.urls.take(host, options);
      ahead = await this.store.urls.takeSome(host, options, this.takeAhead);
      // (Taken while another call took for the same host: both batches are the host's next URLs.)
      const before = this.ahead.get(host);
      if (before?.length) ahead = [...before, ...ahead];
      this.ahead.set(host, ahead);
    }
    const q = ahead.shift();
    if (!ahead.length) this.ahead.delete(host);
    // (A URL that waited is never the host's last: work may have been queued since its batch was
    // taken, and a stale `last` would take the host out of the loop's ring with URLs queued.)
    return q && waited && q.last ? { ...q, last: false } : q;
  }

  private takeOptions(kinds: readonly TakeKind[], by: number | undefined): TakeOptions {
    return { kinds, now: this.now(), ...(by !== undefined ? { revisitsDueBy: by } : {}) };
  }

  /** URLs taken ahead for these hosts go back to the queue (the worker gives the hosts up, or stops). */
  async giveBack(hosts: Iterable<string>): Promise<void> {
    for (const host of hosts) {
      const ahead = this.ahead.get(host);
      this.ahead.delete(host);
      for (const q of ahead ?? []) await this.store.urls.putBack(q.id);
    }
  }

  /**
   * URLs taken ahead for a host whose lease was lost are forgotten, not put back: the lease's end
   * queued them again, and another worker may be fetching them now.
   */
  forget(host: string): void {
    this.ahead.delete(host);
  }

  /** URLs taken ahead and not handed out yet (tests). */
  get takenAhead(): number {
    let n = 0;
    for (const a of this.ahead.values()) n += a.length;
    return n;
  }

  /**
   * Whether any page may be due for a revisit by `by`: the earliest revisit scheduled, read at most
   * once a second (pages fetched since are due later than that; revisitsChanged() reads it again).
   */
  private async revisitsDue(by: number): Promise<boolean> {
    if (!this.revisits || performance.now() - this.revisits.at > REVISITS_MAX_AGE_MS)
      this.revisits = { next: await this.store.urls.nextRevisitAt(), at: performance.now() };
    return this.revisits.next !== undefined && this.revisits.next <= by;
  }

  /** Pages may be due sooner than read (a sitemap's <lastmod>, a recrawl's start): read again at the next take. */
  revisitsChanged(): void {
    this.revisits = undefined;
  }

  /** Queues URLs (and counts the rejections of the links that were not admitted) in one transaction. */
  async enqueue(batch: EnqueueBatch): Promise<EnqueueResult> {
    const result = await this.store.enqueue(batch, this.now());
    this.added(result.added);
    return result;
  }

  /** URLs that entered the frontier (through enqueue or a page's commit): their hosts' counts grow. */
  added(urls: readonly string[]): void {
    for (const url of urls) {
      const host = new URL(url).host;
      this.perHost.set(host, (this.perHost.get(host) ?? 0) + 1);
    }
  }

  /** How many URLs of `host` were ever queued. */
  urlsOfHost(host: string): number {
    this.asked?.add(host);
    return this.perHost.get(host) ?? 0;
  }

  /**
   * Other workers queue URLs too: from now on the counts of the hosts asked about are read again
   * from the store at each refresh() (the filters ask synchronously, so the counts stay in RAM; a
   * host's cap may be passed by what the workers queue between two refreshes). And a host's queued
   * URLs are taken TAKE_AHEAD at a time: the worker holds the host (its lease), and gives back what
   * it took ahead when it gives the host up (giveBack).
   */
  share(): void {
    this.asked = new Set();
    this.takeAhead = TAKE_AHEAD;
  }

  /** Shared: the counts of the hosts asked about since the last refresh, as the store has them now. */
  async refresh(): Promise<void> {
    if (!this.asked?.size) return;
    const hosts = [...this.asked];
    this.asked.clear();
    const counts = await this.store.hosts.urlCounts(hosts);
    for (const host of hosts) this.perHost.set(host, Math.max(this.perHost.get(host) ?? 0, counts.get(host) ?? 0));
  }
}
