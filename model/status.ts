/**
 * What Trawl tells about itself: the crawl's figures, the hosts, the latest fetches, the index,
 * and what it knows of one URL. The orchestrator fills these in; the dashboard, the JSON API, the
 * metrics and the CLI read them.
 */
import type { Outcome, UrlState } from './urls.ts';

/** The crawl pipeline's stages, each timed (crawler/stats.ts). */
export const STAGES = ['fetch', 'parse', 'render', 'classify', 'store', 'index', 'links'] as const;
export type Stage = (typeof STAGES)[number];

export type StageFigures = { readonly count: number; readonly ms: number };

/** Per-stage figures of a crawl run. */
export type CrawlStats = {
  readonly requests: number;
  readonly bytes: number;
  readonly pagesPerSecond: number;
  readonly stages: Readonly<Record<Stage, StageFigures>>;
  /** Outcomes by kind (this run). */
  readonly outcomes: Readonly<Record<string, number>>;
};

/** What the status page shows about a host's politeness state. */
export type HostView = {
  readonly host: string;
  readonly inFlight: number;
  readonly delayMs: number;
  readonly errors: number;
  readonly waitingForRobots: boolean;
  /** Until when the host is suspended (ISO 8601); null: it is not. */
  readonly suspendedUntil: string | null;
  readonly suspensions: number;
  readonly lastError: string | null;
};

/** One request, as the crawl reports it when it ends. */
export type FetchEvent = {
  readonly url: string;
  readonly status: number | string;
  readonly ms: number;
  readonly bytes: number;
  readonly outcome: Outcome['kind'];
  /** Trawl held the page before this fetch: a revisit (due, or asked for). */
  readonly held?: boolean;
  /**
   * What became of the page in the index: first stored (`new`), stored again with new text
   * (`changed`), the same as held (`unchanged`: a 304 or the same text), or removed (`gone`).
   */
  readonly change?: 'new' | 'changed' | 'unchanged' | 'gone';
};

export type CrawlStatus = {
  readonly running: boolean;
  /** Paused by an admin (POST /api/pause). */
  readonly paused: boolean;
  /** Pages fetched with success: documents, sitemaps, not-modified. */
  readonly fetched: number;
  readonly indexed: number;
  readonly queued: number;
  readonly inFlight: number;
  /** Failures: those waiting for another attempt plus those given up (the site's broken links among them). */
  readonly failed: number;
  readonly retrying: number;
  readonly dead: number;
  readonly excluded: number;
  readonly redirected: number;
  readonly pagesPerSecond: number;
  /** Per-stage figures of this run (crawler/stats.ts). */
  readonly stats: CrawlStats | null;
  /** Hosts with their politeness state and queued URLs, the busiest first. */
  readonly hosts: readonly (HostView & { readonly queued: number })[];
  /** Why URLs were not queued (out of scope, robots.txt, limits…), with counts, most first. */
  readonly rejections: readonly { readonly reason: string; readonly count: number }[];
  /** Pages with more links than limits.maxLinksPerPage at their last fetch, and the links not followed. */
  readonly linksCut?: { readonly pages: number; readonly links: number };
  /** Templates learned (absent: extract.template.learn is off). */
  readonly templates?: TemplateStatus;
  /** Of `failed`, the links of the crawled sites to pages that are not there (absent: the store was not read). */
  readonly brokenLinks?: Listed<BrokenLink>;
  /** Of `failed`, the crawl's own failures: every one that is not a broken link (absent: the store was not read). */
  readonly fetchFailures?: Listed<FailedUrl>;
};

/** How many there are, and the first few (in the order Trawl found them). */
export type Listed<T> = { readonly count: number; readonly shown: readonly T[] };

/**
 * A link of a crawled site to a page that is not there: a URL reached from a link (not a seed) that
 * answered 404 or 410 — the site's fault, which the site's authors may want to fix; not the crawl's.
 */
export type BrokenLink = {
  readonly url: string;
  /** 404 or 410. */
  readonly status: number;
  /** The page whose links first led to it (null: not recorded — found before Trawl kept it). */
  readonly foundOn: string | null;
  /**
   * Links to it from the crawled pages that carry text (the anchor text counted for the index; a link
   * without text is not counted). Only the first page is kept for each URL: the seen-set queues it once.
   */
  readonly links: number;
};

/** A URL the crawl could not fetch, broken links left out: a timeout, a 5xx, a refused connection, a page it could not parse… */
export type FailedUrl = {
  readonly url: string;
  /** `failed`: another attempt is due; `dead`: given up. */
  readonly state: 'failed' | 'dead';
  /** Its error code (model/errors.ts) and why. */
  readonly error: string | null;
  readonly reason: string | null;
  readonly httpStatus: number | null;
  readonly attempts: number;
};

