/**
 * bench/search-while-crawling: how fast `/api/search` answers while `trawl start` crawls at full
 * speed, against the same server once the crawl is over (issue 23). A documentation corpus
 * (rust-doc by default, ~21,000 pages) is served by nginx on loopback; `trawl start` — compiled as
 * the product is (scripts/build.ts) and launched with bin/trawl.js's environment — crawls it with
 * politeness off (concurrency 16, perHost.maxConnections 16, delayMs 0) while another process
 * (bench/query-load.ts) asks it a steady stream of queries (--rate a second, open loop). Each run
 * crawls twice, in alternating order: with the queries (then, the crawl over, the same queries for
 * --idle-seconds on the finished index), and without them, for the crawl's pages/s alone.
 *
 * Prints per run, and as medians of the runs: query p50 / p90 / p99 / max while crawling (all of
 * it, and its second half — an index past half its final size), idle; pages/s with and without
 * the queries; the crawl process's main-thread CPU per page (from /proc: schedstat of the thread
 * whose id is the process's) and the process's CPU per page; how long its event loop was held while
 * crawling (bench/loop-probe.mjs, loaded into it: the longest loop delay, and the delays over 5 and
 * 10 ms a second — what a query may wait behind — and its GC pauses over 5 ms). Prints the load
 * average.
 *
 * --queries FILE asks a relevance set's queries (bench/relevance/*.json) as people type them instead
 * of the built-in words and pairs: each whole, with its last word cut and with one typo
 * (relevance/variants.ts). --rate 0 sends them back to back (one in flight at a time): the crawl's
 * pages/s under the heaviest load one searcher makes.
 *
 *   flock /tmp/trawl-bench.lock npx tsx bench/search-while-crawling.ts [--root /usr/share/doc/rust-doc/html] [--runs 3] [--rate 15] \
 *     [--idle-seconds 20] [--queries bench/relevance/rust.json] [--build DIR] [--against DIR]
 *
 * --against DIR (a build of another checkout: scripts/build.ts) runs that build too, alternated
 * with this one in every run, and prints each side's medians and the medians of the per-run
 * ratios (this / against).
 *   (Debian: apt-get install rust-doc nginx-light; --root /usr/share/doc/postgresql-doc-15/html for a short run)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildTrawl } from '../scripts/build.ts';
import { productEnv } from './compiled.ts';
import { startNginx } from './corpus-server.ts';
import { variantOf, VARIANTS } from './relevance/variants.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/rust-doc/html' },
    seed: { type: 'string', default: 'index.html' },
    runs: { type: 'string', default: '3' },
    rate: { type: 'string', default: '15' },
    'idle-seconds': { type: 'string', default: '20' },
    queries: { type: 'string' },
    // A directory with another build's trawl.js (scripts/build.ts), run instead of this tree's.
    build: { type: 'string' },
    // Another build's directory, run alternately with this one, run for run: the ratios of two versions in one invocation.
    against: { type: 'string' },
  },
});
if (!existsSync(values.root!)) {
  console.error(`${values.root} does not exist. On Debian: apt-get install rust-doc nginx-light (or pass --root DIR)`);
  process.exit(2);
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const rate = Number(values.rate);
const idleSeconds = Number(values['idle-seconds']);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const pct = (xs: readonly number[], p: number) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]! : NaN);
/** The median of the runs' figures (of an even count, the mean of the two in the middle). */
const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return !s.length ? NaN : s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const fmt = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '–');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Queries a reader of the Rust documentation would type: words, two words, identifiers, and words
 * typed halfway (the last word cut), so that completions are asked for too.
 */
const WORDS = [
  'vec push',
  'hashmap entry',
  'iterator map',
  'string from_utf8',
  'option unwrap_or',
  'result map_err',
  'borrow',
  'lifetime elision',
  'trait object',
  'async await',
  'box dyn',
  'rc refcell',
  'mutex lock',
  'thread spawn',
  'closure capture',
  'slice sort_by',
  'file open',
  'read_to_string',
  'println',
  'format macro',
  'match guard',
  'enum variant',
  'struct update syntax',
  'impl display',
  'generic bounds',
  'cargo build',
  'unsafe pointer',
  'raw pointer deref',
  'macro_rules',
  'derive debug',
  'iterator fold',
  'btreemap range',
  'vecdeque',
  'binary heap',
  'hash set union',
  'cow',
  'pin',
  'future poll',
  'send sync',
  'atomic ordering',
  'arc clone',
  'weak upgrade',
  'string split_whitespace',
  'char is_alphabetic',
  'u32 checked_add',
  'overflow',
  'panic',
  'error source',
  'io write',
  'bufreader lines',
  'tcp stream',
  'path join',
  'env args',
  'process command',
  'duration',
  'instant now',
  'iter',
  'itera',
  'hashm',
  'vec wi',
  'string fr',
  'option ma',
  'lifet',
  'trait obj',
  'mutex gu',
  'from_ut',
  'into_iter',
  'as_ref',
  'partialord',
  'ord cmp',
  'default trait',
  'drop',
  'deref coercion',
  'sized',
  'phantomdata',
  'maybeuninit',
];

