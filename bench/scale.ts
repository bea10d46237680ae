/**
 * bench/scale (issue 22): many crawler processes on one PostgreSQL.
 *
 * Part 1 — crawl throughput. A documentation corpus (rust-doc by default) split over 16 loopback
 * hosts (bench/split-web.ts: each file on one host, links rewritten to their host), crawled by 1, 2
 * and 4 `trawl crawl --store postgres://…` processes at once on one throwaway PostgreSQL 15 (fsync
 * and synchronous commit on, pg_stat_statements loaded; a fresh server each run), and by a single
 * `trawl crawl` on SQLite, the default store. Each run starts fresh processes. Printed: pages/s
 * (pages indexed over the wall time from the first start to the last exit), completeness against
 * the pages reachable by links (bench/reachable.ts), PostgreSQL's CPU seconds (the server's
 * processes, from /proc: the postmaster's own and its children's, those that exited included),
 * transactions and statements per page (pg_stat_database, pg_stat_statements), WAL and database
 * size; then the targets as ratios: 2 workers / 1 worker ≥ 1.7, 1 worker on PostgreSQL / SQLite ≥ 0.8.
 * `--latency-ms N` makes every host take N ms to answer (a web across the internet, not loopback):
 * a crawl then waits on the web, not on this machine's two cores, and more workers can fetch more.
 *
 * Part 2 — the frontier at scale (bench/scale-frontier.ts, its own process): N URLs over H hosts
 * queued through the store's enqueue, then host-claim latency.
 *
 * Every process runs the product as it ships — built first (scripts/build.ts) into .build/bench/scale,
 * or `--build DIR`, another build's trawl.js, to compare two versions — never tsx. `--against CHECKOUT`:
 * that checkout's product too, each run paired with this one's (bench/scale-against.ts).
 *
 * `--mode workers`: the PostgreSQL runs are N `trawl worker` processes and one `trawl serve` search
 * node that indexes what they store (each `trawl crawl` of the default mode indexes every page);
 * printed too, how soon a stored page is searchable there: the node's /healthz count and the
 * database's, sampled every 50 ms — the delay from the k-th page stored to the node holding k.
 *
 *   npx tsx bench/scale.ts [--part 1,2] [--root DIR] [--hosts 16] [--workers 1,2,4] [--runs 1] [--durable on|off] [--sqlite on|off] [--latency-ms 0]
 *                          [--mode crawl|workers] [--top 4] [--profile DIR] [--build DIR] [--against CHECKOUT] [--urls 1000000] [--frontier-hosts 10000]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { openPostgresStore } from '../store/postgres/index.ts';
import { openSqliteStore } from '../store/sqlite/index.ts';
import { startPostgres } from '../testweb/postgres.ts';
import { reachablePages } from './reachable.ts';
import { fmt, printRun, type Run, type Sample, type Searchable, searchableDelays, storedFigures } from './scale-figures.ts';
import { addressOf, ownerOf } from './split-layout.ts';
import type { FrontierFigures, FrontierSettings } from './scale-frontier.ts';
import { figuresOf, productEnv } from './compiled.ts';
import { postmasterOf, procCpu, serverCpu } from './process-cpu.ts';
import { buildTrawl } from '../scripts/build.ts';
import { AGAINST, buildAgainst, printAgainst } from './scale-against.ts';

const { values } = parseArgs({
  options: {
    part: { type: 'string', default: '1,2' },
    root: { type: 'string', default: '/usr/share/doc/rust-doc/html' },
    seed: { type: 'string', default: 'index.html' },
    hosts: { type: 'string', default: '16' },
    workers: { type: 'string', default: '1,2,4' },
    runs: { type: 'string', default: '1' },
    concurrency: { type: 'string', default: '16' },
    connections: { type: 'string', default: '4' },
    /** How long the corpus's hosts take to answer each request (bench/split-web.ts): 0 keeps a crawl CPU-bound. */
    'latency-ms': { type: 'string', default: '0' },
    'timeout-s': { type: 'string', default: '900' },
    /** off: fsync, full-page writes and synchronous commit off (what the tests run), to see what the flush costs. */
    durable: { type: 'string', default: 'on' },
    sqlite: { type: 'string', default: 'on' },
    urls: { type: 'string', default: '1000000' },
    'frontier-hosts': { type: 'string', default: '10000' },
    batch: { type: 'string', default: '1000' },
    claims: { type: 'string', default: '2000' },
    /** Statements listed per PostgreSQL run (those taking most of the server's time). */
    top: { type: 'string', default: '4' },
    /** A directory: each crawler process writes a V8 CPU profile there (node --cpu-prof). */
    profile: { type: 'string' },
    /**
     * crawl: N `trawl crawl` processes, each of which also indexes every page (its own, and the
     * others' through the change log). workers: N `trawl worker` (no index) and one `trawl serve`
     * search node that indexes what they store — the deployment of docs/scaling.md.
     */
    mode: { type: 'string', default: 'crawl' },
    /** A directory with another build's trawl.js (scripts/build.ts), run instead of this tree's: to compare two versions. */
    build: { type: 'string' },
    /** Another checkout (its node_modules in place): its product built and run alternately with this one's, run for run (bench/scale-against.ts). */
    against: { type: 'string' },
  },
});
const parts = values.part!.split(',');
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
// The product as it ships (scripts/build.ts: bundled JavaScript), built once before any run: what
// `trawl` runs — not tsx, and not the source as it is edited while the bench runs.
const built = values.build ?? join('.build', 'bench', 'scale');
if (!values.build) await buildTrawl({ trawl: 'cli/main.ts' }, built);
const BIN = resolve(fileURLToPath(new URL('..', import.meta.url)), built, 'trawl.js');
const sides = [{ suffix: '', bin: BIN }, ...(values.against ? [{ suffix: AGAINST, bin: await buildAgainst(values.against) }] : [])];
/** The trawl.js the next run starts (this checkout's, or --against's). */
let bin = BIN;
const made: string[] = []; // every directory made (configs, the processes' data): removed when the bench exits
const tmp = (name: string) => made[made.push(mkdtempSync(join(tmpdir(), `trawl-bench-scale-${name}-`))) - 1]!;
process.on('exit', () => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

async function part1(): Promise<void> {
  const root = values.root!;
  if (!existsSync(root)) {
    console.error(`${root} does not exist. On Debian: apt-get install rust-doc (or pass --root DIR, e.g. /usr/share/doc/postgresql-doc-15/html)`);
    process.exit(2);
  }
  const hostCount = Number(values.hosts);
  const web = spawn(
    process.execPath,
    ['--import', 'tsx', new URL('./split-web.ts', import.meta.url).pathname, root, String(hostCount), values['latency-ms']!],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      web.once('exit', (code) => reject(new Error(`split-web exited (${code})`)));
      web.stdout!.on('data', (d: Buffer) => {
        const m = /listening (\d+)/.exec(d.toString());
        if (m) resolve(Number(m[1]));
      });
    });
    const seedPath = `/${values.seed}`;
    const seed = `http://${addressOf(ownerOf(seedPath, hostCount))}:${port}${seedPath}`;
    const reachable = reachablePages(root, values.seed!);
    console.log(
      `corpus ${root}: ${reachable.size.toLocaleString('en')} pages reachable by links from ${values.seed}, ` +
        `served on ${hostCount} hosts (127.0.0.2–${addressOf(hostCount - 1)}, port ${port}); seed ${seed}`,
    );
    console.log(
      `politeness: perHost.maxConnections ${values.connections}, delayMs 0; concurrency ${values.concurrency} per process; ` +
        `each answer held ${values['latency-ms']} ms; PostgreSQL 15 with fsync and synchronous_commit ${values.durable === 'off' ? 'off' : 'on'}`,
    );
    const workerCounts = values.workers!.split(',').map(Number);
    const byLabel = new Map<string, Run[]>();
    for (let r = 0; r < Number(values.runs); r++) {
      for (const n of [...(values.sqlite === 'off' ? [] : [0]), ...workerCounts]) {
        for (const side of sides) {
          bin = side.bin;
          const run = n === 0 ? await sqliteRun(seed, port, root) : await postgresRun(n, seed, port, root, hostCount);
          run.label += side.suffix;
          byLabel.set(run.label, [...(byLabel.get(run.label) ?? []), run]);
          printRun(run, reachable.size);
        }
      }
    }
    const med = (label: string, f: (r: Run) => number) => median((byLabel.get(label) ?? []).map(f));
    const pps = (label: string) => med(label, (r) => r.pages / r.seconds);
    console.log(`\nmedians of ${values.runs} run(s), pages/s: ${[...byLabel.keys()].map((l) => `${l} ${fmt(pps(l))}`).join(', ')}`);
    if (byLabel.has('1 worker') && byLabel.has('2 workers')) console.log(`target 2 workers / 1 worker ≥ 1.7: ${fmt(pps('2 workers') / pps('1 worker'), 2)}`);
    if (byLabel.has('4 workers') && byLabel.has('1 worker')) console.log(`4 workers / 1 worker: ${fmt(pps('4 workers') / pps('1 worker'), 2)}`);
    if (byLabel.has('1 worker') && byLabel.has('SQLite')) {
      // (Also each round's own ratio: its two crawls ran back to back, on the machine as it was then.)
      const sqlite = byLabel.get('SQLite')!;
      const paired = byLabel.get('1 worker')!.map((r, i) => r.pages / r.seconds / (sqlite[i]!.pages / sqlite[i]!.seconds));
      console.log(
        `target 1 worker on PostgreSQL / SQLite ≥ 0.8: ${fmt(pps('1 worker') / pps('SQLite'), 2)} (medians); ` +
          `round by round ${paired.map((x) => fmt(x, 2)).join(' / ')}, median ${fmt(median(paired), 2)}`,
      );
    }
    const delays = [...byLabel]
      .filter(([, runs]) => runs[0]!.searchable)
      .map(
        ([l]) =>
          `${l} p50 ${fmt(
            med(l, (r) => r.searchable!.p50),
            0,
          )} ms, p99 ${fmt(
            med(l, (r) => r.searchable!.p99),
            0,
          )} ms`,
      );
    if (delays.length) console.log(`a page stored → searchable on the search node (target: within a second), medians: ${delays.join('; ')}`);
    if (values.against) printAgainst(byLabel, workerCounts, values.against);
  } finally {
    web.kill();
  }
}

