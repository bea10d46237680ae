/**
 * bench/sqlite-commits: how long a crawl's main thread — the thread that also answers searches —
 * waits in SQLite's COMMITs and checkpoints (issue 23). A documentation corpus (rust-doc by default)
 * is served by nginx on loopback and crawled by `trawl crawl`, compiled as the product is, politeness
 * off; bench/commit-probe.mjs, loaded into it, times every COMMIT (and tells those during which the
 * database file changed: a checkpoint, in WAL mode) and every checkpoint run on the main thread.
 * With `--build DIR` (another build's trawl.js, scripts/build.ts) the two builds' runs alternate.
 *
 * Prints per run: commits that checkpointed (count, time in all, p50, longest), the main thread's
 * own checkpoints, plain commits (p50, p99, time in all), the WAL's largest size, the crawl's
 * seconds; then medians per build.
 *
 *   flock /tmp/trawl-bench.lock npx tsx bench/sqlite-commits.ts [--root /usr/share/doc/rust-doc/html] [--runs 2] [--build DIR]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildTrawl } from '../scripts/build.ts';
import { productEnv } from './compiled.ts';
import { startNginx } from './corpus-server.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/rust-doc/html' },
    seed: { type: 'string', default: 'index.html' },
    runs: { type: 'string', default: '2' },
    build: { type: 'string' },
  },
});
if (!existsSync(values.root!)) {
  console.error(`${values.root} does not exist. On Debian: apt-get install rust-doc nginx-light (or pass --root DIR)`);
  process.exit(2);
}
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PROBE = fileURLToPath(new URL('./commit-probe.mjs', import.meta.url));
type Summary = { n: number; sum: number; p50: number; p99: number; max: number };
type Figures = { checkpointing: Summary; plain: Summary; checkpoints: Summary; maxWal: number; seconds: number };

const here = join(ROOT, '.build', 'bench', 'sqlite-commits');
await buildTrawl({ trawl: 'cli/main.ts' }, here);
const builds: [string, string][] = values.build
  ? [
      [`other (${values.build})`, values.build],
      ['this tree', here],
    ]
  : [['this tree', here]];
const fmt = (n: number, d = 1) => n.toFixed(d);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function crawl(build: string, base: string): Promise<Figures> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-commits-'));
  try {
    const config = join(dir, 'trawl.json');
    writeFileSync(config, JSON.stringify({ concurrency: 16, perHost: { delayMs: 0, maxConnections: 16 }, limits: { maxDepth: 100, maxPages: 0 } }));
    const probe = join(dir, 'probe.json');
    const t0 = performance.now();
    const child = spawn(
      process.execPath,
      ['--import', PROBE, join(build, 'trawl.js'), 'crawl', `${base}${values.seed}`, '--data', join(dir, 'data'), '--config', config],
      {
        stdio: ['ignore', 'ignore', 'pipe'],
        env: { ...productEnv(), TRAWL_COMMIT_PROBE: probe, TRAWL_LOG_LEVEL: 'warn' },
        cwd: ROOT,
      },
    );
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    if (code !== 0 || !existsSync(probe)) throw new Error(`trawl crawl exited ${code}: ${stderr}`);
    return { ...(JSON.parse(readFileSync(probe, 'utf8')) as Omit<Figures, 'seconds'>), seconds: (performance.now() - t0) / 1000 };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const { server, bases } = await startNginx(values.root!, 0);
try {
  console.log(
    `corpus ${values.root}, crawled by trawl crawl (politeness off, concurrency 16); load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  const all = new Map<string, Figures[]>(builds.map(([label]) => [label, []]));
  for (let r = 0; r < Number(values.runs); r++) {
    for (const [label, build] of builds) {
      const f = await crawl(build, bases[0]!);
      all.get(label)!.push(f);
      const c = f.checkpointing;
      console.log(
        `${label}: ${fmt(f.seconds)} s; commits that checkpointed ${c.n}, ${fmt(c.sum, 0)} ms in all (p50 ${fmt(c.p50)}, longest ${fmt(c.max)} ms); ` +
          `checkpoints on the main thread ${f.checkpoints.n}, ${fmt(f.checkpoints.sum, 0)} ms (longest ${fmt(f.checkpoints.max)}); ` +
          `plain commits ${f.plain.n}: p50 ${fmt(f.plain.p50, 2)}, p99 ${fmt(f.plain.p99, 2)} ms, ` +
          `${fmt(f.plain.sum, 0)} ms in all; WAL at most ${fmt(f.maxWal / 1048576)} MB`,
      );
    }
  }
  for (const [label, runs] of all) {
    const waited = runs.map((f) => f.checkpointing.sum + f.checkpoints.sum);
    const longest = runs.map((f) => Math.max(f.checkpointing.max, f.checkpoints.max));
    console.log(
      `${label}, medians of ${runs.length}: main thread in checkpoints ${fmt(median(waited), 0)} ms a crawl, ` +
        `the longest ${fmt(median(longest))} ms; plain commit p50 ${fmt(median(runs.map((f) => f.plain.p50)), 2)} ms`,
    );
  }
  console.log(
    `load ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
} finally {
  server.kill();
}
