/**
 * bench/render: what `render: auto` costs where nothing needs a browser, and what rendering costs
 * where everything does — against Crawlee's PlaywrightCrawler on the same Chromium.
 *
 *   npx tsx bench/render.ts [--runs 3] [--concurrency 1,2,4] [--spa-runs 1] [--spa-pages 500]
 *                           [--settle-ms N] [--crawlee-wait networkidle|load] [--part 1|2|all] [--no-crawlee]
 *                           [--against DIR]   (part 2: also Trawl from the worktree DIR, e.g. main's, as `old`)
 *   (Debian: apt-get install postgresql-doc-15 nginx-light chromium)
 *
 * Part 1, the PostgreSQL docs (plain HTML, served by nginx in its own process), crawled with
 * `render.mode: auto` and `never`, interleaved (ABBA), each run a fresh process (render-once.ts),
 * politeness off as bench/crawl: pages rendered and would-be-rendered (status().render, must be 0),
 * browser processes seen below the crawler (must be 0), crawl time of auto over never.
 *
 * Part 2, a 500-page single-page app (testweb/spa-web.ts, served by its own process), rendered by
 * Trawl (`render.mode: auto`, render.concurrency 1, 2, 4) and by Crawlee's PlaywrightCrawler
 * (maxConcurrency = minConcurrency = 1, 2, 4; bench/crawlee-render.mjs), each run a fresh process:
 * pages/s, wall, pages found, CPU of the crawler process (and of the browser), the browser's memory
 * (PSS summed over the crawler's descendant processes, sampled every 200 ms here, peak — and, for
 * Trawl, the renderer's own browserRssBytes from status, read once a second) and the crawler process's
 * peak RSS. Crawlee is installed on first use into ~/.cache/trawl-bench/crawlee (never a dependency
 * of the project), with playwright at the version of playwright-core in node_modules.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { CHROMIUM_ARGS } from '../crawler/render/browser.ts';
import { startNginx } from './corpus-server.ts';
import { installCrawlee } from './crawlee.ts';
import type { CrawlFigures, CrawlSettings } from './render-once.ts';
import { figuresOf } from './compiled.ts';
import { descendants, killTree, pssBytes, readProc } from './process-cpu.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    concurrency: { type: 'string', default: '1,2,4' },
    'spa-runs': { type: 'string', default: '1' },
    'spa-pages': { type: 'string', default: '500' },
    'settle-ms': { type: 'string' },
    'crawlee-wait': { type: 'string', default: 'networkidle' },
    part: { type: 'string', default: 'all' },
    'no-crawlee': { type: 'boolean', default: false },
    against: { type: 'string' },
  },
});
const CHROMIUM = '/usr/bin/chromium';
const NGINX = '/usr/sbin/nginx';
const root = values.root!;
const missing = [!existsSync(NGINX) && 'nginx-light', !existsSync(CHROMIUM) && 'chromium', !existsSync(root) && 'postgresql-doc-15'].filter(Boolean);
if (missing.length) {
  console.error(`missing: ${missing.join(', ')}. On Debian: apt-get install postgresql-doc-15 nginx-light chromium`);
  process.exit(2);
}
const HERE = new URL('.', import.meta.url).pathname;
const median = (xs: number[]) => (xs.length ? [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : NaN);
const range = (xs: number[], d = 1) => (xs.length > 1 ? ` (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})` : '');
const fmt = (n: number, d = 1) => n.toFixed(d);

// ---- Processes: every one this bench starts is stopped at the end, whatever happens. ----

const started = new Set<ChildProcess>();
/** Descendants seen by the samplers (pid → start time): killed at the end if still there (orphans). */
const seenDescendants = new Map<number, string>();

