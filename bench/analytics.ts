/**
 * bench/analytics: what the search log (issue 37) costs a search, and what it keeps. Crawls a corpus
 * served by nginx (the PostgreSQL docs by default), then asks bench/relevance's queries — each three
 * ways (exact, typed halfway, one typo: relevance/variants.ts) — of the search server in process
 * (`createApp`, answers through Hono as over HTTP: the JSON, the ETag path, the middleware), with
 * the search log and without, alternated query by query (ABAB, the order flipped each query), each
 * query once a round and side, as a session of its own. Prints each side's p50 / p99, the median of the per-pair ratios,
 * the searches logged and the bytes a logged search takes in the crawl database.
 *
 * Issue 37's bench/analytics is three commands: this one (the log's cost and bytes), bench/console.ts
 * (the console's pages over 1,000,000 logged searches) and bench/click-learning.ts (simulated
 * searchers: what ranking learns from their clicks).
 *
 *   npx tsx bench/analytics.ts [--root /usr/share/doc/postgresql-doc-15/html] [--queries bench/relevance/postgresql.json] [--rounds 6]
 */
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Appliance, SearchLog } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { silentLog } from '../lib/log.ts';
import { createApp } from '../search-ui/app.ts';
import { serverDefaults } from '../search-ui/server-fixture.ts';
import { startNginx } from './corpus-server.ts';
import { variantOf, VARIANTS } from './relevance/variants.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    seed: { type: 'string', default: 'index.html' },
    queries: { type: 'string', default: new URL('./relevance/postgresql.json', import.meta.url).pathname },
    rounds: { type: 'string', default: '6' },
  },
});

const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-analytics-'));
const { server, bases } = await startNginx(values.root!, 0, { autoindex: false });
const app = await Appliance.open(
  loadConfig({
    overrides: {
      seeds: [new URL(values.seed!, bases[0]).href],
      dataDir,
      concurrency: 16,
      perHost: { delayMs: 0, maxConnections: 16 },
      limits: { maxDepth: 100 },
    },
  }),
  { lockFor: 'bench' },
);
try {
  await (await app.createCrawler()).crawler.run();
  server.kill();
  await app.refreshAnchors();
  console.log(`${values.root}: ${app.index.documentCount} pages indexed; load ${loadAverage()}`);

  const queries = (JSON.parse(readFileSync(values.queries!, 'utf8')) as { queries: { q: string }[] }).queries.flatMap(({ q }) =>
    VARIANTS.map((v) => variantOf(q, v)),
  );
  // The writes timed apart: with the sides alternated query by query, a write falls on either
  // side's searches — its cost is printed on its own, a logged search's share of it.
  const written = { ms: 0, calls: 0 };
  const store = app.store.searchLog;
  const timed: typeof store = Object.assign(Object.create(store) as typeof store, {
    append: (searches: Parameters<typeof store.append>[0], clicks: Parameters<typeof store.append>[1]) => {
      const t0 = performance.now();
      const p = store.append(searches, clicks);
      written.ms += performance.now() - t0;
      written.calls++;
      return p;
    },
  });
  const searchLog = new SearchLog(timed, silentLog, 90);
  const status = () => app.status();
  // (One client asking back to back: no rate limit.)
  const base = { ...serverDefaults(), searcher: app.index, status, version: 'bench', apiRate: 1e9 };
  const sides = { logged: createApp({ ...base, analytics: searchLog }), plain: createApp(base) };
  const times: Record<keyof typeof sides, number[][]> = { logged: [], plain: [] };
  let session = 0;
  // Each round asks every query of both sides, one right after the other (the order flipped each
  // query): a pair of p50s of one round is then of one moment, however the machine drifts.
  const ask = async (name: keyof typeof sides, q: string, into: number[]) => {
    // (A session a query: each is logged as the person would leave it, not merged with the next.)
    const url = `/api/search?q=${encodeURIComponent(q)}&session=bench-${String(session++).padStart(8, '0')}&from=page`;
    const t0 = performance.now();
    const res = await sides[name].request(url);
    await res.arrayBuffer();
    into.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${url}: ${res.status}`);
    // (A turn of the event loop between searches, as a server's sockets give: the log's timer writes then.)
    await new Promise((resolve) => setImmediate(resolve));
  };
  const round = async () => {
    const t = { logged: [] as number[], plain: [] as number[] };
    for (const [i, q] of queries.entries())
      for (const name of i % 2 ? (['plain', 'logged'] as const) : (['logged', 'plain'] as const)) await ask(name, q, t[name]);
    return t;
  };
  await round(); // (warm-up: not counted)
  const rounds = Number(values.rounds);
  for (let r = 0; r < rounds; r++) {
    const t = await round();
    times.logged.push(t.logged);
    times.plain.push(t.plain);
  }
  await searchLog.close();

  const at = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  const median = (xs: number[]) => at(xs, 50);
  for (const name of ['plain', 'logged'] as const) {
    const p50 = times[name].map((t) => at(t, 50));
    const p99 = times[name].map((t) => at(t, 99));
    console.log(
      `${name.padEnd(6)}: p50 ${median(p50).toFixed(2)} ms, p99 ${median(p99).toFixed(2)} ms (median of ${rounds} rounds of ${queries.length} searches)`,
    );
  }
  const ratio = (p: number) => median(times.logged.map((t, i) => at(t, p) / at(times.plain[i]!, p)));
  console.log(`logged / plain, median of the per-round ratios: p50 ${ratio(50).toFixed(3)}, p99 ${ratio(99).toFixed(3)} (target ≤ 1.02)`);

  await app.store.sync();
  const db = new Database(join(dataDir, 'crawl.db'), { readonly: true });
  const count = db.prepare('SELECT count(*) FROM searches').pluck().get() as number;
  const bytes = db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name IN ('searches', 'searches_at', 'sqlite_autoindex_searches_1')").pluck().get() as number;
  db.close();
  console.log(
    `writes: ${written.calls}, ${written.ms.toFixed(1)} ms on the main thread in all = ${((1000 * written.ms) / count).toFixed(1)} µs a logged search`,
  );
  console.log(
    `searches logged: ${count} (expected ${(rounds + 1) * queries.length}); ` +
      `${(bytes / count).toFixed(0)} bytes a logged search in the crawl database; load ${loadAverage()}`,
  );
} finally {
  server.kill();
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
}

function loadAverage(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}
