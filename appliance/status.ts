/**
 * What Trawl tells about itself: the crawl's figures, the hosts, the latest fetches, the revisits,
 * the focus and the index (ApplianceStatus); and what it knows of one URL ("why is this page not
 * in the index?"). It watches the crawler's events and reads the store; it changes nothing.
 */
import type { Config } from '../config/schema.ts';
import { admit, type Crawler, type UrlPolicy } from '../crawler/index.ts';
import type { HostScheduler } from '../crawler/index.ts';
import type { Focus } from '../crawler/focus/index.ts';
import type { SearchIndex } from '../indexer/index.ts';
import { NearDuplicateCensus } from '../indexer/structures/near-duplicates.ts';
import type { Extraction } from '../crawler/template/index.ts';
import type {
  ApplianceStatus,
  AuthScopeStatus,
  CrawlStats,
  FailureReport,
  FetchEvent,
  FrontierCounts,
  NearDuplicateStatus,
  RenderStatus,
  SeedStatus,
  TemplateStatus,
  UrlExplanation,
} from '../model/index.ts';
import type { RenderDeps } from '../crawler/render/stage.ts';
import type { Normalizer } from '../crawler/urls/index.ts';
import type { Store } from '../store/index.ts';
import { CrawlHistory } from './history.ts';
import { workersOf, workerStatus } from './workers.ts';

const RECENT_FETCHES = 20;
/** Seeds reported at most (each costs a read of its record). */
const SEEDS_SHOWN = 20;
/** Broken links, and failures of the crawl, listed at most (each kind is counted in full). */
export const FAILURES_SHOWN = 20;

/** What a round of revisits found (pages Trawl held, fetched again). */
export type RevisitTally = { revisited: number; changed: number; unchanged: number; removed: number };

export const noRevisits = (): RevisitTally => ({ revisited: 0, changed: 0, unchanged: 0, removed: 0 });

/** The parts of a running appliance that the status reads. */
export type StatusSources = {
  readonly config: Readonly<Config>;
  readonly store: Store;
  readonly index: SearchIndex;
  readonly crawl:
    | {
        readonly crawler: Crawler;
        readonly scheduler: HostScheduler;
        readonly policy: UrlPolicy;
        readonly render?: RenderDeps | undefined;
        readonly auth?: { view(): AuthScopeStatus[] } | undefined;
        readonly extraction?: Extraction;
      }
    | undefined;
  /** Pages cleaned of templates learned after they were stored (appliance/template-clean.ts). */
  readonly cleaned?: number;
  /** How seeds (kept as given) map to the identities their records are kept under. */
  readonly normalize: Normalizer;
  readonly focus: Focus | undefined;
  readonly continuous: boolean;
  readonly lastFlush: { readonly createdAt: string; readonly ms: number | null; readonly bytes: number | null } | undefined;
  /** False once the store is closed: only what was kept in memory is then reported. */
  readonly open: boolean;
};

export class StatusReporter {
  private lastStats: CrawlStats | null = null;
  private readonly recent: FetchEvent[] = [];
  /** What this run's revisits found. */
  readonly revisits = noRevisits();
  /** The URL counts when the store was last read, for a report after it closed. */
  private counts: FrontierCounts | undefined;
  private seeds: readonly SeedStatus[] = [];
  private failures: FailureReport | undefined;
  /** The crawl's figures over time (absent until a crawl is watched). */
  private history: CrawlHistory | undefined;
  /** The count of near-duplicates, made anew when the index changed (at most once a minute, or at a tenth more). */
  private census: NearDuplicateCensus | undefined;

  /** Follows a crawl's events. */
  watch(crawler: Crawler, onRevisit: (e: FetchEvent) => void): void {
    const history = (this.history ??= new CrawlHistory());
    crawler.on('stats', (s) => {
      this.lastStats = s;
      history.add(s, Date.now());
    });
    crawler.on('fetch', (e) => {
      this.recent.unshift(e);
      this.recent.length = Math.min(this.recent.length, RECENT_FETCHES);
      if (!e.held) return;
      count(this.revisits, e);
      onRevisit(e);
    });
  }

