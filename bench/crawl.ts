/**
 * bench/crawl: crawl a real documentation site served from loopback by a static server in its own
 * process, with politeness off (perHost.maxConnections 16, delayMs 0), fetch → parse → store →
 * index included, and print pages/s, MB/s, CPU seconds and peak RSS — next to a parse-only
 * baseline (the same pages decoded and parsed from disk) that shows how close to the CPU limit
 * the crawl runs. Medians over --runs.
 *
 *   npx tsx bench/crawl.ts [--root /usr/share/doc/postgresql-doc-15/html] [--seed index.html] [--runs 3] [--workers auto|N]
 *   (Debian: apt-get install postgresql-doc-15 nginx-light; for ≥ 20,000 pages, rust-doc: --root /usr/share/doc/rust-doc/html --runs 1)
 *   npx tsx bench/crawl.ts --hosts 20 --seconds 30 --runs 1   (20 hosts, default politeness)
 *   --max-links N: limits.maxLinksPerPage (default: the setting's default, 100,000)
 * A full crawl of one host also prints its completeness: pages indexed against the pages reachable by
 * links from the seed (bench/reachable.ts reads them from the files).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startNginx, startNodeServer } from './corpus-server.ts';
import { compiledArgs, productEnv } from './compiled.ts';
import type { CrawlOnceFigures, CrawlOnceSettings } from './crawl-once.ts';
import { decodeBody, parseHtml } from '../crawler/parse/index.ts';
import { corpusPath, reachablePages } from './reachable.ts';

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
for (let r = 0; r < 3; r++) {
  const t = performance.now();
  // (As nginx serves them, charset and all: the decoding costs what it costs in the crawl.)
  for (let i = 0; i < bodies.length; i++) parseHtml(decodeBody(bodies[i]!, 'text/html; charset=utf-8').text, `http://bench.invalid/${i}.html`);
  baseline.push(bodies.length / ((performance.now() - t) / 1000));
}
const totalMB = htmlFiles.reduce((s, f) => s + statSync(f).size, 0) / 1e6;
console.log(`corpus: ${root}: ${htmlFiles.length} HTML files, ${fmt(totalMB)} MB`);
console.log(`parse-only baseline (decode + parse, one thread, ${bodies.length} pages): ${fmt(median(baseline))} pages/s`);

// --hosts N: the same corpus on N loopback addresses (127.0.1.1…), crawled with DEFAULT politeness
// (1 connection and 1 s between requests per host): the figure a polite crawl of N sites gets.
const hostCount = Number(values.hosts);
const polite = hostCount > 0;
const { server, bases } = values.server === 'nginx' || polite ? await startNginx(root, hostCount) : await startNodeServer(root);
const base = bases[0]!;
console.log(`static server: ${polite ? 'nginx' : values.server} at ${bases.length > 1 ? `${bases.length} addresses (${bases[0]} …)` : base}`);

const runs = { pps: [] as number[], mbps: [] as number[], cpu: [] as number[], rss: [] as number[], seconds: [] as number[] };
let pages = 0;
let requests = 0;
let last: CrawlOnceFigures | undefined;
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
  // Each run in a fresh process: as cold as a real crawl, with nothing left over from the last run.
  const f = await crawlOnce(settings);
  pages = f.pages;
  requests = f.requests;
  last = f;
  runs.seconds.push(f.seconds);
  runs.pps.push(f.pages / f.seconds);
  runs.mbps.push(f.bytes / 1e6 / f.seconds);
  runs.cpu.push(f.cpuSeconds);
  runs.rss.push(f.peakRssMB);
  console.log(`  run ${r + 1}: ${f.pages} pages (${f.requests} requests) in ${fmt(f.seconds, 2)} s → ${fmt(f.pages / f.seconds)} pages/s, ${fmt(f.cpuSeconds, 2)} CPU s, peak RSS ${fmt(f.peakRssMB, 0)} MB (${fmt(f.startRssMB, 0)} MB before the crawl)`);
}
server.kill();
console.log(
  `crawl (fetch → parse → store → index; ${polite ? `${hostCount} hosts, default politeness (1 connection, 1000 ms per host)` : `maxConnections ${values.connections}, delayMs 0`}, parseWorkers ${values.workers}): ${pages} pages in ${fmt(median(runs.seconds), 2)} s → ` +
    `${fmt(median(runs.pps))} pages/s, ${fmt(median(runs.mbps), 2)} MB/s, ${fmt(median(runs.cpu), 2)} CPU s, peak RSS ${fmt(median(runs.rss), 0)} MB ` +
    `(medians of ${runs.pps.length} runs, each in a fresh process; crawler process only)`,
);
if (polite) {
  // Every host serves the same corpus, so most pages are duplicates (stored once): requests/s is the figure.
  const rps = requests / median(runs.seconds);
  console.log(`politeness bound: ${hostCount} hosts × 1 request/s = ${hostCount} requests/s; made ${fmt(rps)} requests/s (${fmt((rps / hostCount) * 100, 0)} % of it, robots.txt and sitemap requests included)`);
}
else console.log(`crawl / parse-only baseline: ${fmt(median(runs.pps) / median(baseline), 2)}`);

// Completeness: the pages reachable by links from the seed (read from the files, independently of
// the crawler) against those the crawl stored — a page with the same content as another counts as
// found when it was folded into that one (the document lists it among its URLs). A full crawl of
// one host only: with several hosts, or a time or page limit, the crawl is not meant to be complete.
if (!polite && last && Number(values['max-pages']) === 0 && Number(values.seconds) === 0) {
  const reachable = reachablePages(root, values.seed!);
  const found = new Set(last.found.map((u) => corpusPath(u, root, base)).filter((p): p is string => p !== undefined));
  const missing = [...reachable].filter((p) => !found.has(p));
  const got = reachable.size - missing.length;
  console.log(`completeness: ${got.toLocaleString('en')} of ${reachable.size.toLocaleString('en')} pages reachable by links from ${values.seed} indexed (${fmt((got / reachable.size) * 100)} %); pages with links cut at limits.maxLinksPerPage: ${last.linksCut.pages} (${last.linksCut.links.toLocaleString('en')} links not followed)`);
  if (missing.length) console.log(`  missing, e.g.: ${missing.slice(0, 8).join(', ')}${missing.length > 8 ? ` … (${missing.length} in all)` : ''}`);
}

/** Runs bench/crawl-once.ts, compiled and launched as the `trawl` command is, in a child process and returns its figures. */
async function crawlOnce(settings: CrawlOnceSettings): Promise<CrawlOnceFigures> {
  const child = spawn(process.execPath, [...(await compiledArgs(new URL('./crawl-once.ts', import.meta.url))), JSON.stringify(settings)], { stdio: ['ignore', 'pipe', 'inherit'], env: productEnv() });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const line = out.trim().split('\n').pop() ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`crawl run failed (exit code ${code}): ${out.slice(-500)}`);
  return JSON.parse(line) as CrawlOnceFigures;
}
