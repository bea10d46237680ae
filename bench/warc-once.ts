/**
 * One run for bench/warc, in a process of its own (every run as cold as a real `trawl crawl` or
 * `trawl import`, no heap inherited): reads a job as JSON from argv and prints one JSON line of
 * figures.
 *
 *   crawl:  a crawl with politeness off and no rendering, as bench/crawl-once.ts, `archive.warc` on or off:
 *           pages, requests, body bytes, crawl seconds (crawler.run), close seconds (the last
 *           WARC file fsynced and renamed, the index flushed), CPU seconds, peak RSS, and the
 *           WARC files' bytes on disk. `keepArchive` copies the finished WARC files there.
 *   import: `trawl import` of WARC files into a fresh data directory, as cli/archive.ts does
 *           (in-process importArchives, then anchor text refreshed and the appliance closed):
 *           seconds, captures and their outcomes, records skipped, documents in the index, CPU
 *           seconds, peak RSS (sampled every 20 ms, and the kernel's maxRSS).
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Appliance } from '../appliance/index.ts';
import { importArchives } from '../appliance/import.ts';
import { IMPORT_SETTINGS } from '../cli/shared.ts';
import { loadConfig } from '../config/index.ts';

export type WarcCrawlJob = {
  kind: 'crawl';
  seeds: string[];
  warc: boolean;
  concurrency: number;
  maxConnections: number;
  parseWorkers: 'auto' | number;
  /** Copy the finished WARC files into this folder. */
  keepArchive?: string;
};
export type WarcImportJob = { kind: 'import'; files: string[] };

export type Usage = { cpuSeconds: number; peakRssMB: number; maxRssMB: number; startRssMB: number };
export type WarcCrawlFigures = Usage & {
  pages: number;
  documents: number;
  requests: number;
  bodyBytes: number;
  seconds: number;
  closeSeconds: number;
  warcFiles: number;
  warcBytes: number;
  /** Records written, bytes, failures, as the archive counted them (undefined: archiving off). */
  archive?: { records: number; bytes: number; failures: number };
};
export type WarcImportFigures = Usage & {
  seconds: number;
  closeSeconds: number;
  captures: number;
  outcomes: Record<string, number>;
  skipped: Record<string, number>;
  documents: number;
};

/** Peak RSS sampled every 20 ms, CPU and time from now on. */
function meter() {
  const startRss = process.memoryUsage.rss();
  let peak = startRss;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 20);
  const cpu0 = process.cpuUsage();
  return {
    usage(): Usage {
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage.rss());
      const cpu = process.cpuUsage(cpu0);
      // (maxRSS is in kilobytes: the process's whole life, worker threads included.)
      return {
        cpuSeconds: (cpu.user + cpu.system) / 1e6,
        peakRssMB: peak / 1e6,
        maxRssMB: (process.resourceUsage().maxRSS * 1024) / 1e6,
        startRssMB: startRss / 1e6,
      };
    },
  };
}

const warcFilesIn = (dir: string) =>
  existsSync(dir)
    ? readdirSync(dir)
        .filter((f) => /\.warc(\.gz)?(\.open)?$/.test(f))
        .map((f) => join(dir, f))
    : [];

async function crawl(job: WarcCrawlJob): Promise<WarcCrawlFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-warc-'));
  try {
    const app = await Appliance.open(
      loadConfig({
        overrides: {
          seeds: job.seeds,
          dataDir,
          concurrency: job.concurrency,
          perHost: { delayMs: 0, maxConnections: job.maxConnections },
          limits: { maxDepth: 100, maxPages: 0 },
          parseWorkers: job.parseWorkers,
          archive: { warc: job.warc },
          // (Static corpora: never a browser, whether or not Chromium is installed — with `auto`,
          // rust-doc's pages of scripts send some to it, and the crawl then times the browser.)
          render: { mode: 'never' },
        },
      }),
      { lockFor: 'bench' },
    );
    const m = meter();
    const { crawler } = await app.createCrawler();
    let bodyBytes = 0;
    crawler.on('fetch', (e) => (bodyBytes += e.bytes));
    const t0 = performance.now();
    await crawler.run();
    const seconds = (performance.now() - t0) / 1000;
    // (The bench's reach into the appliance: the archive's own counts.)
    const archive = (app as unknown as { crawl?: { archive?: { stats(): { records: number; bytes: number; failures: number } } } }).crawl?.archive?.stats();
    const status = await app.status();
    const requests = crawler.stats.snapshot().requests;
    const t1 = performance.now();
    await app.close();
    const closeSeconds = (performance.now() - t1) / 1000;
    const usage = m.usage();
    const files = warcFilesIn(join(dataDir, 'archive'));
    if (job.keepArchive) {
      mkdirSync(job.keepArchive, { recursive: true });
      for (const f of files) copyFileSync(f, join(job.keepArchive, f.split('/').pop()!));
    }
    return {
      ...usage,
      pages: status.crawl.fetched,
      documents: status.index.documents,
      requests,
      bodyBytes,
      seconds,
      closeSeconds,
      warcFiles: files.length,
      warcBytes: files.reduce((s, f) => s + statSync(f).size, 0),
      ...(archive ? { archive } : {}),
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function importFiles(job: WarcImportJob): Promise<WarcImportFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-warc-import-'));
  try {
    const app = await Appliance.open(loadConfig({ overrides: { ...IMPORT_SETTINGS, dataDir } }), { lockFor: 'bench' });
    const m = meter();
    const { crawler } = await app.createCrawler([], 'off');
    const t0 = performance.now();
    const summary = await importArchives(crawler, job.files);
    const seconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    await app.refreshAnchors();
    await app.close();
    const closeSeconds = (performance.now() - t1) / 1000;
    const usage = m.usage();
    const documents = (await app.status()).index.documents;
    return {
      ...usage,
      seconds,
      closeSeconds,
      captures: summary.captures,
      outcomes: { ...summary.outcomes },
      skipped: Object.fromEntries([...summary.skipped].map(([k, v]) => [k, v.count])),
      documents,
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const job = JSON.parse(process.argv[2]!) as WarcCrawlJob | WarcImportJob;
const figures = job.kind === 'crawl' ? await crawl(job) : await importFiles(job);
console.log(JSON.stringify(figures));