  /** The last census of near-duplicates (the first is awaited; later ones run behind). */
  private async nearDuplicates(index: SearchIndex): Promise<NearDuplicateStatus> {
    this.census ??= new NearDuplicateCensus(index.simhashes, index.foldDistance);
    const f = this.census.figures() ?? (await this.census.count());
    return { maxDistance: index.foldDistance, documents: f.documents, clusters: f.clusters, countedAt: new Date(f.countedAt).toISOString() };
  }

  /** Reads the URL counts (and the failures) now, to report them once the store is closed. */
  async keepCounts(store: Store, normalize: Normalizer): Promise<void> {
    this.counts = await store.urls.counts();
    this.seeds = await seedStatus(store, normalize);
    this.failures = await store.urls.failures(FAILURES_SHOWN);
  }

  async status(s: StatusSources): Promise<ApplianceStatus> {
    const now = Date.now();
    if (s.open) await this.keepCounts(s.store, s.normalize);
    const counts = this.counts!;
    const c = s.crawl?.crawler;
    const hosts = (s.crawl?.scheduler.view(now) ?? []).sort((a, b) => b.inFlight - a.inFlight || b.errors - a.errors).slice(0, 50);
    // (The CLI reports the status after close(): what is read from the store is then left out.)
    const queued = s.open ? await s.store.hosts.queued(hosts.map((h) => h.host)) : new Map<string, number>();
    return {
      seeds: this.seeds,
      crawl: {
        running: c?.running ?? false,
        paused: c?.paused ?? false,
        fetched: counts.indexed + counts.fetched + counts['not-modified'],
        indexed: counts.indexed,
        queued: counts.queued,
        inFlight: c?.inFlight() ?? 0,
        failed: counts.failed + counts.dead,
        retrying: counts.failed,
        dead: counts.dead,
        excluded: counts.excluded,
        redirected: counts.redirected,
        pagesPerSecond: c?.pagesPerSecond() ?? 0,
        stats: this.lastStats,
        hosts: hosts.map((h) => ({ ...h, queued: queued.get(h.host) ?? 0 })),
        rejections: s.open ? (await s.store.rejections.all()).slice(0, 20) : [],
        linksCut: s.open ? await s.store.urls.linksCut() : { pages: 0, links: 0 },
        ...(s.crawl?.extraction?.templates ? { templates: templateStatus(s.crawl.extraction, s.cleaned ?? 0) } : {}),
        ...(this.failures ? { brokenLinks: this.failures.brokenLinks, fetchFailures: this.failures.fetchFailures } : {}),
      },
      ...(this.history ? { history: [...this.history.all] } : {}),
      recrawl: {
        continuous: s.continuous,
        due: s.open ? await s.store.urls.dueRevisits(now) : 0,
        nextDueAt: s.open ? iso(await s.store.urls.nextRevisitAt()) : null,
        ...this.revisits,
      },
      focus:
        s.focus || s.config.focus.topicFile || s.config.focus.classifier
          ? {
              classifier: s.focus?.classifier.name ?? (s.config.focus.classifier ? `module ${s.config.focus.classifier}` : `topic ${s.config.focus.topicFile}`),
              cutoff: s.config.focus.cutoff,
              ...(s.open ? await s.store.urls.topicVerdicts() : { relevant: 0, notRelevant: 0 }),
            }
          : null,
      ...(s.crawl?.render ? { render: renderStatus(s.crawl.render) } : {}),
      ...(s.crawl?.auth ? { auth: s.crawl.auth.view() } : {}),
      // A shared store's crawlers (PostgreSQL: any number of processes; SQLite: this one alone, not listed).
      ...(s.config.store && s.open ? { workers: (await workersOf(s.store, s.config.cluster.leaseMs, now)).workers.map(workerStatus) } : {}),
      index: {
        documents: s.index.documentCount,
        terms: s.index.stats.termCount,
        byType: s.index.countByType(),
        lastFlushAt: s.lastFlush?.createdAt ?? null,
        lastFlushMs: s.lastFlush?.ms ?? null,
        lastFlushBytes: s.lastFlush?.bytes ?? null,
        ...(s.index.foldDistance > 0 ? { nearDuplicates: await this.nearDuplicates(s.index) } : {}),
      },
      recent: [...this.recent],
    };
  }
}