function configFile(seed: string, extra: object): string {
  const file = join(tmp('config'), 'trawl.json');
  const config = {
    seeds: [seed],
    scope: { allow: ['HOST:^127\\.0\\.0\\.\\d+:\\d+$'] },
    concurrency: Number(values.concurrency),
    perHost: { maxConnections: Number(values.connections), delayMs: 0 },
    limits: { maxDepth: 100 },
    logLevel: 'warn',
    ...extra,
  };
  writeFileSync(file, JSON.stringify(config));
  return file;
}

type Child = { child: ChildProcess; exited: Promise<number | null>; cpu: () => number; stdout: () => string };

/** `trawl ARGS` in a fresh process; its CPU seconds (all threads) sampled from /proc every 200 ms until it exits. */
function trawl(args: string[]): Child {
  const profile = values.profile ? ['--cpu-prof', '--cpu-prof-dir', values.profile] : [];
  const child = spawn(process.execPath, [...profile, bin, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: productEnv() });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => (stdout = (stdout + d.toString()).slice(-4000)));
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-4000)));
  let last = 0;
  const sample = setInterval(() => (last = procCpu(child.pid!) ?? last), 200);
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      clearInterval(sample);
      if (code !== 0) console.error(`trawl ${args[0]} exited with ${code}: ${stderr}`);
      resolve(code);
    }),
  );
  return { child, exited, cpu: () => last, stdout: () => stdout };
}

