/**
 * bench/warc: what archiving costs and what importing an archive gives.
 *
 *   npx tsx bench/warc.ts [--runs 3] [--root /usr/share/doc/postgresql-doc-15/html]
 *                         [--import-root /usr/share/doc/rust-doc/html] [--import-runs 1]
 *                         [--skip-crawl] [--skip-import] [--workers auto|N]
 *   (Debian: apt-get install postgresql-doc-15 rust-doc nginx-light)
 *
 * Part 1, corpus A (the PostgreSQL docs, served by nginx from loopback, politeness off as in
 * bench/crawl): crawls with `archive.warc` off and on, interleaved A B B A (off, on, on, off, off,
 * on, …), each in a fresh process (bench/warc-once.ts): crawl seconds, CPU seconds, peak RSS;
 * overhead = median(on) / median(off) − 1 (the target: ≤ 10 %); the WARC files' bytes, per page
 * and against the bodies fetched.
 * Part 2, corpus C (rust-doc; python3.11-doc when rust-doc is missing, labeled so): a WARC made
 * once by a crawl of it with archiving on, kept in ~/.cache/trawl-bench/warc-<corpus>/; then
 * `trawl import` of it (importArchives in a fresh process, as the CLI does): records/s and
 * captures/s, pages indexed, peak RSS, and completeness — pages indexed against the HTML responses
 * (2xx) in the WARC and against the pages the crawl that wrote it indexed.
 * Every timed run waits for `flock /tmp/trawl-bench.lock` (one benchmark times at a time).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { readArchive } from '../crawler/archive/read.ts';
import { startNginx } from './corpus-server.ts';
import type { WarcCrawlFigures, WarcCrawlJob, WarcImportFigures, WarcImportJob } from './warc-once.ts';
import { figuresOf } from './compiled.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    'import-root': { type: 'string', default: '/usr/share/doc/rust-doc/html' },
    seed: { type: 'string', default: 'index.html' },
    runs: { type: 'string', default: '3' },
    'import-runs': { type: 'string', default: '1' },
    workers: { type: 'string', default: 'auto' },
    'skip-crawl': { type: 'boolean', default: false },
    'skip-import': { type: 'boolean', default: false },
  },
});
const LOCK = '/tmp/trawl-bench.lock';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 1) => n.toFixed(d);
const MB = (n: number) => `${fmt(n / 1e6)} MB`;
const pct = (x: number) => `${x >= 0 ? '+' : ''}${fmt(x * 100)} %`;
const int = (n: number) => Math.round(n).toLocaleString('en');
const parseWorkers = values.workers === 'auto' ? ('auto' as const) : Number(values.workers);

/** Runs bench/warc-once.ts under the benchmark lock in a fresh process; returns its figures. */
async function once<T>(job: WarcCrawlJob | WarcImportJob): Promise<T> {
  const child = spawn('flock', [LOCK, process.execPath, '--import', 'tsx', new URL('./warc-once.ts', import.meta.url).pathname, JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return figuresOf<T>(child, `${job.kind} run`);
}

const crawlJob = (base: string, warc: boolean, keepArchive?: string): WarcCrawlJob => ({
  kind: 'crawl',
  seeds: [new URL(values.seed!, base).href],
  warc,
  concurrency: 16,
  maxConnections: 16,
  parseWorkers,
  ...(keepArchive ? { keepArchive } : {}),
});

const runLine = (f: WarcCrawlFigures) =>
  `${f.pages} pages, ${f.documents} indexed, in ${fmt(f.seconds, 2)} s (+ close ${fmt(f.closeSeconds, 2)} s) ` +
  `→ ${fmt(f.pages / f.seconds)} pages/s, ${fmt(f.cpuSeconds, 2)} CPU s, peak RSS ${fmt(f.peakRssMB, 0)} MB` +
  (f.warcFiles
    ? `; WARC ${MB(f.warcBytes)} in ${f.warcFiles} file(s), ` +
      `${int(f.archive?.records ?? 0)} records${f.archive?.failures ? `, ${f.archive.failures} FAILED` : ''}`
    : '');

// ---- Part 1: archiving off vs on, corpus A ----
if (!values['skip-crawl']) {
  const root = values.root!;
  if (!existsSync(root)) {
    console.error(`${root} does not exist. On Debian: apt-get install postgresql-doc-15 (or pass --root DIR)`);
    process.exit(2);
  }
  const { server, bases } = await startNginx(root, 0);
  console.log(
    `part 1: crawl of ${root} served by nginx at ${bases[0]}, maxConnections 16, delayMs 0, ` +
      `parseWorkers ${values.workers}; archive.warc off vs on, A B B A, each run a fresh process`,
  );
  const off: WarcCrawlFigures[] = [];
  const on: WarcCrawlFigures[] = [];
  try {
    const runs = Number(values.runs);
    for (let i = 0; i < runs; i++) {
      for (const warc of i % 2 === 0 ? [false, true] : [true, false]) {
        const f = await once<WarcCrawlFigures>(crawlJob(bases[0]!, warc));
        (warc ? on : off).push(f);
        console.log(`  round ${i + 1}, archive ${warc ? 'on ' : 'off'}: ${runLine(f)}`);
      }
    }
  } finally {
    server.kill();
  }
  const m = (xs: WarcCrawlFigures[], k: (f: WarcCrawlFigures) => number) => median(xs.map(k));
  const secs = (f: WarcCrawlFigures) => f.seconds;
  const total = (f: WarcCrawlFigures) => f.seconds + f.closeSeconds;
  const cpu = (f: WarcCrawlFigures) => f.cpuSeconds;
  const rss = (f: WarcCrawlFigures) => f.peakRssMB;
  console.log(
    `  off: ${fmt(m(off, secs), 2)} s (${fmt(m(off, (f) => f.pages / f.seconds))} pages/s), ` +
      `with close ${fmt(m(off, total), 2)} s, ${fmt(m(off, cpu), 2)} CPU s, peak RSS ${fmt(m(off, rss), 0)} MB`,
  );
  console.log(
    `  on:  ${fmt(m(on, secs), 2)} s (${fmt(m(on, (f) => f.pages / f.seconds))} pages/s), ` +
      `with close ${fmt(m(on, total), 2)} s, ${fmt(m(on, cpu), 2)} CPU s, peak RSS ${fmt(m(on, rss), 0)} MB`,
  );
  const overhead = m(on, secs) / m(off, secs) - 1;
  console.log(
    `archiving overhead (medians of ${on.length}): crawl time ${pct(overhead)} (target ≤ +10 %: ` +
      `${overhead <= 0.1 ? 'met' : 'NOT met'}); with close ${pct(m(on, total) / m(off, total) - 1)}; ` +
      `CPU ${pct(m(on, cpu) / m(off, cpu) - 1)}; peak RSS ${pct(m(on, rss) / m(off, rss) - 1)}`,
  );
  const w = on[Math.floor(on.length / 2)]!;
  console.log(
    `bytes written: WARC ${MB(m(on, (f) => f.warcBytes))} (gzipped) for ${w.pages} pages = ${fmt(m(on, (f) => f.warcBytes / f.pages) / 1e3)} KB per page; ` +
      `${fmt(m(on, (f) => f.warcBytes / f.bodyBytes) * 100, 0)} % of the ${MB(w.bodyBytes)} of bodies fetched; ` +
      `${int(w.archive?.records ?? 0)} records (${fmt((w.archive?.records ?? 0) / w.pages, 1)} per page)`,
  );
  const same = on.every((f) => f.documents === off[0]!.documents) && off.every((f) => f.documents === off[0]!.documents);
  console.log(
    '  pages indexed the same in every run: ' +
      `${same ? 'yes' : `no (off ${off.map((f) => f.documents).join(', ')}; on ${on.map((f) => f.documents).join(', ')})`}`,
  );
}

// ---- Part 2: import of a WARC of corpus C ----
if (!values['skip-import']) {
  let root = values['import-root']!;
  let label = root;
  if (!existsSync(root)) {
    const fallback = '/usr/share/doc/python3.11-doc/html';
    if (!existsSync(fallback)) {
      console.error(`${root} does not exist (apt-get install rust-doc), nor the fallback ${fallback} (apt-get install python3.11-doc)`);
      process.exit(2);
    }
    console.log(`NOTE: ${root} is missing (apt-get install rust-doc): using the FALLBACK corpus ${fallback}, not rust-doc`);
    root = label = fallback;
  }
  const htmlFiles = countHtml(root);
  const key = `${root.replace(/^\/+/, '').replace(/[^A-Za-z0-9.]+/g, '-')}-${htmlFiles}`;
  const cache = join(homedir(), '.cache', 'trawl-bench', `warc-${key}`);
  const metaPath = join(cache, 'meta.json');
  type Meta = { crawl: WarcCrawlFigures; records: number; responses: number; html2xx: number; stubs: number; bytes: number; files: string[] };
  let meta: Meta;
  if (existsSync(metaPath)) {
    meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Meta;
    console.log(`part 2: the WARC of ${label} (${htmlFiles} HTML files) from ${cache} (made by an earlier run; delete the folder to make it again)`);
  } else {
    console.log(`part 2: making a WARC of ${label} (${htmlFiles} HTML files): one crawl with archive.warc on, politeness off, kept in ${cache}`);
    rmSync(cache, { recursive: true, force: true });
    const { server, bases } = await startNginx(root, 0);
    let crawl: WarcCrawlFigures;
    try {
      crawl = await once<WarcCrawlFigures>(crawlJob(bases[0]!, true, cache));
    } finally {
      server.kill();
    }
    console.log(`  crawl: ${runLine(crawl)}`);
    const files = readdirSync(cache)
      .filter((f) => /\.warc\.gz$/.test(f))
      .sort();
    // What the WARC holds, read once (untimed): records, responses, HTML responses answered 2xx.
    let records = 0;
    let responses = 0;
    let html2xx = 0;
    let stubs = 0;
    for (const f of files) {
      for await (const item of readArchive(join(cache, f))) {
        if (item.kind === 'progress') records++;
        else if (item.kind === 'capture') {
          responses++;
          if (item.status >= 200 && item.status < 300 && /html/i.test(item.headers['content-type'] ?? '')) {
            html2xx++;
            // ("Redirecting…" stubs: a meta refresh, followed as a redirect, not a page.)
            if (/<meta[^>]+http-equiv=["']?refresh/i.test(item.body.subarray(0, 2048).toString('latin1'))) stubs++;
          }
        }
      }
    }
    meta = { crawl, records, responses, html2xx, stubs, bytes: files.reduce((s, f) => s + statSync(join(cache, f)).size, 0), files };
    mkdirSync(cache, { recursive: true });
    writeFileSync(metaPath, JSON.stringify(meta, null, 1));
  }
  const files = meta.files.map((f) => join(cache, f));
  console.log(
    `  WARC: ${meta.files.length} file(s), ${MB(meta.bytes)}; ${int(meta.records)} records, ${int(meta.responses)} responses, ` +
      `${int(meta.html2xx)} of them HTML answered 2xx (${int(meta.stubs)} of those meta-refresh stubs); ` +
      `the crawl that wrote it indexed ${int(meta.crawl.documents)} pages (${int(meta.crawl.pages)} fetched in ${fmt(meta.crawl.seconds, 1)} s)`,
  );
  const runs: WarcImportFigures[] = [];
  for (let i = 0; i < Number(values['import-runs']); i++) {
    const f = await once<WarcImportFigures>({ kind: 'import', files });
    runs.push(f);
    const outcomes = Object.entries(f.outcomes)
      .map(([k, n]) => `${int(n)} ${k}`)
      .join(', ');
    const skipped = Object.entries(f.skipped)
      .map(([k, n]) => `${int(n)} ${k}`)
      .join('; ');
    console.log(
      `  import run ${i + 1}: ${int(f.captures)} captures in ${fmt(f.seconds, 1)} s (+ anchors and close ${fmt(f.closeSeconds, 1)} s) ` +
        `→ ${int(meta.records / f.seconds)} records/s, ${int(f.captures / f.seconds)} captures/s, ` +
        `${fmt(meta.bytes / 1e6 / f.seconds, 2)} MB/s of WARC; ${fmt(f.cpuSeconds, 1)} CPU s; ` +
        `peak RSS ${fmt(f.peakRssMB, 0)} MB (maxRSS ${fmt(f.maxRssMB, 0)} MB; ${fmt(f.startRssMB, 0)} MB before); ` +
        `${int(f.documents)} documents indexed; outcomes: ${outcomes}${skipped ? `; skipped: ${skipped}` : ''}`,
    );
  }
  const s = median(runs.map((f) => f.seconds));
  const docs = median(runs.map((f) => f.documents));
  console.log(
    `import of ${label}'s WARC (median of ${runs.length}, fresh process): ${int(meta.records / s)} records/s ` +
      `(${int(median(runs.map((f) => f.captures)) / s)} captures/s, ${fmt(meta.bytes / 1e6 / s, 2)} MB/s of WARC) in ${fmt(s, 1)} s; ` +
      `${int(docs)} pages indexed; peak RSS ${fmt(median(runs.map((f) => f.peakRssMB)), 0)} MB (maxRSS ${fmt(median(runs.map((f) => f.maxRssMB)), 0)} MB)`,
  );
  console.log(
    `completeness: ${int(docs)} pages indexed of ${int(meta.html2xx)} HTML responses (2xx) in the WARC (${fmt((docs / meta.html2xx) * 100)} %), ` +
      `of the ${int(meta.html2xx - meta.stubs)} that are not meta-refresh stubs ${fmt((docs / (meta.html2xx - meta.stubs)) * 100)} %; ` +
      `of the ${int(meta.crawl.documents)} the crawl that wrote it indexed: ${fmt((docs / meta.crawl.documents) * 100)} %`,
  );
}

function countHtml(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) n += countHtml(p);
    else if (/\.html?$/i.test(e)) n++;
  }
  return n;
}
