/**
 * What an adapter gives the frontier contract suite — a fresh store, and a frontier over it with
 * the settings a test asks for — and the suite's tools: a fake clock, robots.txt sources, and a
 * driver that crawls through the Frontier interface alone, as the loop does (crawler/loop.ts),
 * with scripted fetches of a fixed duration on the fake clock, logging when each URL was handed out.
 */
import type { NewUrl, Outcome, Revisit } from '../../../model/index.ts';
import type { Store } from '../../../store/index.ts';
import type { AllowedRules, RobotsRules, RobotsSource } from '../../robots/robots.ts';
import { type Frontier, type FrontierItem, type FrontierRun, type Next, PUT_BACK, type RequestEnd, type RevisitMode, type UrlCommit } from '../frontier.ts';
import type { HostPolicy } from '../hosts.ts';

/** The settings a test gives a frontier (the adapter adds its own: a lease for the leased one). */
export type FrontierSettings = {
  readonly policy: HostPolicy;
  readonly robots: RobotsSource;
  readonly maxPages: number;
  readonly revisits: RevisitMode;
  readonly maxSuspensions: number;
  readonly now: () => number;
};

export type FrontierFactory = {
  /** A new, empty store. */
  store(): Promise<Store>;
  /** A frontier over `store` (a new worker each time, for the leased adapter), its per-host counts loaded. */
  frontier(store: Store, settings: FrontierSettings): Promise<Frontier>;
  /** The settings of the config's defaults (config/schema.ts), which each test overrides as it needs. */
  readonly defaults: Pick<FrontierSettings, 'policy' | 'maxPages' | 'maxSuspensions'>;
};

/** What a test works on: a fresh store, a fake clock, a frontier over them. */
export type Setup = { readonly store: Store; readonly clock: FakeClock; readonly frontier: Frontier; again(): Promise<Frontier> };

/**
 * A test on a fresh store and a frontier with the defaults, `policy` and the rest overridden (revisits
 * off, robots.txt allowing all unless given); the store is closed after. `again()` makes another
 * frontier over the same store (a next run, another worker).
 */
export function withFrontier(
  factory: FrontierFactory,
  overrides: Partial<Omit<FrontierSettings, 'policy' | 'now'>> & { readonly policy?: Partial<HostPolicy> },
  test: (s: Setup) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const store = await factory.store();
    const clock = new FakeClock();
    const settings: FrontierSettings = {
      ...factory.defaults,
      robots: allowAll,
      revisits: 'off',
      ...overrides,
      policy: { ...factory.defaults.policy, ...overrides.policy },
      now: clock.now,
    };
    try {
      await test({ store, clock, frontier: await factory.frontier(store, settings), again: () => factory.frontier(store, settings) });
    } finally {
      await store.close();
    }
  };
}

export const T0 = 1_000_000;

/** A clock the tests move by hand. */
export class FakeClock {
  private t = T0;
  readonly now = (): number => this.t;
  set(t: number): void {
    this.t = Math.max(this.t, t);
  }
}

export const ALLOW_ALL: AllowedRules = { state: 'allow-all', isAllowed: () => true, sitemaps: [] };

/** robots.txt known for every host at once: all allowed. */
export const allowAll: RobotsSource = { cached: async () => ALLOW_ALL, load: async () => ALLOW_ALL };

/**
 * robots.txt of the hosts in `rules`, loaded only when a test lets it (`release`); other hosts are
 * allowed all, known at once. `loads` counts the loads asked for.
 */
export function heldRobots(rules: ReadonlyMap<string, AllowedRules>) {
  const loaded = new Set<string>();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const loads: string[] = [];
  const source: RobotsSource = {
    async cached(origin) {
      const host = new URL(origin).host;
      if (!rules.has(host)) return ALLOW_ALL;
      return loaded.has(host) ? rules.get(host) : undefined;
    },
    async load(origin): Promise<RobotsRules> {
      const host = new URL(origin).host;
      loads.push(host);
      await released;
      loaded.add(host);
      return rules.get(host) ?? ALLOW_ALL;
    },
  };
  return { source, release, loads };
}

/** Rules that disallow the paths starting with `prefix`, with a Crawl-delay. */
export const disallowing = (prefix: string, crawlDelaySeconds?: number): AllowedRules => ({
  state: 'rules',
  isAllowed: (url) => !new URL(url).pathname.startsWith(prefix),
  sitemaps: [],
  ...(crawlDelaySeconds !== undefined ? { crawlDelaySeconds } : {}),
});

/** Queues `urls` (depth 0 unless given) through the frontier. */
export async function queue(f: Frontier, ...urls: (string | NewUrl)[]): Promise<void> {
  await f.enqueue({ urls: urls.map((u) => (typeof u === 'string' ? { url: u, depth: 0 } : u)) });
}

/** How a scripted fetch ends: what the URL comes to, its links, its revisit; `hostFault` for a failure the host is blamed for. */
export type Fate = { readonly outcome: Outcome; readonly links?: readonly string[]; readonly revisit?: Revisit; readonly hostFault?: boolean };

/** A URL handed out, when, and when its request ended. */
export type Taken = {
  readonly url: string;
  readonly path: string;
  readonly host: string;
  readonly kind: string;
  readonly at: number;
  end?: number;
  readonly item: FrontierItem;
};

