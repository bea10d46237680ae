/**
 * One crawl for bench/crawl, in a process of its own (so that every run starts as cold as a real
 * `trawl crawl` does, and no run inherits another's heap): reads its settings as JSON from argv,
 * crawls, and prints one JSON line of figures.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';

export type CrawlOnceSettings = {
  seeds: string[];
  concurrency: number;
  /** Absent: the default politeness. */
  perHost?: { delayMs: number; maxConnections: number };
  maxPages: number;
  parseWorkers: 'auto' | number;
  /** Stop after this long (0: run to the end). */
  seconds: number;
  /** Links followed per page at most (limits.maxLinksPerPage); absent: the default. */
  maxLinksPerPage?: number;
};

export type CrawlOnceFigures = {
  pages: number;
  requests: number;
  bytes: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  startRssMB: number;
  /** Every URL a stored document was found under (its own and its duplicates'): what the crawl found. */
  found: string[];
  /** Pages whose links were cut, and the links cut. */
  linksCut: { pages: number; links: number };
};

const settings = JSON.parse(process.argv[2]!) as CrawlOnceSettings;
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-crawl-'));
const app = await Appliance.open(
  loadConfig({
    overrides: {
      seeds: settings.seeds,
      dataDir,
      concurrency: settings.concurrency,
      ...(settings.perHost ? { perHost: settings.perHost } : {}),
      limits: { maxDepth: 100, maxPages: settings.maxPages, ...(settings.maxLinksPerPage ? { maxLinksPerPage: settings.maxLinksPerPage } : {}) },
      parseWorkers: settings.parseWorkers,
    },
  }),
  { lockFor: 'bench' },
);
const startRss = process.memoryUsage.rss();
const { crawler } = await app.createCrawler();
let bytes = 0;
crawler.on('fetch', (e) => (bytes += e.bytes));
let peakRss = startRss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
const cpu0 = process.cpuUsage();
const t0 = performance.now();
// A polite crawl of a big corpus would take hours: stop after a fixed time.
const limit = settings.seconds > 0 ? setTimeout(() => void crawler.stop(), settings.seconds * 1000) : undefined;
await crawler.run();
clearTimeout(limit);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
clearInterval(sampler);
peakRss = Math.max(peakRss, process.memoryUsage.rss());
const found: string[] = [];
for await (const doc of app.store.documents.all()) found.push(...(await app.store.documents.urlsOf(doc)));
const status = await app.status();
const figures: CrawlOnceFigures = {
  found,
  linksCut: status.crawl.linksCut ?? { pages: 0, links: 0 },
  pages: status.crawl.fetched,
  requests: crawler.stats.snapshot().requests,
  bytes,
  seconds,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  peakRssMB: peakRss / 1e6,
  startRssMB: startRss / 1e6,
};
await app.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify(figures));