/** A relevance set's queries, each in every variant (exact, typed halfway, one typo), or the built-in words. */
function queryMix(file: string | undefined): string[] {
  if (!file) return WORDS;
  const set = JSON.parse(readFileSync(file, 'utf8')) as { queries: { q: string }[] };
  return set.queries.flatMap(({ q }) => VARIANTS.map((v) => variantOf(q, v)));
}
const QUERIES = queryMix(values.queries);

type Proc = { child: ChildProcess; out: () => string; err: () => string; exited: Promise<number | null> };
function started(command: string, args: string[], env: NodeJS.ProcessEnv, stdin: 'ignore' | 'pipe' = 'ignore'): Proc {
  const child = spawn(command, args, { stdio: [stdin, 'pipe', 'pipe'], env, cwd: ROOT });
  let out = '';
  let err = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return { child, out: () => out, err: () => err, exited: new Promise((r) => child.on('close', r)) };
}
async function until<T>(what: string, p: Proc, test: () => T | undefined, timeoutMs = 900_000): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = test();
    if (v !== undefined) return v;
    if (p.child.exitCode !== null) throw new Error(`exited before ${what}: ${p.out().slice(-500)} ${p.err().slice(-1500)}`);
    if (Date.now() - t0 > timeoutMs) throw new Error(`no ${what} within ${timeoutMs} ms`);
    await sleep(20);
  }
}
/** CPU seconds of a process's main thread (the thread whose id is the process's) and of the whole process. */
function cpuOf(pid: number): { main: number; all: number } {
  const main = Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e9;
  // (utime and stime, fields 14 and 15, in clock ticks of 1/100 s; the name in field 2 has no space here.)
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ');
  return { main, all: (Number(f[13]) + Number(f[14])) / 100 };
}

type Crawled = { pages: number; seconds: number; mainMsPerPage: number; allMsPerPage: number; startedAt: number; endedAt: number; loop: Loop };
/** The event loop while crawling (bench/loop-probe.mjs's lines between the crawl's start and end). */
type Loop = { longestMs: number; over5PerSecond: number; over10PerSecond: number; gcLongestMs: number; gcOver5PerSecond: number };
function loopWhile(probeFile: string, from: number, to: number): Loop {
  const lines = existsSync(probeFile)
    ? readFileSync(probeFile, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as number[])
    : [];
  const within = lines.filter(([at]) => at! > from && at! <= to);
  const seconds = (to - from) / 1000;
  const sum = (i: number) => within.reduce((s, l) => s + l[i]!, 0);
  return {
    longestMs: Math.max(0, ...within.map((l) => l[1]!)),
    over5PerSecond: sum(2) / seconds,
    over10PerSecond: sum(3) / seconds,
    gcLongestMs: Math.max(0, ...within.map((l) => l[4]!)),
    gcOver5PerSecond: sum(5) / seconds,
  };
}

const built = values.build ?? join('.build', 'bench', 'search-while-crawling');
if (!values.build) await buildTrawl({ trawl: 'cli/main.ts' }, built);
const { server, bases } = await startNginx(values.root!, 0);
const seed = new URL(values.seed!, bases[0]).href;
const pace = rate > 0 ? `${rate} a second, open loop` : 'back to back, one in flight';
console.log(
  `corpus: ${values.root} served by nginx at ${bases[0]}; queries: ${QUERIES.length} (${values.queries ?? 'words and pairs'}), ${pace}; load ${load()}`,
);

/** Whether a build has the setting server.apiRate (older ones limit /api/* to 20 a second per address, unconfigurably). */
function knowsApiRate(dir: string): boolean {
  return readdirSync(dir).some((f) => f.endsWith('.js') && readFileSync(join(dir, f), 'utf8').includes('one client address may make to /api/*'));
}
for (const dir of [built, values.against].filter((d) => d !== undefined))
  if (!knowsApiRate(dir)) console.log(`(${dir} has no server.apiRate: its /api/* answers 429 past 20 queries a second, counted as not answered)`);