export type DriveOptions = {
  readonly concurrency: number;
  /** How long each request takes on the fake clock. */
  readonly fetchMs: number;
  /** What each fetched URL comes to (default: indexed, no links, no revisit). */
  readonly fate?: (item: FrontierItem, at: number) => Fate;
  /** Called as each URL's end is written. */
  readonly onFinish?: (item: FrontierItem) => void;
  /** Stops driving once this is true (checked after each event); default: when the frontier is done. */
  readonly until?: (taken: readonly Taken[]) => boolean;
  /** Start (or wake) the frontier first (default true). */
  readonly start?: boolean;
};

export const INDEXED: Fate = { outcome: { kind: 'indexed', status: 200 } };

/** The commit a scripted URL's end makes. */
export function commitOf(item: FrontierItem, fate: Fate, at: number): UrlCommit {
  const urls = (fate.links ?? []).map((url) => ({ url, depth: item.depth + 1 }));
  return { commit: { id: item.id, outcome: fate.outcome, revisit: fate.revisit ?? null, links: { urls } }, at, anchors: [] };
}

/** A run for the frontier: its wakes resolve woken() (one that came before it was asked for, at once); robots.txt loaded adds nothing. */
export function runOf(): FrontierRun & { woken(): Promise<void> } {
  let pending = false;
  let waiter: (() => void) | undefined;
  return {
    signal: new AbortController().signal,
    wake() {
      if (!waiter) pending = true;
      waiter?.();
      waiter = undefined;
    },
    woken() {
      if (!pending) return new Promise<void>((resolve) => (waiter = resolve));
      pending = false;
      return Promise.resolve();
    },
    robotsLoaded: async () => undefined,
    figures: () => ({ pages: 0, pagesPerSecond: 0 }),
  };
}

/**
 * Crawls through the frontier as the loop does — takes while fewer than `concurrency` requests are
 * in flight, each request ends `fetchMs` later on the fake clock, a URL's end is written and
 * settled, the clock moves to the next event (a request's end, the frontier's wake time) — until
 * the frontier is done (or `until`). Returns what was handed out, in order, and how it ended.
 */
export async function drive(
  f: Frontier,
  clock: FakeClock,
  o: DriveOptions,
  run = runOf(),
): Promise<{ taken: Taken[]; done?: Extract<Next, { kind: 'done' }>['reason'] }> {
  if (o.start !== false) await f.start(run);
  const taken: Taken[] = [];
  const inFlight: { t: Taken; endsAt: number }[] = [];
  const fate = o.fate ?? (() => INDEXED);
  for (;;) {
    let next: Next | undefined;
    while (inFlight.length < o.concurrency) {
      next = await f.next(clock.now());
      if (next.kind !== 'item') break;
      const { item } = next;
      const t: Taken = { url: item.url, path: new URL(item.url).pathname, host: item.host, kind: item.kind, at: clock.now(), item };
      taken.push(t);
      if (item.disallowed) {
        await f.finish(item, commitOf(item, { outcome: { kind: 'excluded', reason: 'robots.txt disallows it' } }, clock.now()));
        f.settled(item);
        o.onFinish?.(item);
      } else inFlight.push({ t, endsAt: clock.now() + o.fetchMs });
    }
    if (next?.kind === 'done') {
      // (As the loop does when the crawl ends: a shared frontier releases its hosts.)
      await f.stop();
      return { taken, done: next.reason };
    }
    if (o.until?.(taken)) return { taken };
    const wakeAt = next?.kind === 'wait' ? next.until : undefined;
    const at = Math.min(...inFlight.map((x) => x.endsAt), wakeAt ?? Number.POSITIVE_INFINITY);
    if (at === Number.POSITIVE_INFINITY) {
      // Nothing in flight, no time named: only a wake (a robots.txt loaded) brings more.
      if (!f.busy) throw new Error(`the frontier neither answers nor waits for anything (handed out: ${taken.map((t) => t.path).join(' ')})`);
      await run.woken();
      continue;
    }
    clock.set(at);
    for (const x of inFlight.filter((y) => y.endsAt <= clock.now())) {
      inFlight.splice(inFlight.indexOf(x), 1);
      x.t.end = clock.now();
      const end = fate(x.t.item, clock.now());
      const request: RequestEnd = { at: clock.now(), ok: !end.hostFault, ...(end.outcome.kind === 'failed' ? { error: end.outcome.error } : {}) };
      await f.fetched(x.t.item, request);
      await f.finish(x.t.item, commitOf(x.t.item, end, clock.now()));
      f.settled(x.t.item);
      o.onFinish?.(x.t.item);
    }
  }
}

/** Takes one URL now, as a loop would (it is then in flight until finished or put back). */
export async function takeOne(f: Frontier, clock: FakeClock): Promise<FrontierItem> {
  const next = await f.next(clock.now());
  if (next.kind !== 'item') throw new Error(`expected a URL, the frontier said ${JSON.stringify(next)}`);
  return next.item;
}

/** Ends a URL taken by takeOne: fetched and finished as `fate` says (or put back), and settled. */
export async function end(f: Frontier, clock: FakeClock, item: FrontierItem, fate: Fate | typeof PUT_BACK = INDEXED): Promise<void> {
  await f.fetched(item, { at: clock.now(), ok: true });
  if ('putBack' in fate) await f.finish(item, PUT_BACK);
  else await f.finish(item, commitOf(item, fate, clock.now()));
  f.settled(item);
}