function cleanup(): void {
  for (const child of started) if (child.exitCode === null && child.signalCode === null) killTree(child.pid);
  for (const [pid, start] of seenDescendants) {
    if (readProc(String(pid))?.start === start) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(sig, () => process.exit(130));
process.on('uncaughtException', (e) => {
  console.error(e);
  process.exit(1);
});
process.on('unhandledRejection', (e) => {
  console.error(e);
  process.exit(1);
});

type TreeFigures = { peakPssMB: number; cpuSeconds: number; processes: number };

/**
 * Runs a child (node …) to its end, sampling the browser's processes below it every 200 ms: peak PSS
 * summed over them, their CPU, how many there were. CPU: the largest sum seen of each live browser
 * process's own time plus its children's that it waited for — a renderer that has exited is in its
 * zygote's figure, so a page's process is counted to its end, once (a renderer lives about a
 * second: its own last figure seen would miss much of it).
 * Returns the last line of its stdout, parsed.
 */
async function runChild<T>(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<{ figures: T; tree: TreeFigures; wallSeconds: number }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env });
  started.add(child);
  const figures = figuresOf<T>(child, `child ${args.join(' ').slice(0, 200)}`);
  const seen = new Set<string>();
  let peak = 0;
  let ticks = 0;
  const sample = () => {
    if (child.pid === undefined || child.exitCode !== null) return;
    let pss = 0;
    let live = 0;
    for (const p of descendants(child.pid)) {
      seenDescendants.set(p.pid, p.start);
      if (!p.browser) continue;
      seen.add(`${p.pid}:${p.start}`);
      live += p.cpuTicks + p.childTicks;
      pss += pssBytes(p.pid);
    }
    peak = Math.max(peak, pss);
    ticks = Math.max(ticks, live);
  };
  const timer = setInterval(sample, 200);
  try {
    await figures;
  } finally {
    clearInterval(timer);
    started.delete(child);
  }
  return {
    figures: await figures,
    tree: { peakPssMB: peak / 1e6, cpuSeconds: ticks / 100, processes: seen.size },
    wallSeconds: (performance.now() - t0) / 1000,
  };
}

const trawlOnce = (settings: CrawlSettings, benchDir = HERE) =>
  runChild<CrawlFigures>(['--import', 'tsx', join(benchDir, 'render-once.ts'), 'crawl', JSON.stringify(settings)]);

function load(): string {
  return readFileSync('/proc/loadavg', 'latin1').split(' ').slice(0, 3).join(' ');
}

console.log(`bench/render — ${new Date().toISOString()}, load average ${load()}, Chromium: ${CHROMIUM}`);

// ---- Part 1: plain HTML with render auto against never. ----

if (values.part === 'all' || values.part === '1') {
  const { server, bases } = await startNginx(root, 0);
  started.add(server);
  const base = bases[0]!;
  console.log(
    `\npart 1: ${root} served by nginx at ${base}; render auto vs never, ${values.runs} runs each, ` +
      'interleaved (ABBA), politeness off (maxConnections 16, delayMs 0)',
  );
  const figures = { auto: [] as CrawlFigures[], never: [] as CrawlFigures[] };
  const browsers = { auto: [] as number[], never: [] as number[] };
  const pairs: number[] = [];
  for (let r = 0; r < Number(values.runs); r++) {
    const order = r % 2 === 0 ? (['auto', 'never'] as const) : (['never', 'auto'] as const);
    const seconds: Record<string, number> = {};
    for (const mode of order) {
      const { figures: f, tree } = await trawlOnce({
        seeds: [new URL('index.html', base).href],
        concurrency: 16,
        perHost: { delayMs: 0, maxConnections: 16 },
        render: { mode },
        sampleMs: 0,
        queries: [],
        progressMs: 0,
        label: mode,
      });
      figures[mode].push(f);
      browsers[mode].push(tree.processes);
      seconds[mode] = f.seconds;
      const rs = f.render;
      console.log(
        `  run ${r + 1} ${mode.padEnd(5)}: ${f.pages} pages in ${fmt(f.seconds, 2)} s → ${fmt(f.pages / f.seconds)} pages/s, ` +
          `${fmt(f.cpuSeconds, 2)} CPU s, peak RSS ${fmt(f.peakRssMB, 0)} MB; ` +
          `rendered ${rs?.rendered ?? '–'}, would render ${rs?.wouldRender ?? '–'}, browser processes seen ${tree.processes}`,
      );
    }
    pairs.push(seconds.auto! / seconds.never!);
  }
  killTree(server.pid);
  started.delete(server);
  const secs = (m: 'auto' | 'never') => figures[m].map((f) => f.seconds);
  const ratio = median(secs('auto')) / median(secs('never'));
  const rendered = figures.auto.reduce((s, f) => s + (f.render?.rendered ?? 0) + (f.render?.wouldRender ?? 0) + (f.render?.failed ?? 0), 0);
  const launched = browsers.auto.reduce((a, b) => a + b, 0) + browsers.never.reduce((a, b) => a + b, 0);
  console.log(`part 1 result (medians of ${figures.auto.length}; ranges in brackets):`);
  for (const m of ['auto', 'never'] as const) {
    const pps = figures[m].map((f) => f.pages / f.seconds);
    console.log(
      `  ${m.padEnd(5)}: ${figures[m][0]?.pages} pages, ${fmt(median(secs(m)), 2)} s${range(secs(m), 2)}, ${fmt(median(pps))} pages/s, ` +
        `${fmt(median(figures[m].map((f) => f.cpuSeconds)), 2)} CPU s, peak RSS ${fmt(median(figures[m].map((f) => f.peakRssMB)), 0)} MB`,
    );
  }
  console.log(
    `  pages rendered or needing a browser with auto: ${rendered} (target 0: ${rendered === 0 ? 'met' : 'NOT met'}); ` +
      `browser processes seen in all runs: ${launched} (target 0: ${launched === 0 ? 'met' : 'NOT met'})`,
  );
  console.log(
    `  crawl time auto / never: ratio of medians ${fmt(ratio, 3)}, ` +
      `median of paired ratios ${fmt(median(pairs), 3)}${range(pairs, 3)} (target ≤ 1.05: ${ratio <= 1.05 ? 'met' : 'NOT met'})`,
  );
}