/** One `trawl start` crawl to its end; with `queries`, the query process runs through it and then `idleSeconds` more. */
async function crawl(
  built: string,
  queries: boolean,
): Promise<{ crawled: Crawled; latencies?: { crawling: number[]; late: number[]; idle: number[]; failures: Record<string, number> } }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-swc-'));
  const config = join(dataDir, 'bench.json');
  // (No rate limit on the queries: back to back they would get 429s, which cost the server nothing.)
  const server = knowsApiRate(built) ? { server: { apiRate: 1_000_000 } } : {};
  writeFileSync(config, JSON.stringify({ concurrency: 16, perHost: { delayMs: 0, maxConnections: 16 }, limits: { maxDepth: 100 }, ...server }));
  const probeFile = join(dataDir, 'loop-probe.jsonl');
  const probe = ['--import', new URL('./loop-probe.mjs', import.meta.url).href];
  const trawl = started(
    process.execPath,
    [...probe, join(built, 'trawl.js'), 'start', seed, '--data', join(dataDir, 'data'), '--port', '0', '--config', config],
    { ...productEnv(), TRAWL_LOG_LEVEL: 'info', TRAWL_LOOP_PROBE: probeFile },
  );
  let client: Proc | undefined;
  try {
    const base = await until('the server', trawl, () => /Search at (\S+)/.exec(trawl.out())?.[1]);
    const cpu0 = cpuOf(trawl.child.pid!);
    const startedAt = Date.now();
    if (queries)
      client = started(process.execPath, ['--import', 'tsx', 'bench/query-load.ts', base, String(rate), JSON.stringify(QUERIES)], process.env, 'pipe');
    await until("the crawl's end", trawl, () => (/"msg":"crawl (finished|stopped)/.test(trawl.err()) ? true : undefined));
    const endedAt = Date.now();
    const cpu1 = cpuOf(trawl.child.pid!);
    const status = (await (await fetch(`${base}api/status`)).json()) as { index: { documents: number } };
    const pages = status.index.documents;
    const crawled = {
      pages,
      seconds: (endedAt - startedAt) / 1000,
      mainMsPerPage: ((cpu1.main - cpu0.main) * 1000) / pages,
      allMsPerPage: ((cpu1.all - cpu0.all) * 1000) / pages,
      startedAt,
      endedAt,
      loop: loopWhile(probeFile, startedAt, endedAt),
    };
    if (!client) return { crawled };
    // Idle: once the anchor text of the pages indexed early is brought up to date (searches leave
    // that work its share of the thread). An older build that does not say so gets 30 s.
    await until('the anchor refresh', trawl, () => (/"msg":"anchor text: \d+ pages/.test(trawl.err()) ? true : undefined), 30_000).catch(() => undefined);
    const idleFrom = Date.now();
    await sleep(idleSeconds * 1000);
    client.child.stdin!.end('stop\n');
    await client.exited;
    const { samples, failures } = JSON.parse(client.out().trim().split('\n').pop()!) as { samples: [number, number][]; failures: Record<string, number> };
    const half = startedAt + (endedAt - startedAt) / 2;
    // (Queries sent between the crawl's end and the anchor refresh's are neither.)
    return {
      crawled,
      latencies: {
        crawling: samples.filter(([at]) => at >= startedAt && at < endedAt).map(([, ms]) => ms),
        late: samples.filter(([at]) => at >= half && at < endedAt).map(([, ms]) => ms),
        idle: samples.filter(([at]) => at >= idleFrom).map(([, ms]) => ms),
        failures,
      },
    };
  } finally {
    client?.child.kill();
    trawl.child.kill('SIGTERM');
    await trawl.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const figures = (xs: readonly number[]) =>
  `p50 ${fmt(pct(xs, 0.5), 2)} / p90 ${fmt(pct(xs, 0.9), 2)} / p99 ${fmt(pct(xs, 0.99), 2)} / max ${fmt(Math.max(...xs), 1)} ms (${xs.length})`;
type Figures = Record<
  'crawlP50' | 'crawlP99' | 'lateP99' | 'idleP50' | 'idleP99' | 'ppsQueried' | 'ppsAlone' | 'main' | 'proc' | 'longest' | 'over5' | 'over10',
  number[]
>;
const noFigures = (): Figures => ({
  crawlP50: [],
  crawlP99: [],
  lateP99: [],
  idleP50: [],
  idleP99: [],
  ppsQueried: [],
  ppsAlone: [],
  main: [],
  proc: [],
  longest: [],
  over5: [],
  over10: [],
});
const sides = [{ name: 'this', dir: built, all: noFigures() }];
if (values.against) sides.push({ name: 'against', dir: values.against, all: noFigures() });

/** One side's two crawls of a run (with the queries and alone, in the order given), their figures printed and kept. */
async function runSide(r: number, side: (typeof sides)[number], order: boolean[]): Promise<void> {
  const all = side.all;
  for (const queried of order) {
    const { crawled, latencies } = await crawl(side.dir, queried);
    const pps = crawled.pages / crawled.seconds;
    const line =
      `run ${r + 1}${sides.length > 1 ? ` ${side.name}` : ''}, ${queried ? 'with queries' : 'alone       '}: ` +
      `${crawled.pages} pages in ${fmt(crawled.seconds, 1)} s = ${fmt(pps)} pages/s; CPU per page: ` +
      `main thread ${fmt(crawled.mainMsPerPage, 3)} ms, process ${fmt(crawled.allMsPerPage, 3)} ms; load ${load()}`;
    console.log(line);
    const l = crawled.loop;
    console.log(
      `    event loop while crawling: longest delay ${fmt(l.longestMs)} ms; delays over 5 ms ${fmt(l.over5PerSecond, 2)} a second, ` +
        `over 10 ms ${fmt(l.over10PerSecond, 2)}; GC: longest pause ${fmt(l.gcLongestMs)} ms, ${fmt(l.gcOver5PerSecond, 2)} a second over 5 ms`,
    );
    all.longest.push(l.longestMs);
    all.over5.push(l.over5PerSecond);
    all.over10.push(l.over10PerSecond);
    all.main.push(crawled.mainMsPerPage);
    all.proc.push(crawled.allMsPerPage);
    if (!latencies) {
      all.ppsAlone.push(pps);
      continue;
    }
    all.ppsQueried.push(pps);
    console.log(`    while crawling ${figures(latencies.crawling)}; its second half ${figures(latencies.late)}`);
    console.log(
      `    idle           ${figures(latencies.idle)}${Object.keys(latencies.failures).length ? `; not answered: ${JSON.stringify(latencies.failures)}` : ''}`,
    );
    all.crawlP50.push(pct(latencies.crawling, 0.5));
    all.crawlP99.push(pct(latencies.crawling, 0.99));
    all.lateP99.push(pct(latencies.late, 0.99));
    all.idleP50.push(pct(latencies.idle, 0.5));
    all.idleP99.push(pct(latencies.idle, 0.99));
  }
}

try {
  for (let r = 0; r < Number(values.runs); r++) {
    // (Alternating which crawl, and which side, comes first: the machine's speed drifts.)
    const order = r % 2 === 0 ? [true, false] : [false, true];
    for (const side of r % 2 === 0 ? sides : [...sides].reverse()) await runSide(r, side, order);
  }
} finally {
  server.kill();
}
for (const { name, all } of sides)
  console.log(
    `${sides.length > 1 ? `${name}: ` : ''}medians of ${all.crawlP50.length} runs: /api/search while crawling p50 ${fmt(median(all.crawlP50), 2)} / ` +
      `p99 ${fmt(median(all.crawlP99), 2)} ms (second half p99 ${fmt(median(all.lateP99), 2)}), ` +
      `idle p50 ${fmt(median(all.idleP50), 2)} / p99 ${fmt(median(all.idleP99), 2)} ms; ` +
      `pages/s with queries ${fmt(median(all.ppsQueried))}, alone ${fmt(median(all.ppsAlone))} ` +
      `(with / alone ${fmt(median(all.ppsQueried.map((q, i) => q / all.ppsAlone[i]!)), 2)}); ` +
      `CPU per page: main thread ${fmt(median(all.main), 3)} ms, process ${fmt(median(all.proc), 3)} ms; ` +
      `event loop while crawling: longest delay ${fmt(median(all.longest))} ms, ` +
      `over 5 ms ${fmt(median(all.over5), 2)} / over 10 ms ${fmt(median(all.over10), 2)} a second; load ${load()}`,
  );
if (sides.length > 1) {
  const [a, b] = [sides[0]!.all, sides[1]!.all];
  const ratio = (k: keyof Figures) => fmt(median(a[k].map((x, i) => x / b[k][i]!)), 2);
  console.log(
    `this / against, medians of per-run ratios: search while crawling p50 ${ratio('crawlP50')}, p99 ${ratio('crawlP99')}; ` +
      `idle p50 ${ratio('idleP50')}, p99 ${ratio('idleP99')}; pages/s with queries ${ratio('ppsQueried')}, alone ${ratio('ppsAlone')}; ` +
      `CPU per page, process ${ratio('proc')}`,
  );
}