/** The failed URLs told apart: the sites' broken links and the crawl's own failures (UrlStore.failures). */
export type FailureReport = { readonly brokenLinks: Listed<BrokenLink>; readonly fetchFailures: Listed<FailedUrl> };

/** The revisit schedule and what this run's revisits found (pages Trawl held, fetched again). */
export type RecrawlStatus = {
  /** Pages are revisited as they fall due, for as long as the process runs (`trawl start`). */
  readonly continuous: boolean;
  /** Pages whose revisit is due now. */
  readonly due: number;
  /** When the next page falls due (ISO), or null when none is scheduled. */
  readonly nextDueAt: string | null;
  readonly revisited: number;
  readonly changed: number;
  readonly unchanged: number;
  /** Removed from the index: gone from the site (404/410 twice), moved, or noindex now. */
  readonly removed: number;
};

/** A focused crawl (config `focus`): what judges pages, and how many it found relevant. */
export type FocusStatus = {
  /** The classifier: the topic, scorer and cutoff, or the module's path. */
  readonly classifier: string;
  readonly cutoff: number;
  /** Pages whose last fetch found them relevant (stored and indexed), and not relevant (recorded only). */
  readonly relevant: number;
  readonly notRelevant: number;
};

export type IndexStatus = {
  readonly documents: number;
  readonly terms: number;
  readonly lastFlushAt: string | null;
  readonly lastFlushMs: number | null;
  readonly lastFlushBytes: number | null;
  /** Documents by type (`html`, `pdf`, `docx`…), most first. */
  readonly byType?: readonly { readonly type: string; readonly count: number }[];
  /** Near-duplicates (index.nearDuplicates.maxDistance; absent when 0): as last counted. */
  readonly nearDuplicates?: NearDuplicateStatus;
};

/**
 * Documents that have a near-duplicate — another within `maxDistance` bits of SimHash — and the
 * clusters they form (joined by such pairs), as the last census counted them (indexer/structures/near-duplicates.ts).
 */
export type NearDuplicateStatus = {
  readonly maxDistance: number;
  readonly documents: number;
  readonly clusters: number;
  /** When they were counted (ISO). */
  readonly countedAt: string;
};

/** Hosts' templates learned in this run (crawler/template), and the stored pages cleaned of them. */
export type TemplateStatus = {
  /** Hosts with a template, and the blocks of text in them all. */
  readonly hosts: number;
  readonly blocks: number;
  /** Stored pages cleaned of blocks learned after they were stored. */
  readonly pagesCleaned: number;
  /** Hosts whose counts were dropped for newer ones (at most 1,000 are kept). */
  readonly hostsForgotten: number;
};

/** A seed, and whether it could be fetched: a crawl that fetched none of its seeds says why. */
export type SeedStatus = {
  readonly url: string;
  /** Its URL record's state (`unknown`: not queued, e.g. out of scope). */
  readonly state: UrlState | 'unknown';
  /** An HTTP response came back (whatever its status). */
  readonly fetched: boolean;
  /** The error code and reason of its last failure, or why it was excluded. */
  readonly error: string | null;
  readonly reason: string | null;
};

/** Rendering in a browser (crawler/render): the mode, what this run rendered, the browser's state. */
export type RenderStatus = {
  readonly mode: 'never' | 'auto' | 'always';
  /** Pages rendered and renders that failed, in this run. */
  readonly rendered: number;
  readonly failed: number;
  /** Pages waiting for a slot in the browser, and being rendered now. */
  readonly waiting: number;
  readonly rendering: number;
  /** Mean milliseconds a render took (0: none yet). */
  readonly meanMs: number;
  /** The browser's resident memory, all its processes (0: not running). */
  readonly browserRssBytes: number;
  readonly restarts: number;
  /** Why there is no browser (null: there is one, or none was needed yet). */
  readonly unavailable: string | null;
  /** Pages that needed a browser while there was none: indexed from their plain HTML. */
  readonly wouldRender: number;
  /** Hosts whose pages are rendered from the start (they kept needing it). */
  readonly renderingHosts: readonly string[];
};