// ---- Part 2: a 500-page single-page app, Trawl against Crawlee. ----

if (values.part === 'all' || values.part === '2') {
  const pages = Number(values['spa-pages']);
  const server = spawn(process.execPath, ['--import', 'tsx', join(HERE, 'render-once.ts'), 'spa-server', String(pages)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  started.add(server);
  const base = await new Promise<string>((resolve, reject) => {
    server.on('exit', (c) => reject(new Error(`the SPA server exited (${c})`)));
    server.stdout!.on('data', (d: Buffer) => {
      const m = /listening (\S+)/.exec(d.toString());
      if (m) resolve(m[1]!);
    });
  });
  const serverCpu = () => (readProc(String(server.pid))?.cpuTicks ?? 0) / 100;
  const crawleeDir = values['no-crawlee'] ? undefined : installCrawlee();
  const levels = values.concurrency!.split(',').map(Number);
  const settle = values['settle-ms'] === undefined ? undefined : Number(values['settle-ms']);
  const checks = [1, 2, Math.ceil(pages / 2), pages - 1, pages];
  console.log(
    `\npart 2: testweb/spa-web.ts, ${pages} pages + home, served by its own process at ${base}; ` +
      `render.concurrency / maxConcurrency ${levels.join(', ')}, ${values['spa-runs']} run(s) each, ` +
      `Trawl: render.mode auto, settleMs ${settle ?? 'default (500)'}, concurrency 8, perHost maxConnections 8, delayMs 0; ` +
      `Crawlee: ${crawleeDir ? `minConcurrency = maxConcurrency, waitUntil ${values['crawlee-wait']}` : 'skipped'}`,
  );
  type Row = { pps: number; seconds: number; wall: number; found: number; cpu: number; browserCpu: number; browserMB: number } & {
    statusBrowserMB?: number;
    rssMB: number;
    serverCpu: number;
  };
  type Who = 'trawl' | 'crawlee' | 'old';
  const against = values.against ? join(values.against, 'bench') : undefined;
  const contenders: Who[] = ['trawl', ...(crawleeDir ? (['crawlee'] as const) : []), ...(against ? (['old'] as const) : [])];
  const rows = new Map<number, Record<Who, Row[]>>();
  for (const c of levels) {
    const at: Record<Who, Row[]> = { trawl: [], crawlee: [], old: [] };
    rows.set(c, at);
    for (let r = 0; r < Number(values['spa-runs']); r++) {
      const order = r % 2 === 0 ? contenders : [...contenders].reverse();
      for (const who of order) {
        const s0 = serverCpu();
        console.log(`  ${who} c=${c} run ${r + 1} (load ${load()})`);
        if (who !== 'crawlee') {
          const {
            figures: f,
            tree,
            wallSeconds,
          } = await trawlOnce(
            {
              seeds: [`${base}/`],
              concurrency: 8,
              perHost: { delayMs: 0, maxConnections: 8 },
              render: { mode: 'auto', concurrency: c, ...(settle !== undefined ? { settleMs: settle } : {}) },
              sampleMs: 1000, // the renderer reads its browser's memory at most once a second; status() also runs SQLite counts
              queries: ['spahome', ...checks.map((n) => `spaword${n}`)],
              progressMs: 10_000,
              label: `${who} c=${c}`,
            },
            who === 'old' ? against : HERE,
          );
          const okHome = f.hits.spahome?.includes(`${base}/`) ?? false;
          const okDocs = checks.filter((n) => f.hits[`spaword${n}`]?.includes(`${base}/docs/${n}`));
          const rendered = f.render?.rendered ?? 0;
          const row: Row = {
            pps: rendered / f.seconds,
            seconds: f.seconds,
            wall: wallSeconds,
            found: f.indexed,
            cpu: f.cpuSeconds,
            browserCpu: tree.cpuSeconds,
            browserMB: tree.peakPssMB,
            statusBrowserMB: f.peakBrowserMB,
            rssMB: f.peakRssMB,
            serverCpu: serverCpu() - s0,
          };
          at[who].push(row);
          console.log(
            `    ${who} c=${c}: ${rendered} rendered (${f.render?.failed ?? 0} failed, mean ${f.render?.meanMs ?? 0} ms a page), ` +
              `${f.indexed} indexed of ${pages + 1}, in ${fmt(f.seconds, 1)} s → ${fmt(row.pps, 2)} rendered pages/s; ` +
              `search finds home ${okHome ? 'yes' : 'NO'}, spaword${checks.join('/')} ${okDocs.length}/${checks.length}; ` +
              `CPU ${fmt(f.cpuSeconds, 1)} s + browser ${fmt(tree.cpuSeconds, 1)} s; ` +
              `browser peak ${fmt(f.peakBrowserMB, 0)} MB (status, ${f.statusSamples} samples) / ` +
              `${fmt(tree.peakPssMB, 0)} MB (PSS over ${tree.processes} processes); ` +
              `crawler peak RSS ${fmt(f.peakRssMB, 0)} MB; SPA server CPU ${fmt(row.serverCpu, 1)} s`,
          );
        } else {
          const storage = mkdtempSync(join(tmpdir(), 'trawl-bench-crawlee-'));
          try {
            type CrawleeFigures = {
              pages: number;
              complete: number;
              incomplete: string[];
              failed: number;
              retries: number;
              seconds: number;
              cpuSeconds: number;
              peakRssMB: number;
            };
            const {
              figures: f,
              tree,
              wallSeconds,
            } = await runChild<CrawleeFigures>(
              [
                join(HERE, 'crawlee-render.mjs'),
                JSON.stringify({
                  start: `${base}/`,
                  concurrency: c,
                  wait: values['crawlee-wait'],
                  executablePath: CHROMIUM,
                  args: CHROMIUM_ARGS,
                  progressMs: 10_000,
                  label: `crawlee c=${c}`,
                }),
              ],
              { ...process.env, TRAWL_CRAWLEE_DIR: crawleeDir, CRAWLEE_STORAGE_DIR: storage, CRAWLEE_PURGE_ON_START: '1', CRAWLEE_LOG_LEVEL: 'WARNING' },
            );
            const row: Row = {
              pps: f.pages / f.seconds,
              seconds: f.seconds,
              wall: wallSeconds,
              found: f.complete,
              cpu: f.cpuSeconds,
              browserCpu: tree.cpuSeconds,
              browserMB: tree.peakPssMB,
              rssMB: f.peakRssMB,
              serverCpu: serverCpu() - s0,
            };
            at.crawlee.push(row);
            console.log(
              `    crawlee c=${c}: ${f.pages} pages (${f.complete} with their text; ${f.failed} failed, ${f.retries} retried) ` +
                `in ${fmt(f.seconds, 1)} s → ${fmt(row.pps, 2)} pages/s; CPU ${fmt(f.cpuSeconds, 1)} s + browser ${fmt(tree.cpuSeconds, 1)} s; ` +
                `browser peak ${fmt(tree.peakPssMB, 0)} MB (PSS over ${tree.processes} processes); ` +
                `crawler peak RSS ${fmt(f.peakRssMB, 0)} MB; SPA server CPU ${fmt(row.serverCpu, 1)} s` +
                (f.incomplete.length ? `; without their text, e.g. ${f.incomplete.join(' ')}` : ''),
            );
          } finally {
            rmSync(storage, { recursive: true, force: true });
          }
        }
      }
    }
  }
  killTree(server.pid);
  started.delete(server);

  console.log(
    `\npart 2 result (medians; browser memory: peak PSS summed over the crawler's descendant processes, sampled every 200 ms by this bench, for both):`,
  );
  const col = (xs: Row[], k: keyof Row) => xs.map((x) => x[k] as number);
  const m = (xs: Row[], k: keyof Row, d = 1) => `${fmt(median(col(xs, k)), d)}${range(col(xs, k), d)}`;
  for (const [c, at] of rows) {
    for (const who of contenders) {
      const xs = at[who];
      if (!xs.length) continue;
      console.log(
        `  c=${c} ${who.padEnd(7)}: ${m(xs, 'pps', 2)} pages/s, ${m(xs, 'seconds')} s (process wall ${m(xs, 'wall')} s), ` +
          `pages with their text ${m(xs, 'found', 0)} of ${pages + 1}, ` +
          `CPU ${m(xs, 'cpu')} s + browser ${m(xs, 'browserCpu')} s, ` +
          `browser peak ${m(xs, 'browserMB', 0)} MB${who !== 'crawlee' ? ` (status: ${m(xs, 'statusBrowserMB', 0)} MB)` : ''}, ` +
          `process peak RSS ${m(xs, 'rssMB', 0)} MB`,
      );
    }
    // Run r of each contender was made next to run r of the others (alternated): their ratio is a pair's.
    const paired = (other: Row[]) => at.trawl.map((x, i) => x.pps / (other[i]?.pps ?? NaN)).filter((x) => !Number.isNaN(x));
    const mem = (xs: Row[]) => median(xs.map((x) => x.browserMB + x.rssMB));
    if (at.old.length) {
      const pairs = paired(at.old);
      console.log(
        `  c=${c}: Trawl / Trawl from ${values.against} pages/s: median of ${pairs.length} paired ratios ${fmt(median(pairs), 2)}×${range(pairs, 2)}; ` +
          `memory (browser + process) ${fmt(mem(at.trawl), 0)} MB vs ${fmt(mem(at.old), 0)} MB`,
      );
    }
    if (at.trawl.length && at.crawlee.length) {
      const pairs = paired(at.crawlee);
      const speed = median(pairs);
      const memOk = mem(at.trawl) <= mem(at.crawlee);
      console.log(
        `  c=${c}: Trawl / Crawlee pages/s: median of ${pairs.length} paired ratios ${fmt(speed, 2)}×${range(pairs, 2)}, ` +
          `ratio of medians ${fmt(median(at.trawl.map((x) => x.pps)) / median(at.crawlee.map((x) => x.pps)), 2)}× ` +
          `(target ≥ 1.5×: ${speed >= 1.5 ? 'met' : 'NOT met'}); ` +
          `memory (browser + process) ${fmt(mem(at.trawl), 0)} MB vs ${fmt(mem(at.crawlee), 0)} MB ` +
          `(no more: ${memOk ? 'met' : 'NOT met'}) → target ${speed >= 1.5 && memOk ? 'MET' : 'NOT met'}`,
      );
    }
  }
}
console.log(`\nload average at the end: ${load()}`);