async function withTimeout(children: Child[], label: string): Promise<void> {
  const timer = setTimeout(() => {
    console.error(`${label}: still running after ${values['timeout-s']} s, stopped`);
    for (const c of children) c.child.kill('SIGTERM');
  }, Number(values['timeout-s']) * 1000);
  await Promise.all(children.map((c) => c.exited));
  clearTimeout(timer);
}

async function sqliteRun(seed: string, port: number, root: string): Promise<Run> {
  const data = tmp('sqlite');
  const t0 = performance.now();
  const c = trawl(['crawl', '--config', configFile(seed, {}), '--data', data]);
  await withTimeout([c], 'SQLite');
  const seconds = (performance.now() - t0) / 1000;
  const store = openSqliteStore(data, { readOnly: true });
  const { found, pages } = await storedFigures(store, root, port);
  await store.close();
  return { label: 'SQLite', pages, found, seconds, crawlerCpu: c.cpu() };
}

async function postgresRun(n: number, seed: string, port: number, root: string, hostCount: number): Promise<Run> {
  const server = await startPostgres({
    durable: values.durable !== 'off',
    settings: { shared_preload_libraries: 'pg_stat_statements', 'pg_stat_statements.track': 'top', 'pg_stat_statements.track_planning': 'on' },
  });
  try {
    const location = await server.createDatabase('crawl');
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    await admin.query('CREATE EXTENSION pg_stat_statements');
    const postmaster = await postmasterOf(admin);
    const stats = async () => {
      const x = (await admin.query<{ x: string }>("SELECT xact_commit + xact_rollback AS x FROM pg_stat_database WHERE datname = 'crawl'")).rows[0]!;
      const s = (
        await admin.query<{ s: string | null }>(
          "SELECT sum(calls) AS s FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = 'crawl'",
        )
      ).rows[0]!;
      const w = (await admin.query<{ w: string }>("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS w")).rows[0]!;
      return { xacts: Number(x.x), statements: Number(s.s ?? 0), wal: Number(w.w) };
    };
    const before = await stats();
    const cpu0 = serverCpu(postmaster);
    // Each worker holds at most its share of the hosts, so that the first to start does not take them all.
    const config = configFile(seed, { cluster: { hostsPerWorker: Math.ceil(hostCount / n) } });
    const crawled = values.mode === 'workers' ? await workersAndNode(n, config, location) : await crawlers(n, config, location);
    const { seconds, children } = crawled;
    const pgCpu = serverCpu(postmaster) - cpu0;
    await new Promise((r) => setTimeout(r, 1500)); // statistics reach pg_stat_database within a second
    const after = await stats();
    // Where the server's time went: the statements that took most of it (waiting for locks included), and their planning.
    const top = (
      await admin.query<{ ms: number; plan: number; calls: string; plans: string; q: string }>(
        `SELECT total_exec_time AS ms, total_plan_time AS plan, calls, plans, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) AS q ` +
          `FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
         WHERE d.datname = 'crawl' ORDER BY total_exec_time + total_plan_time DESC LIMIT $1`,
        [Number(values.top)],
      )
    ).rows;
    const dbMB = Number((await admin.query<{ s: string }>("SELECT pg_database_size('crawl') AS s")).rows[0]!.s) / 1e6;
    await admin.end();
    // (Another checkout's crawl may have left an older schema: this one's migration first, to read it.)
    const store = await openPostgresStore(location, bin === BIN ? { readOnly: true } : {});
    const { found, pages } = await storedFigures(store, root, port);
    await store.close();
    return {
      label: n === 1 ? '1 worker' : `${n} workers`,
      ...(crawled.caughtUp !== undefined ? { caughtUp: crawled.caughtUp } : {}),
      ...(crawled.searchable ? { searchable: crawled.searchable } : {}),
      pages,
      found,
      seconds,
      pgCpu,
      xacts: after.xacts - before.xacts,
      statements: after.statements - before.statements,
      walMB: (after.wal - before.wal) / 1e6,
      dbMB,
      crawlerCpu: children.reduce((a, c) => a + c.cpu(), 0),
      top: top.map(
        (r) =>
          `${fmt(r.ms / 1000, 1)} s + ${fmt(r.plan / 1000, 1)} s planning in ${Number(r.calls).toLocaleString('en')} calls, ` +
          `${Number(r.plans).toLocaleString('en')} planned (${fmt(Number(r.calls) / pages, 2)} a page, ` +
          `${fmt(r.ms / Number(r.calls), 2)} + ${fmt(r.plan / Number(r.calls), 2)} ms each): ${r.q}`,
      ),
    };
  } finally {
    await server.stop();
  }
}

