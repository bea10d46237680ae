/**
 * GET /metrics through prom-client: the process metrics operators expect (CPU, memory, heap
 * spaces, event-loop lag, GC, handles) beside Trawl's own — the search server's counters and
 * latency histogram, and the crawl's and index's figures, read from the status at each scrape.
 * One registry per app (never prom-client's global one): two apps in a process, as in the tests,
 * keep their own counts.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { STAGES, type ApplianceStatus } from '../model/index.ts';

/** Upper bounds of the search latency histogram, in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const URL_STATES = ['queued', 'in_flight', 'indexed', 'retrying', 'dead', 'excluded', 'redirected'] as const;

export class SearchMetrics {
  readonly registry = new Registry();
  private readonly searches: Counter;
  private readonly errors: Counter;
  private readonly latency: Histogram;
  /** Figures read from the status: set at each scrape (update()). */
  private readonly fromStatus: ReturnType<typeof statusMetrics>;

  constructor(opts: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (opts.processMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.searches = new Counter({ name: 'trawl_searches_total', help: 'Searches answered (web page and JSON API).', registers });
    this.errors = new Counter({ name: 'trawl_search_errors_total', help: 'Searches refused with 400 (bad queries or parameters).', registers });
    this.latency = new Histogram({ name: 'trawl_search_duration_seconds', help: 'Time to answer a search, in the index.', buckets: BUCKETS, registers });
    this.fromStatus = statusMetrics(this.registry);
  }

  /** A search answered, and how long it took. */
  observe(ms: number): void {
    this.searches.inc();
    this.latency.observe(ms / 1000);
  }

  /** A search refused (a bad query: 400). */
  refused(): void {
    this.errors.inc();
  }

  /** The metrics in the Prometheus text format, with the status's figures as of `status`. */
  async render(status: ApplianceStatus): Promise<string> {
    this.fromStatus.update(status);
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The crawl's and index's metrics, and how a status sets them. */
function statusMetrics(registry: Registry) {
  const registers = [registry];
  const gauge = (name: string, help: string, labelNames: string[] = []) => new Gauge({ name, help, labelNames, registers });
  // Counters kept by the crawl, not by this server: each scrape sets them to the crawl's own count.
  const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers });
  const setCounter = (c: Counter, entries: readonly (readonly [Record<string, string>, number])[]) => {
    c.reset();
    for (const [labels, v] of entries) c.inc(labels, Math.max(0, v));
  };

  const running = gauge('trawl_crawl_running', '1 while the crawl runs.');
  const paused = gauge('trawl_crawl_paused', '1 while an admin has paused the crawl.');
  // (A gauge: a recrawl queues fetched pages again, so the number can go down.)
  const fetched = gauge('trawl_pages_fetched', 'URLs whose last fetch succeeded.');
  const rate = gauge('trawl_pages_per_second', 'Requests completed per second over the last 10 seconds.');
  const urls = gauge('trawl_urls', 'URLs by state.', ['state']);
  const requests = counter('trawl_crawl_requests_total', 'Requests made by this run of the crawler.');
  const bytes = counter('trawl_crawl_bytes_total', 'Bytes downloaded by this run of the crawler.');
  const stageSeconds = counter('trawl_crawl_stage_seconds_total', 'Time spent per pipeline stage (fetch, parse, classify, store, index, links) by this run.', [
    'stage',
  ]);
  const stagePages = counter('trawl_crawl_stage_pages_total', 'Pages through each pipeline stage in this run (with the seconds above: the mean latency).', [
    'stage',
  ]);
  const outcomes = counter('trawl_crawl_outcomes_total', 'Request outcomes in this run, by kind.', ['outcome']);
  const rejections = counter('trawl_rejections_total', 'URLs not queued, by reason.', ['reason']);
  const linksCut = gauge(
    'trawl_links_cut_pages',
    'Pages with more links than limits.maxLinksPerPage at their last fetch (their links beyond it not followed).',
  );
  const due = gauge('trawl_recrawl_due', 'Pages whose revisit is due now.');
  const revisits = counter('trawl_revisits_total', 'Fetches of pages Trawl held, in this run, by what they found (revisited counts them all).', ['result']);
  // (A gauge: a page judged again may change sides.)
  const focus = gauge('trawl_focus_pages', 'Pages of a focused crawl by their last verdict.', ['verdict']);
  const rendered = counter('trawl_render_pages_total', 'Pages rendered in the browser by this run, by result.', ['result']);
  const renderWaiting = gauge('trawl_render_waiting', 'Pages waiting for the browser.');
  const browserMemory = gauge('trawl_render_browser_resident_bytes', "The browser's resident memory (all its processes).");
  const documents = gauge('trawl_index_documents', 'Documents in the index.');
  const terms = gauge('trawl_index_terms', 'Distinct terms in the index.');
  const lastFlush = gauge('trawl_index_last_flush_timestamp_seconds', 'When the index was last written to disk.');
  const flushBytes = gauge('trawl_index_flush_bytes', 'Size of the last flush on disk.');

  return {
    update(status: ApplianceStatus): void {
      const c = status.crawl;
      running.set(c.running ? 1 : 0);
      paused.set(c.paused ? 1 : 0);
      fetched.set(c.fetched);
      rate.set(c.pagesPerSecond);
      const byState: Record<(typeof URL_STATES)[number], number> = {
        queued: c.queued,
        in_flight: c.inFlight,
        indexed: c.indexed,
        retrying: c.retrying,
        dead: c.dead,
        excluded: c.excluded,
        redirected: c.redirected,
      };
      for (const state of URL_STATES) urls.set({ state }, byState[state]);
      const run = c.stats;
      setCounter(requests, run ? [[{}, run.requests]] : []);
      setCounter(bytes, run ? [[{}, run.bytes]] : []);
      setCounter(stageSeconds, run ? STAGES.map((s) => [{ stage: s }, run.stages[s].ms / 1000] as const) : []);
      setCounter(stagePages, run ? STAGES.map((s) => [{ stage: s }, run.stages[s].count] as const) : []);
      setCounter(outcomes, run ? Object.entries(run.outcomes).map(([outcome, v]) => [{ outcome }, v] as const) : []);
      setCounter(
        rejections,
        c.rejections.map((r) => [{ reason: r.reason }, r.count] as const),
      );
      linksCut.set(c.linksCut?.pages ?? 0);
      const r = status.recrawl;
      due.set(r.due);
      setCounter(
        revisits,
        (['revisited', 'changed', 'unchanged', 'removed'] as const).map((k) => [{ result: k }, r[k]] as const),
      );
      focus.reset();
      if (status.focus) {
        focus.set({ verdict: 'relevant' }, status.focus.relevant);
        focus.set({ verdict: 'not-relevant' }, status.focus.notRelevant);
      }
      const rs = status.render;
      setCounter(rendered, rs ? [[{ result: 'rendered' }, rs.rendered] as const, [{ result: 'failed' }, rs.failed] as const] : []);
      renderWaiting.set(rs?.waiting ?? 0);
      browserMemory.set(rs?.browserRssBytes ?? 0);
      documents.set(status.index.documents);
      terms.set(status.index.terms);
      lastFlush.reset();
      if (status.index.lastFlushAt) lastFlush.set(Date.parse(status.index.lastFlushAt) / 1000);
      flushBytes.reset();
      if (status.index.lastFlushBytes !== null) flushBytes.set(status.index.lastFlushBytes);
    },
  };
}
