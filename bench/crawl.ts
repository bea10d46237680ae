/**
 * bench/crawl: crawl a real documentation site served from loopback by a static server in its own
 * process, with politeness off (perHost.maxConnections 16, delayMs 0), fetch → parse → store →
 * index included, and print wall time, pages/s, CPU by thread group (the main thread, the parse
 * workers, V8's and libuv's helper threads: bench/thread-cpu.ts) and per page, how busy each event
 * loop was, peak RSS and completeness — beside Crawlee's CheerioCrawler crawling the same corpus
 * in the same invocation (runs interleaved; bench/crawlee-cheerio.mjs, installed on first use into
 * ~/.cache/trawl-bench/crawlee, never a dependency), and a parse-only baseline (the same pages
 * decoded and parsed from disk on one thread). Medians over --runs; each run a fresh process.
 *
 *   flock /tmp/trawl-bench.lock npx tsx bench/crawl.ts [--root /usr/share/doc/postgresql-doc-15/html] [--seed index.html] \
 *     [--runs 3] [--workers auto|N] [--no-crawlee]
 *   (Debian: apt-get install postgresql-doc-15 nginx-light; rust-doc, ~27,000 pages: --root /usr/share/doc/rust-doc/html)
 *   npx tsx bench/crawl.ts --hosts 20 --seconds 30 --runs 1   (20 hosts, default politeness; no Crawlee)
 *   --max-links N: limits.maxLinksPerPage (default: the setting's default, 100,000)
 *   --profile DIR: writes each thread's V8 CPU profile (main thread, parse workers) into DIR
 * A full crawl of one host also prints its completeness: pages indexed against the pages reachable by
 * links from the seed (bench/reachable.ts reads them from the files).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startNginx, startNodeServer } from './corpus-server.ts';
import { compiledArgs, figuresOf, productEnv } from './compiled.ts';
import { installCrawlee } from './crawlee.ts';
import type { CrawlOnceFigures, CrawlOnceSettings } from './crawl-once.ts';
import { parseSettingsOf } from '../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { decodeBody, parseHtml } from '../crawler/parse/index.ts';
import { corpusPath, reachable as reachableFrom } from './reachable.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    seed: { type: 'string', default: 'index.html' },
    runs: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    concurrency: { type: 'string', default: '16' },
    workers: { type: 'string', default: 'auto' },
    'baseline-sample': { type: 'string', default: '2000' },
    hosts: { type: 'string', default: '0' },
    'max-pages': { type: 'string', default: '0' },
    'max-links': { type: 'string', default: '0' },
    seconds: { type: 'string', default: '0' },
    server: { type: 'string', default: existsSync('/usr/sbin/nginx') ? 'nginx' : 'node' },
    'no-crawlee': { type: 'boolean', default: false },
    profile: { type: 'string' },
  },
});
const root = values.root!;
if (!existsSync(root)) {
  console.error(`${root} does not exist. On Debian: apt-get install postgresql-doc-15 (or pass --root DIR)`);
  process.exit(2);
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 1) => n.toFixed(d);

// Parse-only baseline: every HTML file under root, decoded and parsed on this thread.
const htmlFiles: string[] = [];
const walk = (d: string) => {
  for (const e of readdirSync(d)) {
    const p = join(d, e);
    if (statSync(p).isDirectory()) walk(p);
    else if (/\.html?$/i.test(e)) htmlFiles.push(p);
  }
};
walk(root);
// The baseline parses an evenly spread sample (all files of a small corpus).
const sampleSize = Math.min(htmlFiles.length, Number(values['baseline-sample']));
const sample = Array.from({ length: sampleSize }, (_, i) => htmlFiles[Math.floor((i * htmlFiles.length) / sampleSize)]!);
const bodies = sample.map((f) => readFileSync(f));
const baseline: number[] = [];
const { robotsToken, maxLinks } = parseSettingsOf(DEFAULT_CONFIG);
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  // (As nginx serves them, charset and all: the decoding costs what it costs in the crawl.)
  for (let i = 0; i < bodies.length; i++)
    parseHtml(decodeBody(bodies[i]!, 'text/html; charset=utf-8').text, `http://bench.invalid/${i}.html`, robotsToken, maxLinks);
  baseline.push(bodies.length / ((performance.now() - t) / 1000));
}
const totalMB = htmlFiles.reduce((s, f) => s + statSync(f).size, 0) / 1e6;
console.log(`bench/crawl — ${new Date().toISOString()}, load average ${load()}`);
console.log(`corpus: ${root}: ${htmlFiles.length} HTML files, ${fmt(totalMB)} MB`);
console.log(`parse-only baseline (decode + parse, one thread, ${bodies.length} pages): ${fmt(median(baseline))} pages/s`);

// --hosts N: the same corpus on N loopback addresses (127.0.1.1…), crawled with DEFAULT politeness
// (1 connection and 1 s between requests per host): the figure a polite crawl of N sites gets.
const hostCount = Number(values.hosts);
const polite = hostCount > 0;
const { server, bases } = values.server === 'nginx' || polite ? await startNginx(root, hostCount) : await startNodeServer(root);
const base = bases[0]!;
console.log(`static server: ${polite ? 'nginx' : values.server} at ${bases.length > 1 ? `${bases.length} addresses (${bases[0]} …)` : base}`);

// Crawlee's CheerioCrawler on the same corpus, in the same invocation, interleaved with Trawl's runs
// (a full crawl of one host, politeness off on both sides): what a crawler without an index costs.
const fullCrawl = !polite && Number(values['max-pages']) === 0 && Number(values.seconds) === 0;
const crawleeDir = fullCrawl && !values['no-crawlee'] ? installCrawlee() : undefined;

const trawlRuns: CrawlOnceFigures[] = [];
const crawleeRuns: CrawleeFigures[] = [];
for (let r = 0; r < Number(values.runs); r++) {
  const settings: CrawlOnceSettings = {
    seeds: bases.map((b) => new URL(values.seed!, b).href),
    concurrency: polite ? Math.max(8, hostCount) : Number(values.concurrency),
    ...(polite ? {} : { perHost: { delayMs: 0, maxConnections: Number(values.connections) } }),
    maxPages: Number(values['max-pages']),
    parseWorkers: values.workers === 'auto' ? 'auto' : Number(values.workers),
    seconds: Number(values.seconds),
    ...(Number(values['max-links']) > 0 ? { maxLinksPerPage: Number(values['max-links']) } : {}),
  };
  // (Which goes first alternates: a slow spell of the shared machine falls on both alike.)
  const order = r % 2 === 0 ? (['trawl', 'crawlee'] as const) : (['crawlee', 'trawl'] as const);
  for (const who of order) {
    if (who === 'crawlee') {
      if (!crawleeDir) continue;
      const c = await crawleeOnce(crawleeDir, { start: settings.seeds[0]!, concurrency: Number(values.concurrency) });
      crawleeRuns.push(c);
      console.log(
        `  run ${r + 1} Crawlee: ${c.pages} pages in ${fmt(c.seconds, 2)} s (+ ${fmt(c.startupSeconds, 2)} s start-up, ` +
          `${fmt(c.closeSeconds, 2)} s close) → ${fmt(c.pages / c.seconds)} pages/s; ` +
          `CPU ${fmt(c.cpuSeconds, 2)} s = ${fmt((c.cpuSeconds * 1000) / c.pages, 2)} ms/page (main thread ${fmt(c.mainCpuSeconds, 2)}); ` +
          `peak RSS ${fmt(c.peakRssMB, 0)} MB (load ${load()})`,
      );
      continue;
    }
    // Each run in a fresh process: as cold as a real crawl, with nothing left over from the last run.
    const f = await crawlOnce(settings);
    trawlRuns.push(f);
    const t = f.threads;
    console.log(
      `  run ${r + 1} Trawl: ${f.pages} pages (${f.requests} requests) in ${fmt(f.seconds, 2)} s (+ ${fmt(f.startupSeconds, 2)} s start-up, ` +
        `${fmt(f.closeSeconds, 2)} s close) → ${fmt(f.pages / f.seconds)} pages/s; ` +
        `CPU ${fmt(f.cpuSeconds, 2)} s = ${fmt((f.cpuSeconds * 1000) / f.pages, 2)} ms/page (main thread ${fmt(t.main.cpu, 2)}, ` +
        `${t.workerCount} worker${t.workerCount === 1 ? '' : 's'} ${fmt(t.workers.cpu, 2)}, other threads ${fmt(t.other.cpu, 2)}); ` +
        `busy: main ${pct(t.mainBusy)}, workers ${t.workersBusy.map(pct).join(' ') || '–'}; ` +
        `waited for a CPU ${fmt(t.main.wait + t.workers.wait + t.other.wait, 2)} s; ` +
        `peak RSS ${fmt(f.peakRssMB, 0)} MB (${fmt(f.startRssMB, 0)} MB before the crawl) (load ${load()})`,
    );
  }
}
server.kill();

const pages = trawlRuns.at(-1)?.pages ?? 0;
const m = <T>(xs: T[], f: (x: T) => number) => median(xs.map(f));
const wall = (x: { seconds: number; startupSeconds: number; closeSeconds: number }) => x.startupSeconds + x.seconds + x.closeSeconds;
console.log(`\nmedians of ${trawlRuns.length} runs, each a fresh process (load average now ${load()}):`);
const politeness = polite
  ? `${hostCount} hosts, default politeness (1 connection, 1000 ms per host)`
  : `concurrency ${values.concurrency}, maxConnections ${values.connections}, delayMs 0`;
console.log(
  `Trawl (fetch → parse → store → index; ${politeness}, parseWorkers ${values.workers}): ` +
    `${pages} pages; wall ${fmt(m(trawlRuns, wall), 2)} s (crawl ${fmt(
      m(trawlRuns, (f) => f.seconds),
      2,
    )} s) → ${fmt(m(trawlRuns, (f) => f.pages / f.seconds))} pages/s, ${fmt(
      m(trawlRuns, (f) => f.bytes / 1e6 / f.seconds),
      2,
    )} MB/s; ` +
    `CPU ${fmt(
      m(trawlRuns, (f) => f.cpuSeconds),
      2,
    )} s = ${fmt(
      m(trawlRuns, (f) => (f.cpuSeconds * 1000) / f.pages),
      2,
    )} ms/page: main thread ${fmt(
      m(trawlRuns, (f) => (f.threads.main.cpu * 1000) / f.pages),
      2,
    )}, parse workers ${fmt(
      m(trawlRuns, (f) => (f.threads.workers.cpu * 1000) / f.pages),
      2,
    )}, other threads ${fmt(
      m(trawlRuns, (f) => (f.threads.other.cpu * 1000) / f.pages),
      2,
    )} ms/page; ` +
    `peak RSS ${fmt(
      m(trawlRuns, (f) => f.peakRssMB),
      0,
    )} MB`,
);
if (polite) {
  // Every host serves the same corpus, so most pages are duplicates (stored once): requests/s is the figure.
  const rps = (trawlRuns.at(-1)?.requests ?? 0) / m(trawlRuns, (f) => f.seconds);
  console.log(
    `politeness bound: ${hostCount} hosts × 1 request/s = ${hostCount} requests/s; ` +
      `made ${fmt(rps)} requests/s (${fmt((rps / hostCount) * 100, 0)} % of it, robots.txt and sitemap requests included)`,
  );
} else console.log(`crawl / parse-only baseline: ${fmt(m(trawlRuns, (f) => f.pages / f.seconds) / median(baseline), 2)}`);

// Can one main thread feed more parse workers? Its CPU per page bounds the pages/s it can handle
// (were it never idle); each worker's bounds what it parses. Where the two cross, more cores stop helping.
if (trawlRuns.length) {
  const main = m(trawlRuns, (f) => (f.threads.main.cpu * 1000) / f.pages);
  const worker = m(trawlRuns, (f) => (f.threads.workers.cpu * 1000) / f.pages);
  const busy = m(trawlRuns, (f) => f.threads.mainBusy);
  console.log(
    `main thread: busy ${pct(busy)} of the crawl, ${fmt(main, 2)} CPU ms a page → one main thread can feed ~${fmt(1000 / main, 0)} pages/s; ` +
      (worker > 0
        ? `the parse workers take ${fmt(worker, 2)} CPU ms a page → ~${fmt(1000 / worker, 0)} pages/s per worker: ` +
          `the main thread is the limit from ~${fmt(worker / main, 1)} workers (${fmt(worker / main + 1, 1)} cores) on`
        : 'no parse worker ran'),
  );
}

let reachable: Set<string> | undefined;
let noindex: Set<string> | undefined;
/** Pages reachable by links from the seed that a crawl found, of all of them (those that ask not to be indexed apart). */
const completeness = (found: string[]) => {
  if (!reachable) ({ pages: reachable, noindex } = reachableFrom(root, values.seed!));
  const got = new Set(found.map((u) => corpusPath(u, root, base)).filter((p): p is string => p !== undefined));
  return { got: [...reachable].filter((p) => got.has(p)).length, missing: [...reachable].filter((p) => !got.has(p)) };
};
// Completeness: the pages reachable by links from the seed (read from the files, independently of
// the crawler) against those the crawl stored — a page with the same content as another counts as
// found when it was folded into that one (the document lists it among its URLs). A full crawl of
// one host only: with several hosts, or a time or page limit, the crawl is not meant to be complete.
const last = trawlRuns.at(-1);
if (fullCrawl && last) {
  const { got, missing } = completeness(last.found);
  const asked = noindex!.size
    ? ` (besides ${noindex!.size} reachable page${noindex!.size === 1 ? '' : 's'} marked robots noindex, ` +
      `e.g. ${[...noindex!].slice(0, 3).join(', ')}: not indexed, as asked; ` +
      `${last.found.filter((u) => noindex!.has(corpusPath(u, root, base) ?? '')).length} indexed)`
    : '';
  console.log(
    `completeness: ${got.toLocaleString('en')} of ${reachable!.size.toLocaleString('en')} pages reachable by links from ` +
      `${values.seed} indexed (${fmt((got / reachable!.size) * 100)} %)${asked}; pages with links cut at limits.maxLinksPerPage: ` +
      `${last.linksCut.pages} (${last.linksCut.links.toLocaleString('en')} links not followed)`,
  );
  if (missing.length) console.log(`  missing, e.g.: ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ` … (${missing.length} in all)` : ''}`);
}