type Crawled = { seconds: number; children: Child[]; caughtUp?: number; searchable?: Searchable };

/** N `trawl crawl` processes at once, from the first start to the last exit. */
async function crawlers(n: number, config: string, location: string): Promise<Crawled> {
  const t0 = performance.now();
  const children = Array.from({ length: n }, () => trawl(['crawl', '--config', config, '--store', location, '--data', tmp('worker')]));
  await withTimeout(children, `${n} workers`);
  return { seconds: (performance.now() - t0) / 1000, children };
}

/**
 * One `trawl serve` search node, then N `trawl worker` processes: the crawl's time runs from their
 * start until nothing is queued, in flight or waiting for a retry (read every ~0.5 s); the workers
 * are then stopped. `caughtUp`: how long after that the node's index held every stored page.
 */
async function workersAndNode(n: number, config: string, location: string): Promise<Crawled> {
  const migrated = trawl(['db', 'migrate', '--store', location]);
  if ((await migrated.exited) !== 0) throw new Error('trawl db migrate failed');
  const node = trawl(['serve', '--config', config, '--store', location, '--data', tmp('node'), '--port', '0']);
  while (!/Search at (\S+)/.test(node.stdout())) {
    if (node.child.exitCode !== null) throw new Error('trawl serve exited');
    await new Promise((r) => setTimeout(r, 50));
  }
  const search = /Search at (\S+)/.exec(node.stdout())![1]!;
  const db = new pg.Client({ connectionString: location });
  await db.connect();
  const t0 = performance.now();
  const workers = Array.from({ length: n }, () => trawl(['worker', '--config', config, '--store', location, '--data', tmp('worker')]));
  const samples: Sample[] = [];
  // The documents stored, from the change log read as it grows (a count(*) of documents every 50 ms cost the server ~5 % of a core).
  const docs = new Set<string>();
  let seq = '0';
  // Every 50 ms: the node's count first, then the database's — so a page the node holds was counted stored in that sample or before.
  const sample = async (): Promise<Sample> => {
    const at = performance.now();
    const indexed = ((await (await fetch(`${search}healthz`)).json()) as { documents: number }).documents;
    const changes = (await db.query<{ seq: string; doc_id: string; op: string }>('SELECT seq, doc_id, op FROM changes WHERE seq > $1 ORDER BY seq', [seq]))
      .rows;
    for (const c of changes) void (c.op === 'put' ? docs.add(c.doc_id) : docs.delete(c.doc_id));
    seq = changes.at(-1)?.seq ?? seq;
    return samples[samples.push({ at, stored: docs.size, indexed }) - 1]!;
  };
  const open = async () => Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM urls WHERE state IN ('queued', 'fetching', 'failed')`)).rows[0]!.n);
  for (let i = 0, deadline = t0 + Number(values['timeout-s']) * 1000; performance.now() < deadline; i++) {
    const s = await sample();
    // (Until nothing is queued, in flight or waiting for a retry: read every 10th sample.)
    if (i % 10 === 9 && s.stored > 0 && (await open()) === 0) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  const seconds = (performance.now() - t0) / 1000;
  for (const w of workers) w.child.kill('SIGTERM');
  await Promise.all(workers.map((w) => w.exited));
  const ended = performance.now();
  for (let s = await sample(); s.indexed < s.stored && performance.now() - ended < 120_000; s = await sample()) await new Promise((r) => setTimeout(r, 50));
  const caughtUp = (performance.now() - ended) / 1000;
  await db.end();
  node.child.kill('SIGTERM');
  await node.exited;
  return { seconds, children: [...workers, node], caughtUp, searchable: searchableDelays(samples) };
}

async function part2(): Promise<void> {
  const settings: FrontierSettings = {
    urls: Number(values.urls),
    hosts: Number(values['frontier-hosts']),
    batch: Number(values.batch),
    claims: Number(values.claims),
    claimMax: 8,
    workers: 2,
  };
  console.log(
    `\nfrontier: ${settings.urls.toLocaleString('en')} URLs over ${settings.hosts.toLocaleString('en')} hosts ` +
      `queued through Store.enqueue in batches of ${settings.batch} (${settings.workers} at once), ` +
      `then ${settings.claims} claims of ≤ ${settings.claimMax} hosts (each released after); PostgreSQL 15, fsync on`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', new URL('./scale-frontier.ts', import.meta.url).pathname, JSON.stringify(settings)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const f = await figuresOf<FrontierFigures>(child, 'frontier run');
  console.log(
    `enqueue: ${fmt(f.enqueueSeconds, 1)} s → ${fmt(f.insertsPerSecond, 0)} URLs/s (a batch: p50 ${fmt(f.batchP50Ms, 1)} ms, ` +
      `p99 ${fmt(f.batchP99Ms, 1)} ms); database ${fmt(f.databaseMB, 0)} MB (${fmt((f.databaseMB * 1e6) / f.urls, 0)} bytes a URL)`,
  );
  console.log(
    `claim: p50 ${fmt(f.claimP50Ms, 2)} ms, p99 ${fmt(f.claimP99Ms, 2)} ms, ` +
      `max ${fmt(f.claimMaxMs, 1)} ms (${f.hostsClaimed.toLocaleString('en')} hosts in ${f.claims} claims)`,
  );
  console.log(`once on the full frontier: urls.counts() ${fmt(f.countsMs, 0)} ms, hosts.withWork() ${fmt(f.withWorkMs, 0)} ms`);
}

if (parts.includes('1')) await part1();
if (parts.includes('2')) await part2();
