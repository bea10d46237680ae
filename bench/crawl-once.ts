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
import { between, snapshot, trackWorkerThreads, type ThreadFigures } from './thread-cpu.ts';

// (Before anything starts a worker: each worker's thread is then known.)
trackWorkerThreads();

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
  /** The crawl (`crawler.run()`), seconds; before it, the process's start-up (node, modules, opening the store); after it, `close()` (the index flushed). */
  seconds: number;
  startupSeconds: number;
  closeSeconds: number;
  /** CPU seconds of the crawl (all threads). */
  cpuSeconds: number;
  /** CPU by thread group over the crawl, and how busy the event loops were (thread-cpu.ts). */
  threads: ThreadFigures;
  /** The process's peak RSS (the kernel's high-water mark, start-up included). */
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
const cpu0 = process.cpuUsage();
const threads0 = snapshot();
const t0 = performance.now();
// A polite crawl of a big corpus would take hours: stop after a fixed time.
const limit = settings.seconds > 0 ? setTimeout(() => void crawler.stop(), settings.seconds * 1000) : undefined;
await crawler.run();
clearTimeout(limit);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const threads = between(threads0, snapshot(), (cpu.user + cpu.system) / 1e6);
const peakRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6;
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
  startupSeconds: t0 / 1000,
  closeSeconds: 0,
  cpuSeconds: (cpu.user + cpu.system) / 1e6,
  threads,
  peakRssMB,
  startRssMB: startRss / 1e6,
};
const c0 = performance.now();
await app.close();
figures.closeSeconds = (performance.now() - c0) / 1000;
rmSync(dataDir, { recursive: true, force: true });
console.log(JSON.stringify(figures));