/** A scope of `auth`: its logins and refusals in this run — never a secret. */
export type AuthScopeStatus = {
  /** Its `match` rule. */
  readonly scope: string;
  /** Its kinds of credentials: basic, digest, bearer, headers, cookies, form. */
  readonly kind: string;
  readonly logins: number;
  readonly loginFailures: number;
  /** Sessions that ended and were renewed by logging in again. */
  readonly renewals: number;
  /** Requests whose credentials were refused (401/403), or sent to the login page. */
  readonly refused: number;
  readonly lastProblem: string | null;
  /** Requests it gave its credentials to in this run (0: it never applied — its `match` covered no URL asked for). */
  readonly requests: number;
  /** Pages it does not cover that were sent to its login page (a redirect) in this run: a sign that its `match` misses the site. */
  readonly loginRedirectsOutside: number;
  /** The hosts of those pages as Trawl sees them (with their port), the first few. */
  readonly hostsOutside: readonly string[];
};

/** A crawler of a shared store (PostgreSQL) as it last told it, with the hosts under its lease. */
export type WorkerStatus = {
  readonly id: string;
  /** The machine it runs on, and its process id there. */
  readonly machine: string;
  readonly pid: number;
  /** `running` while it renews its leases; `stale` once they could have run out unrenewed; `stopped` once it said so. */
  readonly state: 'running' | 'stale' | 'stopped';
  /** Hosts under its lease now, and those whose lease ran out unrenewed. */
  readonly hosts: number;
  readonly staleHosts: number;
  readonly pages: number;
  readonly pagesPerSecond: number;
  readonly startedAt: string;
  /** Its last heartbeat. */
  readonly seenAt: string;
};

/** A shard of a sharded index as its coordinator (`trawl serve --shards`) last asked it. */
export type ShardStatus = {
  readonly url: string;
  /** "K/N", as the shard says it holds (null: it does not say — it answered for every document, or not at all). */
  readonly shard: string | null;
  readonly up: boolean;
  readonly documents: number;
  /** When it was last asked, and how long it took to answer (or to fail). */
  readonly checkedAt: string;
  readonly ms: number;
  /** Why it did not answer (null: it did). */
  readonly error: string | null;
};

/** One moment of this process's crawl, for the dashboard's chart (crawler/stats.ts, as the crawler reports it each second). */
export type CrawlSample = {
  /** When (ISO 8601). */
  readonly at: string;
  readonly pagesPerSecond: number;
  /** Pages fetched with success so far (documents, sitemaps, not modified). */
  readonly pages: number;
  /** Fetches that failed so far (a URL tried again counts each time). */
  readonly failures: number;
};

export type ApplianceStatus = {
  readonly crawl: CrawlStatus;
  /** The crawl's history in this process, oldest first, thinned evenly over the whole of it (absent: no crawl in this process). */
  readonly history?: readonly CrawlSample[];
  /** The crawl's seeds (the first few) and what became of them. */
  readonly seeds?: readonly SeedStatus[];
  readonly recrawl: RecrawlStatus;
  /** null: not a focused crawl. */
  readonly focus: FocusStatus | null;
  /** Absent: no crawl in this process, or render.mode never. */
  readonly render?: RenderStatus;
  /** The scopes of `auth` (absent: none, or no crawl in this process). */
  readonly auth?: readonly AuthScopeStatus[];
  /** The crawlers sharing the store, each as it last told it (absent: the store is this process's alone — SQLite). */
  readonly workers?: readonly WorkerStatus[];
  /** The shards a coordinator merges (absent: this server answers from its own index). */
  readonly shards?: readonly ShardStatus[];
  readonly index: IndexStatus;
  readonly recent: readonly FetchEvent[];
};

/** What Trawl knows of a URL ("why is this page not in the index?"). */
export type UrlExplanation =
  | { readonly known: false; readonly url: string; readonly reason: string }
  | {
      readonly known: true;
      /** The URL as Trawl keeps it (normalized). */
      readonly url: string;
      readonly state: string;
      readonly indexed: boolean;
      /** Why it was excluded, failed or given up, or where it redirects. */
      readonly reason: string | null;
      readonly error: string | null;
      readonly httpStatus: number | null;
      readonly attempts: number;
      readonly depth: number;
      readonly discoveredAt: string;
      readonly fetchedAt: string | null;
      readonly nextAttemptAt: string | null;
      /** When it is due to be fetched again, and when its text last changed. */
      readonly revisitAt: string | null;
      readonly changedAt: string | null;
      readonly contentType: string | null;
      readonly lang: string | null;
      /** A focused crawl's verdict at its last fetch (null: not judged), and the classes it is indexed under. */
      readonly topicScore: number | null;
      readonly relevant: boolean | null;
      readonly classes: readonly { readonly name: string; readonly score: number }[];
      /** Links of the page beyond limits.maxLinksPerPage at its last fetch, not followed (null: none). */
      readonly linksCut?: number | null;
      /** Why it was rendered in a browser at its last fetch (null: it was not). */
      readonly rendered?: string | null;
    };
