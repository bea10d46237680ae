/**
 * bench/console: the search console's pages over a large search log (issue 37: ≤ 200 ms over
 * 1,000,000 logged searches). Writes a log of `--searches` synthetic searches over 30 days through
 * the store's own append (queries drawn Zipf-like from `--queries` distinct ones, a third of them
 * with a site: filter, 40 % clicked, one in ten refining the session's previous search, 3 % finding
 * nothing), then asks the console's pages and reports of the server in process (createApp: through
 * Hono as over HTTP), each `--runs` times, and prints each one's median and worst time, with the
 * rows the rollups hold and the database's bytes a search.
 *
 *   npx tsx bench/console.ts [--searches 1000000] [--queries 50000] [--runs 7] [--store postgres://…]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SearchReports } from '../appliance/search-reports.ts';
import { SearchIndex } from '../indexer/index.ts';
import type { LoggedSearch, SearchClick } from '../model/index.ts';
import { createApp } from '../search-ui/app.ts';
import { serverDefaults } from '../search-ui/server-fixture.ts';
import { idleStatus } from '../search-ui/status-fixture.ts';
import { openPostgresStore } from '../store/postgres/store.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';

const { values } = parseArgs({
  options: {
    searches: { type: 'string', default: '1000000' },
    queries: { type: 'string', default: '50000' },
    runs: { type: 'string', default: '7' },
    store: { type: 'string' },
  },
});
const N = Number(values.searches);
const Q = Number(values.queries);
const DAY = 86_400_000;
const end = Date.now();
const start = end - 30 * DAY;

// (A fixed generator: every run writes the same log.)
let seed = 42;
const random = () => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return seed / 2 ** 31;
};
/** Zipf-like: query k drawn about as often as 1/k. */
const queryAt = () => `query ${Math.floor(Math.exp(random() * Math.log(Q)))}`;

const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-console-'));
const store = values.store ? await openPostgresStore(values.store) : openSqliteStore(dir);
const BATCH = 5000;
const wrote = performance.now();
let previous: LoggedSearch | undefined;
for (let i = 0; i < N; i += BATCH) {
  const searches: LoggedSearch[] = [];
  const clicks: SearchClick[] = [];
  for (let j = i; j < Math.min(N, i + BATCH); j++) {
    const at = Math.floor(start + ((end - start) * j) / N);
    const understood = queryAt();
    const total = random() < 0.03 ? 0 : 1 + Math.floor(random() * 500);
    const shown = total ? Array.from({ length: 10 }, (_, k) => `http://docs.example.org/${understood.replace(' ', '-')}/${k}.html`) : [];
    const refines = previous && random() < 0.1 ? previous.id : undefined;
    const s: LoggedSearch = {
      id: `s${j}`,
      at,
      session: `tab-${Math.floor(j / 3)}`,
      source: 'page',
      query: understood,
      understood,
      filters: random() < 0.33 ? { site: `site${Math.floor(random() * 5)}.example.org` } : {},
      page: 1,
      total,
      shown,
      tookMs: 5,
      prefixes: [],
      ...(refines ? { refines } : {}),
    };
    searches.push(s);
    previous = s;
    if (total && random() < 0.4) {
      const position = 1 + (Math.floor(-Math.log(1 - random() * 0.99) * 1.5) % 10);
      clicks.push({ searchId: s.id, at: at + 1000, position, url: shown[position - 1]! });
    }
  }
  await store.searchLog.append(searches, clicks);
  if ((i / BATCH) % 20 === 0) process.stderr.write(`\rwritten ${(i + BATCH).toLocaleString('en')} of ${N.toLocaleString('en')} searches`);
}
await store.sync();
process.stderr.write('\n');
const writeMs = performance.now() - wrote;

const reports = new SearchReports(store.searchReports, async () => {});
const app = createApp({
  ...serverDefaults(),
  searcher: new SearchIndex(() => undefined),
  status: async () => idleStatus({ documents: 0 }),
  version: 'bench',
  reports,
  adminToken: 'bench-token-123456',
});
const login = await app.request('/console/login', { method: 'POST', body: new URLSearchParams({ token: 'bench-token-123456' }) });
const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
const bearer = { authorization: 'Bearer bench-token-123456' };

const asked: [string, string, Record<string, string>][] = [
  ['the console (30 days, every table)', '/console', { cookie }],
  ['the console, site: filter', '/console?site=site1.example.org', { cookie }],
  ['a top query\u2019s page', '/console/query?q=query%201', { cookie }],
  ['/api/analytics/queries', '/api/analytics/queries?limit=100', bearer],
  ['/api/analytics/no-clicks', '/api/analytics/no-clicks', bearer],
  ['/api/analytics/days as CSV', '/api/analytics/days?format=csv', bearer],
  ['/api/analytics/refinements', '/api/analytics/refinements', bearer],
];
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`${N.toLocaleString('en')} searches over 30 days (${Q.toLocaleString('en')} distinct queries), written in ${(writeMs / 1000).toFixed(1)} s`);
console.log(`store: ${values.store ? 'PostgreSQL' : 'SQLite'}`);
for (const [name, path, headers] of asked) {
  const times: number[] = [];
  let status = 0;
  for (let r = 0; r < Number(values.runs); r++) {
    const t = performance.now();
    const res = await app.request(path, { headers });
    await res.text();
    times.push(performance.now() - t);
    status = res.status;
  }
  console.log(
    `${name.padEnd(40)} p50 ${median(times).toFixed(1).padStart(7)} ms   worst ${Math.max(...times)
      .toFixed(1)
      .padStart(7)} ms   (${status})`,
  );
}
if (!values.store) {
  const rows = (t: string) => (store as ReturnType<typeof openSqliteStore>).db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number };
  console.log(
    `rollup rows: search_days ${rows('search_days').n.toLocaleString('en')}, search_refinements ${rows('search_refinements').n.toLocaleString('en')}`,
  );
  const bytes = ['crawl.db', 'crawl.db-wal'].reduce((n, f) => n + (statSync(join(dir, f), { throwIfNoEntry: false })?.size ?? 0), 0);
  console.log(`database: ${(bytes / N).toFixed(0)} bytes a search (the log, its indexes and the rollups)`);
}
await store.close();
rmSync(dir, { recursive: true, force: true });