if (crawleeRuns.length && trawlRuns.length) {
  const c = crawleeRuns;
  const { got } = completeness(c.at(-1)!.found);
  console.log(
    `Crawlee CheerioCrawler (maxConcurrency = minConcurrency = ${values.concurrency}, defaults otherwise; no index): ${c.at(-1)!.pages} pages ` +
      `(${got.toLocaleString('en')} of the ${reachable!.size.toLocaleString('en')} reachable: ${fmt((got / reachable!.size) * 100)} %); ` +
      `wall ${fmt(m(c, wall), 2)} s (crawl ${fmt(
        m(c, (x) => x.seconds),
        2,
      )} s) → ${fmt(m(c, (x) => x.pages / x.seconds))} pages/s; CPU ${fmt(
        m(c, (x) => x.cpuSeconds),
        2,
      )} s = ${fmt(
        m(c, (x) => (x.cpuSeconds * 1000) / x.pages),
        2,
      )} ms/page (main thread ${fmt(
        m(c, (x) => (x.mainCpuSeconds * 1000) / x.pages),
        2,
      )}); peak RSS ${fmt(
        m(c, (x) => x.peakRssMB),
        0,
      )} MB`,
  );
  const speed = m(c, wall) / m(trawlRuns, wall);
  const crawlSpeed = m(c, (x) => x.seconds) / m(trawlRuns, (f) => f.seconds);
  const rss = m(trawlRuns, (f) => f.peakRssMB) / m(c, (x) => x.peakRssMB);
  const cpuPerPage = m(trawlRuns, (f) => (f.cpuSeconds * 1000) / f.pages);
  console.log(
    `Trawl against Crawlee: wall ${fmt(speed, 2)}× faster (crawl alone ${fmt(crawlSpeed, 2)}×; target ≥ 5×: ${speed >= 5 ? 'met' : 'NOT met'}); ` +
      `peak RSS ${fmt(rss, 2)} of Crawlee's (target on rust-doc ≤ 0.25: ${rss <= 0.25 ? 'met' : 'NOT met'}); ` +
      `CPU ${fmt(cpuPerPage, 2)} ms/page against Crawlee's ${fmt(
        m(c, (x) => (x.cpuSeconds * 1000) / x.pages),
        2,
      )} (target on the PostgreSQL docs ≤ 1.5: ${cpuPerPage <= 1.5 ? 'met' : 'NOT met'})`,
  );
}

