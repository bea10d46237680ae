/**
 * bench/render's Crawlee side: what a Crawlee user writes for "render every page of this site and
 * keep its text" — PlaywrightCrawler over the same Chromium as Trawl (Debian's, the same flags as
 * crawler/render/browser.ts CHROMIUM_ARGS), links enqueued with the same-hostname strategy,
 * page.content() kept per page. Crawlee is not a dependency of the project: bench/render.ts
 * installs it into a cache folder (TRAWL_CRAWLEE_DIR) and runs this file with node; modules are
 * resolved from that folder.
 *
 *   TRAWL_CRAWLEE_DIR=~/.cache/trawl-bench/crawlee CRAWLEE_STORAGE_DIR=/tmp/x node bench/crawlee-render.mjs \
 *     '{"start":"http://127.0.0.1:PORT/","concurrency":2,"wait":"networkidle","executablePath":"/usr/bin/chromium","args":[…]}'
 *
 * Settings: maxConcurrency = minConcurrency = concurrency (the autoscaled pool at that parallelism
 * from the start; its other defaults kept, as are the browser pool's: fingerprints, a browser
 * retired after 100 pages, 20 pages per browser, one shared context). `wait`: `networkidle` (no
 * request for 500 ms after load, Playwright's rule — what Trawl's settleMs 500 waits for) or
 * `load` (Crawlee's default navigation: the load event, then the handler at once).
 * Prints progress on stderr and one JSON line of figures on stdout.
 */
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const dir = process.env.TRAWL_CRAWLEE_DIR;
if (!dir) throw new Error('TRAWL_CRAWLEE_DIR: the folder crawlee is installed in');
const require = createRequire(join(dir, 'package.json'));
const { PlaywrightCrawler, Configuration, log } = await import(pathToFileURL(require.resolve('crawlee')).href);
const { chromium } = await import(pathToFileURL(require.resolve('playwright')).href);

const s = JSON.parse(process.argv[2]);
log.setLevel(log.LEVELS.WARNING);

let pages = 0;
let htmlChars = 0;
let complete = 0;
const incomplete = [];
const crawler = new PlaywrightCrawler(
  {
    launchContext: { launcher: chromium, launchOptions: { executablePath: s.executablePath, args: s.args, headless: true } },
    maxConcurrency: s.concurrency,
    minConcurrency: s.concurrency,
    preNavigationHooks:
      s.wait === 'networkidle'
        ? [
            async (_context, gotoOptions) => {
              gotoOptions.waitUntil = 'networkidle';
            },
          ]
        : [],
    async requestHandler({ page, request, enqueueLinks }) {
      const html = await page.content();
      pages += 1;
      htmlChars += html.length;
      // Did the page's text arrive? (/docs/N says spawordN once its data came; / says spahome.)
      const m = /\/docs\/(\d+)$/.exec(new URL(request.loadedUrl ?? request.url).pathname);
      if (html.includes(m ? `spaword${m[1]}` : 'spahome')) complete += 1;
      else if (incomplete.length < 5) incomplete.push(request.url);
      await enqueueLinks({ strategy: 'same-hostname' });
    },
  },
  new Configuration({ purgeOnStart: true }),
);

const t0 = performance.now();
const cpu0 = process.cpuUsage();
const progress =
  s.progressMs > 0
    ? setInterval(() => console.error(`    ${s.label}: ${Math.round((performance.now() - t0) / 1000)} s, ${pages} pages`), s.progressMs)
    : undefined;
const stats = await crawler.run([s.start]);
const seconds = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
clearInterval(progress);
await crawler.teardown?.().catch(() => undefined);

console.log(
  JSON.stringify({
    pages,
    complete,
    incomplete,
    htmlChars,
    failed: stats.requestsFailed,
    retries: stats.retryHistogram?.slice(1).reduce((a, b) => a + (b ?? 0), 0) ?? 0,
    seconds,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    peakRssMB: (process.resourceUsage().maxRSS * 1024) / 1e6,
  }),
);
process.exit(0);
