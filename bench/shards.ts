/**
 * bench/shards: query latency through a coordinator over two shards against one node over every
 * page (issue 22). A documentation corpus served from loopback is crawled into a throwaway
 * PostgreSQL by `trawl crawl --store`; then, each its own process on loopback, one `trawl serve
 * --store` node, two shards (`--shard 1/2`, `--shard 2/2`) and a coordinator (`--shards`). Every
 * query of the sets is asked as written and as typed halfway (bench/relevance/variants.ts) of
 * the node and of the coordinator, interleaved (the order alternating each round), over HTTP
 * (/api/search, a fresh request each time, each server asked at most every 60 ms: its rate limit
 * for one address is 20 a second): p50 / p90 / p99 / mean wall time, and how many
 * answers differ in their top ten (must be 0). Prints the load average beside the figures.
 *
 *   flock /tmp/trawl-bench.lock npx tsx bench/shards.ts [--root /usr/share/doc/postgresql-doc-15/html] [--rounds 5]
 *     [--queries bench/relevance/postgresql.json,bench/relevance/postgresql-check.json]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { startPostgres } from '../testweb/postgres.ts';
import { startNginx, startNodeServer } from './corpus-server.ts';
import { variantOf } from './relevance/variants.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    seed: { type: 'string', default: 'index.html' },
    rounds: { type: 'string', default: '5' },
    queries: { type: 'string', default: 'bench/relevance/postgresql.json,bench/relevance/postgresql-check.json' },
    // Prints each query whose top ten differs, with both answers.
    show: { type: 'boolean', default: false },
  },
});
if (!existsSync(values.root!)) {
  console.error(`${values.root} does not exist. On Debian: apt-get install postgresql-doc-15 (or pass --root DIR)`);
  process.exit(2);
}
const BIN = fileURLToPath(new URL('../bin/trawl.js', import.meta.url));
const TOKEN = 'bench-shards-admin-token-0123';
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-bench-shards-${name}-`));
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const fmt = (n: number) => n.toFixed(2);

type Proc = { child: ChildProcess; out: () => string; exited: Promise<number | null> };
function trawl(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, TRAWL_ADMIN_TOKEN: TOKEN, TRAWL_LOG_LEVEL: 'warn' },
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, out: () => out, exited: new Promise((r) => child.on('close', r)) };
}
async function served(p: Proc): Promise<string> {
  while (!/Search at (\S+)/.test(p.out())) {
    if (p.child.exitCode !== null) throw new Error(`a server exited: ${p.out()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return /Search at (\S+)/.exec(p.out())![1]!;
}

const queries = values.queries!.split(',').flatMap((f) => (JSON.parse(readFileSync(f, 'utf8')) as { queries: { q: string }[] }).queries.map((x) => x.q));
const asked = [...queries, ...queries.map((q) => variantOf(q, 'prefix'))];
console.log(`load average at start: ${load()}`);

const pg = await startPostgres();
const { server: web, bases } = existsSync('/usr/sbin/nginx') ? await startNginx(values.root!, 0) : await startNodeServer(values.root!);
const running: Proc[] = [];
const dirs: string[] = [];
try {
  const db = await pg.createDatabase();
  const config = join(tmp('config'), 'trawl.json');
  writeFileSync(
    config,
    JSON.stringify({
      seeds: [new URL(values.seed!, bases[0]).href],
      concurrency: 16,
      perHost: { delayMs: 0, maxConnections: 16 },
      limits: { maxDepth: 100 },
      cluster: { shardTimeoutMs: 10_000 },
      server: { host: '127.0.0.1' },
    }),
  );
  const crawlDir = tmp('crawl');
  dirs.push(crawlDir);
  const t0 = performance.now();
  const crawl = trawl(['crawl', '--config', config, '--store', db, '--data', crawlDir]);
  if ((await crawl.exited) !== 0) throw new Error('the crawl failed');
  console.log(`crawled into PostgreSQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  const start = (args: string[]) => {
    const dir = tmp('node');
    dirs.push(dir);
    const p = trawl(['serve', '--config', config, '--port', '0', '--data', dir, ...args]);
    running.push(p);
    return p;
  };
  const [one, a, b] = await Promise.all(
    [start(['--store', db]), start(['--store', db, '--shard', '1/2']), start(['--store', db, '--shard', '2/2'])].map(served),
  );
  const coordinator = await served(start(['--shards', `${a},${b}`]));
  const documents = async (u: string) => ((await (await fetch(`${u}healthz`)).json()) as { documents: number }).documents;
  console.log(
    `one node: ${await documents(one!)} documents; shards: ${await documents(a!)} + ${await documents(b!)}; coordinator: ${await documents(coordinator)}`,
  );
  console.log(`${asked.length} queries (${queries.length} as written, as many typed halfway) × ${values.rounds} rounds, node and coordinator interleaved`);

  // (A server lets one address ask /api/* 20 times a second: each is asked at most every 60 ms.)
  const last = new Map<string, number>();
  const ask = async (base: string, q: string) => {
    const wait = (last.get(base) ?? 0) + 60 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    last.set(base, performance.now());
    const started = performance.now();
    const r = (await (await fetch(`${base}api/search?q=${encodeURIComponent(q)}`)).json()) as { hits: { url: string; score: number }[]; shards?: unknown };
    return { ms: performance.now() - started, top: r.hits.map((h) => h.url).join(' '), r };
  };
  // Warm both up (the shards' first queries read the store).
  let differ = 0;
  let missed = 0;
  for (const q of asked) {
    const [x, y] = [await ask(one!, q), await ask(coordinator, q)];
    if ((y.r.shards as { statisticsMissed?: number } | undefined)?.statisticsMissed) missed++;
    if (x.top === y.top) continue;
    differ++;
    if (values.show)
      console.log(
        `"${q}"\n  node:        ${x.r.hits.map((h) => `${h.url.replace(/^.*\//, '')} ${h.score}`).join(', ')}\n` +
          `  coordinator: ${y.r.hits.map((h) => `${h.url.replace(/^.*\//, '')} ${h.score}`).join(', ')}\n` +
          `  ${JSON.stringify(y.r.shards)}`,
      );
  }
  const times = { node: [] as number[], coordinator: [] as number[] };
  for (let round = 0; round < Number(values.rounds); round++) {
    for (const q of asked) {
      const order = round % 2 ? (['coordinator', 'node'] as const) : (['node', 'coordinator'] as const);
      for (const who of order) times[who].push((await ask(who === 'node' ? one! : coordinator, q)).ms);
    }
  }
  console.log(`load average after: ${load()}`);
  console.log('| server | p50 ms | p90 ms | p99 ms | mean ms |');
  console.log('|---|---|---|---|---|');
  for (const who of ['node', 'coordinator'] as const) {
    const t = times[who];
    console.log(
      `| ${who === 'node' ? 'one node (every document)' : 'coordinator, 2 shards'} | ${fmt(pct(t, 0.5))} | ` +
        `${fmt(pct(t, 0.9))} | ${fmt(pct(t, 0.99))} | ${fmt(t.reduce((x, y) => x + y, 0) / t.length)} |`,
    );
  }
  console.log(
    `coordinator / node: p50 ${(pct(times.coordinator, 0.5) / pct(times.node, 0.5)).toFixed(2)}×, ` +
      `p99 ${(pct(times.coordinator, 0.99) / pct(times.node, 0.99)).toFixed(2)}×`,
  );
  console.log(`top ten different from one node's: ${differ} of ${asked.length}; answers with statistics a shard had to answer from its own: ${missed}`);
} finally {
  for (const p of running) p.child.kill('SIGTERM');
  await Promise.all(running.map((p) => p.exited));
  web.kill();
  await pg.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
