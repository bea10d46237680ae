/**
 * bench/crawl's Crawlee side: what a Crawlee user writes for "crawl this site and keep each page's
 * title and text" — CheerioCrawler with its defaults (got-scraping, the session pool, request queue
 * and storage in CRAWLEE_STORAGE_DIR), links enqueued with the same-hostname strategy, the title
 * and the body's text read per page. It indexes nothing. Crawlee is not a dependency of the
 * project: bench/crawl.ts installs it into a cache folder (TRAWL_CRAWLEE_DIR, bench/crawlee.ts) and
 * runs this file with node; modules are resolved from that folder.
 *
 *   TRAWL_CRAWLEE_DIR=~/.cache/trawl-bench/crawlee CRAWLEE_STORAGE_DIR=/tmp/x node bench/crawlee-cheerio.mjs \
 *     '{"start":"http://127.0.0.1:PORT/index.html","concurrency":16}'
 *
 * maxConcurrency = minConcurrency = concurrency: the autoscaled pool at that parallelism from the
 * start, as Trawl's `concurrency` (politeness off on both sides: Crawlee has no per-host delay).
 * Prints one JSON line of figures on stdout (the same names as bench/crawl-once.ts's).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.TRAWL_CRAWLEE_DIR;
if (!dir) throw new Error('TRAWL_CRAWLEE_DIR: the folder crawlee is installed in');
const require = createRequire(join(dir, 'package.json'));
const { CheerioCrawler, Configuration, log } = await import(pathToFileURL(require.resolve('crawlee')).href);

const s = JSON.parse(process.argv[2]);
log.setLevel(log.LEVELS.WARNING);

/** The main thread's CPU seconds so far (Linux: its schedstat), as bench/thread-cpu.ts reads it. */
const mainCpu = () => Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'latin1').split(' ')[0]) / 1e9;

let pages = 0;
let textChars = 0;
const found = [];
const crawler = new CheerioCrawler(
  {
    maxConcurrency: s.concurrency,
    minConcurrency: s.concurrency,
    async requestHandler({ $, request, enqueueLinks }) {
      pages += 1;
      textChars += $('title').text().length + $('body').text().length;
      found.push(request.loadedUrl ?? request.url);
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  new Configuration({ purgeOnStart: true }),
);

const t0 = performance.now();
const cpu0 = process.cpuUsage();
const main0 = mainCpu();
const stats = await crawler.run([s.start]);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
const main = mainCpu() - main0;
const peakRssMB = (process.resourceUsage().maxRSS * 1024) / 1e6;
const c0 = performance.now();
await crawler.teardown?.().catch(() => undefined);
const cpuSeconds = (cpu.user + cpu.system) / 1e6;

// (Written, then exit once it is out: a line of 21,000 URLs is more than a pipe takes at once, and
// process.exit right after console.log cut it short.)
process.stdout.write(
  `${JSON.stringify({
    pages,
    textChars,
    found,
    failed: stats.requestsFailed,
    seconds,
    startupSeconds: t0 / 1000,
    closeSeconds: (performance.now() - c0) / 1000,
    cpuSeconds,
    mainCpuSeconds: main,
    peakRssMB,
  })}\n`,
  () => process.exit(0),
);
