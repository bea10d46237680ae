/**
 * bench/startup: how soon `trawl` answers. Runs the command as a user does (bin/trawl.js, its first
 * line's environment; the compiled dist/ when it is fresh — `npm run build` first) and prints, as
 * medians of --runs fresh processes:
 *   - `trawl --help`: from spawn to exit;
 *   - `trawl crawl URL` into a new data directory: from spawn to the first request reaching a
 *     loopback server (its robots.txt), and to the seed page's request.
 * Issue 23's targets: --help ≤ 150 ms, the first request of a crawl ≤ 300 ms after start.
 *
 *   npx tsx bench/startup.ts [--runs 10]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { productEnv } from './compiled.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '10' } } });
const runs = Number(values.runs);
const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;

const built = (() => {
  try {
    return statSync(new URL('../dist/build.json', import.meta.url)).isFile();
  } catch {
    return false;
  }
})();
if (!built) console.log('no dist/ build: bin/trawl.js runs the TypeScript through tsx (npm run build first to measure what ships)');

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

/** Spawns bin/trawl.js with `args` the way the shell would run it (its shebang's environment). */
function trawl(args: string[]) {
  return spawn(process.execPath, [BIN, ...args], { env: productEnv(), stdio: ['ignore', 'ignore', 'ignore'] });
}

async function help(): Promise<number> {
  const t0 = performance.now();
  const child = trawl(['--help']);
  await new Promise((resolve) => child.on('close', resolve));
  return performance.now() - t0;
}

/** A loopback site of one page; resolves each request's arrival time (performance.now()) by path. */
async function site(): Promise<{ server: Server; url: string; arrivals: Map<string, number> }> {
  const arrivals = new Map<string, number>();
  const server = createServer((req, res) => {
    if (!arrivals.has(req.url ?? '')) arrivals.set(req.url ?? '', performance.now());
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Start</title><p>A page.</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, arrivals };
}

async function firstRequest(): Promise<{ robots: number; seed: number }> {
  const { server, url, arrivals } = await site();
  const data = mkdtempSync(join(tmpdir(), 'trawl-bench-startup-'));
  try {
    const t0 = performance.now();
    const child = trawl(['crawl', url, '--data', data]);
    const done = new Promise((resolve) => child.on('close', resolve));
    while (!arrivals.has('/') && child.exitCode === null) await new Promise((r) => setTimeout(r, 2));
    child.kill('SIGTERM');
    await done;
    return { robots: (arrivals.get('/robots.txt') ?? NaN) - t0, seed: (arrivals.get('/') ?? NaN) - t0 };
  } finally {
    server.close();
    rmSync(data, { recursive: true, force: true });
  }
}

console.log(`machine: load ${load()}; ${runs} runs each, fresh processes, after one warm-up`);
await help();
const helps: number[] = [];
for (let i = 0; i < runs; i++) helps.push(await help());
console.log(`trawl --help: median ${median(helps).toFixed(0)} ms (${range(helps)}) — target ≤ 150 ms`);
await firstRequest();
const robots: number[] = [];
const seeds: number[] = [];
for (let i = 0; i < runs; i++) {
  const r = await firstRequest();
  robots.push(r.robots);
  seeds.push(r.seed);
}
console.log(
  `trawl crawl: first request (robots.txt) median ${median(robots).toFixed(0)} ms (${range(robots)}) ` +
    `after spawn — target ≤ 300 ms; the seed page ${median(seeds).toFixed(0)} ms (${range(seeds)})`,
);
console.log(`machine after: load ${load()}`);
