/**
 * The crawl's history for the dashboard's chart: a sample of the crawler's figures each second
 * (its `stats` event), kept in RAM for as long as the process runs — so that a dashboard opened
 * after the crawl ended, or reloaded, shows the whole crawl. Bounded: once HISTORY_SAMPLES are
 * kept, every other one goes and the interval between two doubles, so the samples always span
 * the whole crawl evenly (a day-long crawl ends with one sample every ~10 minutes).
 */
import type { CrawlSample, CrawlStats } from '../model/index.ts';

/** Samples kept at most (then thinned to half). */
export const HISTORY_SAMPLES = 240;
/** The interval between two samples kept, until the first thinning. */
const FIRST_INTERVAL_MS = 1000;

export class CrawlHistory {
  private readonly samples: CrawlSample[] = [];
  /** When the last sample kept for good was taken, and the interval the next one must wait. */
  private keptAt = Number.NEGATIVE_INFINITY;
  private intervalMs = FIRST_INTERVAL_MS;
  /** The last sample came before the interval was over: the next replaces it (the latest figures are always shown). */
  private provisional = false;

  constructor(private readonly max = HISTORY_SAMPLES) {}

  /** Adds the crawler's figures at `now` (ms). */
  add(stats: CrawlStats, now: number): void {
    const o = stats.outcomes;
    const sample: CrawlSample = {
      at: new Date(now).toISOString(),
      pagesPerSecond: stats.pagesPerSecond,
      pages: (o.indexed ?? 0) + (o.fetched ?? 0) + (o['not-modified'] ?? 0),
      failures: (o.failed ?? 0) + (o.dead ?? 0),
    };
    if (this.provisional) this.samples.pop();
    this.samples.push(sample);
    // (A tenth of slack: the crawler's timer ticks about once a second, a little early at times.)
    this.provisional = now - this.keptAt < this.intervalMs * 0.9;
    if (!this.provisional) this.keptAt = now;
    if (this.samples.length > this.max) this.thin();
  }

  /** The samples, oldest first. */
  get all(): readonly CrawlSample[] {
    return this.samples;
  }

  /** Every other sample goes — the first and the latest stay — and samples come half as often. */
  private thin(): void {
    const last = this.samples.length - 1;
    const kept = this.samples.filter((_, i) => i % 2 === 0 || i === last);
    this.samples.splice(0, this.samples.length, ...kept);
    this.intervalMs *= 2;
  }
}
