/**
 * GET /metrics in the Prometheus text format (version 0.0.4): the search server's own counters
 * and latency histogram, and the crawl's and index's figures read from the status.
 */
import type { ApplianceStatus } from '../model/index.ts';

/** Upper bounds of the search latency histogram, in seconds. */
const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];

export class SearchMetrics {
  private readonly counts = new Array<number>(BUCKETS.length).fill(0);
  private sum = 0;
  private searches = 0;
  private rejected = 0;

  /** A search answered, and how long it took. */
  observe(ms: number): void {
    const s = ms / 1000;
    this.searches++;
    this.sum += s;
    const i = BUCKETS.findIndex((b) => s <= b);
    if (i >= 0) this.counts[i]!++;
  }

  /** A search refused (a bad query: 400). */
  refused(): void {
    this.rejected++;
  }

  render(status: ApplianceStatus): string {
    const out: string[] = [];
    const metric = (name: string, type: 'counter' | 'gauge' | 'histogram', help: string, lines: string[]) => out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...lines);
    const c = status.crawl;
    metric('trawl_searches_total', 'counter', 'Searches answered (web page and JSON API).', [`trawl_searches_total ${this.searches}`]);
    metric('trawl_search_errors_total', 'counter', 'Searches refused with 400 (bad queries or parameters).', [`trawl_search_errors_total ${this.rejected}`]);
    let cumulative = 0;
    metric('trawl_search_duration_seconds', 'histogram', 'Time to answer a search, in the index.', [
      ...BUCKETS.map((b, i) => `trawl_search_duration_seconds_bucket{le="${b}"} ${(cumulative += this.counts[i]!)}`),
      `trawl_search_duration_seconds_bucket{le="+Inf"} ${this.searches}`,
      `trawl_search_duration_seconds_sum ${this.sum.toFixed(6)}`,
      `trawl_search_duration_seconds_count ${this.searches}`,
    ]);
    metric('trawl_crawl_running', 'gauge', '1 while the crawl runs.', [`trawl_crawl_running ${c.running ? 1 : 0}`]);
    metric('trawl_crawl_paused', 'gauge', '1 while an admin has paused the crawl.', [`trawl_crawl_paused ${c.paused ? 1 : 0}`]);
    // (A gauge: a recrawl queues fetched pages again, so the number can go down.)
    metric('trawl_pages_fetched', 'gauge', 'URLs whose last fetch succeeded.', [`trawl_pages_fetched ${c.fetched}`]);
    metric('trawl_pages_per_second', 'gauge', 'Requests completed per second over the last 10 seconds.', [`trawl_pages_per_second ${c.pagesPerSecond}`]);
    metric('trawl_urls', 'gauge', 'URLs by state.', [
      ...(
        [
          ['queued', c.queued],
          ['in_flight', c.inFlight],
          ['indexed', c.indexed],
          ['retrying', c.retrying],
          ['dead', c.dead],
          ['excluded', c.excluded],
          ['redirected', c.redirected],
        ] as const
      ).map(([state, n]) => `trawl_urls{state="${state}"} ${n}`),
    ]);
    const run = c.stats;
    if (run) {
      metric('trawl_crawl_requests_total', 'counter', 'Requests made by this run of the crawler.', [`trawl_crawl_requests_total ${run.requests}`]);
      metric('trawl_crawl_bytes_total', 'counter', 'Bytes downloaded by this run of the crawler.', [`trawl_crawl_bytes_total ${run.bytes}`]);
      const stages = Object.entries(run.stages);
      metric('trawl_crawl_stage_seconds_total', 'counter', 'Time spent per pipeline stage (fetch, parse, classify, store, index, links) by this run.', stages.map(([k, v]) => `trawl_crawl_stage_seconds_total{stage="${label(k)}"} ${(v.ms / 1000).toFixed(6)}`));
      metric('trawl_crawl_stage_pages_total', 'counter', 'Pages through each pipeline stage in this run (with the seconds above: the mean latency).', stages.map(([k, v]) => `trawl_crawl_stage_pages_total{stage="${label(k)}"} ${v.count}`));
      metric('trawl_crawl_outcomes_total', 'counter', 'Request outcomes in this run, by kind.', Object.entries(run.outcomes).map(([k, v]) => `trawl_crawl_outcomes_total{outcome="${label(k)}"} ${v}`));
    }
    metric('trawl_rejections_total', 'counter', 'URLs not queued, by reason.', c.rejections.map((r) => `trawl_rejections_total{reason="${label(r.reason)}"} ${r.count}`));
    const r = status.recrawl;
    metric('trawl_recrawl_due', 'gauge', 'Pages whose revisit is due now.', [`trawl_recrawl_due ${r.due}`]);
    metric('trawl_revisits_total', 'counter', 'Fetches of pages Trawl held, in this run, by what they found (revisited counts them all).', (['revisited', 'changed', 'unchanged', 'removed'] as const).map((k) => `trawl_revisits_total{result="${k}"} ${r[k]}`));
    if (status.focus) {
      const f = status.focus;
      // (A gauge: a page judged again may change sides.)
      metric('trawl_focus_pages', 'gauge', 'Pages of a focused crawl by their last verdict.', [`trawl_focus_pages{verdict="relevant"} ${f.relevant}`, `trawl_focus_pages{verdict="not-relevant"} ${f.notRelevant}`]);
    }
    metric('trawl_index_documents', 'gauge', 'Documents in the index.', [`trawl_index_documents ${status.index.documents}`]);
    metric('trawl_index_terms', 'gauge', 'Distinct terms in the index.', [`trawl_index_terms ${status.index.terms}`]);
    if (status.index.lastFlushAt) {
      metric('trawl_index_last_flush_timestamp_seconds', 'gauge', 'When the index was last written to disk.', [`trawl_index_last_flush_timestamp_seconds ${Date.parse(status.index.lastFlushAt) / 1000}`]);
    }
    if (status.index.lastFlushBytes !== null) metric('trawl_index_flush_bytes', 'gauge', 'Size of the last flush on disk.', [`trawl_index_flush_bytes ${status.index.lastFlushBytes}`]);
    return `${out.join('\n')}\n`;
  }
}

/** A label value as the text format wants it: backslash, quote and newline escaped. */
function label(v: string): string {
  return v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