/** The templates learned in this run. */
function templateStatus(e: Extraction, cleaned: number): TemplateStatus {
  const f = e.templates!.figures();
  return { hosts: f.hosts, blocks: f.blocks, pagesCleaned: cleaned, hostsForgotten: f.forgotten };
}

/** What the browser did in this run, and the hosts rendered from the start. */
function renderStatus(r: RenderDeps): RenderStatus {
  const f = r.service.figures();
  return {
    mode: r.policy.mode,
    rendered: f.rendered,
    failed: f.failed,
    waiting: f.waiting,
    rendering: f.rendering,
    meanMs: f.rendered + f.failed ? Math.round(f.totalMs / (f.rendered + f.failed)) : 0,
    browserRssBytes: f.browserRssBytes,
    restarts: f.restarts,
    unavailable: f.unavailable,
    wouldRender: f.wouldRender,
    renderingHosts: r.policy
      .view()
      .filter((h) => h.habit === 'render')
      .slice(0, 20)
      .map((h) => h.host),
  };
}

/** The first seeds and what became of them. */
async function seedStatus(store: Store, normalize: Normalizer): Promise<SeedStatus[]> {
  const out: SeedStatus[] = [];
  for (const url of (await store.seeds.all()).slice(0, SEEDS_SHOWN)) {
    const n = normalize(url);
    const r = n.ok ? await store.urls.record(n.url) : undefined;
    if (!r) {
      out.push({ url, state: 'unknown', fetched: false, error: null, reason: null });
      continue;
    }
    const fetched = r.httpStatus !== null || r.state === 'indexed' || r.state === 'fetched' || r.state === 'not-modified' || r.state === 'redirected';
    out.push({ url, state: r.state, fetched, error: r.error, reason: r.reason });
  }
  return out;
}

/** What Trawl knows of `url`: its record, or why it has none. */
export async function explain(url: string, store: Store, index: SearchIndex, policy: UrlPolicy | undefined): Promise<UrlExplanation> {
  const n = policy?.normalize(url) ?? { ok: true as const, url };
  if (!n.ok) return { known: false, url, reason: `not a URL Trawl can crawl: ${n.reason}` };
  const r = await store.urls.record(n.url);
  if (!r) {
    const a = policy ? admit(policy, url, 0) : undefined;
    const reason =
      a && !a.ok
        ? `never queued: it is rejected (${a.detail ? `${a.reason}: ${a.detail}` : a.reason})`
        : 'never seen: no crawled page links to it yet (add it as a seed to crawl it)';
    return { known: false, url: n.url, reason };
  }
  return {
    known: true,
    url: r.url,
    state: r.state,
    indexed: index.stats.has(r.id),
    reason: r.reason,
    error: r.error,
    httpStatus: r.httpStatus,
    attempts: r.attempts,
    depth: r.depth,
    discoveredAt: new Date(r.discoveredAt).toISOString(),
    fetchedAt: iso(r.fetchedAt),
    nextAttemptAt: iso(r.nextAttemptAt),
    revisitAt: iso(r.revisitAt),
    changedAt: iso(r.changedAt),
    contentType: r.contentType,
    lang: r.lang,
    topicScore: r.topicScore,
    relevant: r.relevant,
    classes: (r.state === 'indexed' ? (await store.documents.get(r.id))?.topic?.classes : undefined) ?? [],
    linksCut: r.linksCut,
    rendered: r.rendered,
  };
}

/** Adds a revisit's finding to a tally. */
export function count(t: RevisitTally, e: FetchEvent): void {
  t.revisited++;
  if (e.change === 'changed') t.changed++;
  else if (e.change === 'unchanged') t.unchanged++;
  else if (e.change === 'gone') t.removed++;
}

function iso(t: number | null | undefined): string | null {
  return t === undefined || t === null ? null : new Date(t).toISOString();
}