/** Runs bench/crawl-once.ts, compiled and launched as the `trawl` command is, in a child process and returns its figures. */
async function crawlOnce(settings: CrawlOnceSettings): Promise<CrawlOnceFigures> {
  // --profile DIR: each thread's V8 CPU profile (workers inherit the flags), sampled every 200 µs.
  const profile = values.profile ? ['--cpu-prof', '--cpu-prof-dir', values.profile, '--cpu-prof-interval', '200'] : [];
  const child = spawn(process.execPath, [...profile, ...(await compiledArgs(new URL('./crawl-once.ts', import.meta.url))), JSON.stringify(settings)], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: productEnv(),
  });
  return figuresOf<CrawlOnceFigures>(child, 'crawl run');
}

type CrawleeFigures = {
  pages: number;
  found: string[];
  seconds: number;
  startupSeconds: number;
  closeSeconds: number;
  cpuSeconds: number;
  mainCpuSeconds: number;
  peakRssMB: number;
};

/** Runs bench/crawlee-cheerio.mjs in a child process (its storage in a temporary folder) and returns its figures. */
async function crawleeOnce(dir: string, settings: { start: string; concurrency: number }): Promise<CrawleeFigures> {
  const storage = mkdtempSync(join(tmpdir(), 'trawl-bench-crawlee-'));
  try {
    const child = spawn(process.execPath, [fileURLToPath(new URL('./crawlee-cheerio.mjs', import.meta.url)), JSON.stringify(settings)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, TRAWL_CRAWLEE_DIR: dir, CRAWLEE_STORAGE_DIR: storage, CRAWLEE_PURGE_ON_START: '1', CRAWLEE_LOG_LEVEL: 'WARNING' },
    });
    return await figuresOf<CrawleeFigures>(child, 'Crawlee run');
  } finally {
    rmSync(storage, { recursive: true, force: true });
  }
}

function pct(x: number): string {
  return `${Math.round(x * 100)} %`;
}

function load(): string {
  return readFileSync('/proc/loadavg', 'latin1').split(' ').slice(0, 3).join(' ');
}
