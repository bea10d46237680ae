/**
 * bench/click-learning (issue 37): ranking that learns from clicks, judged by simulated searchers
 * over bench/relevance's known-item query sets. Each set's corpus is crawled (nginx on loopback),
 * then three quarters of its queries (by a hash of the query: `traffic`) get N sessions each,
 * driven through the search server in process as the page drives it — `GET /api/search` with a
 * session, `POST /api/analytics/events` for a click:
 *
 * - a position-based click model: position p examined with probability 1/p; the first answer
 *   examined is clicked; if none was, half the searchers look at the second page (the same), the
 *   others leave; 10 % of clicks fall on a result at random instead;
 * - apart, on a log of its own: the same sessions clicking one result at random each (clicks that
 *   say nothing), which must change nothing beyond the noise.
 *
 * Then the log is read by the click model (appliance/click-learner.ts) and MRR@10 is measured for
 * the queries with traffic and without, before and after, on each half of the set (tuning, held
 * out: bench/relevance/split.ts). Targets: MRR@10 ≥ 0.97 of the queries with ≥ 20 sessions; the
 * queries without traffic within 0.005 of before; random clicks within the noise.
 *
 *   npx tsx bench/click-learning.ts [--sets postgresql,python,rust,texlive] [--sessions 60]
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Appliance, ClickLearner, CuratedSearcher, Curation, SearchLog } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { silentLog } from '../lib/log.ts';
import { createApp } from '../search-ui/app.ts';
import { serverDefaults } from '../search-ui/server-fixture.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';
import { startNginx } from './corpus-server.ts';
import { fnv1a32 } from './hash.ts';
import { halfOf } from './relevance/split.ts';

const SETS: Record<string, { root: string; seed: string; autoindex?: boolean; queries: string }> = {
  postgresql: { root: '/usr/share/doc/postgresql-doc-15/html', seed: 'index.html', queries: 'postgresql.json' },
  python: { root: '/usr/share/doc/python3.11/html', seed: 'index.html', queries: 'python.json' },
  rust: { root: '/usr/share/doc/rust-doc/html', seed: 'index.html', queries: 'rust.json' },
  texlive: { root: '/usr/share/doc/texlive-doc', seed: '', autoindex: true, queries: 'texlive.json' },
};
const { values } = parseArgs({ options: { sets: { type: 'string', default: 'postgresql,python' }, sessions: { type: 'string', default: '60' } } });
const SESSIONS = Number(values.sessions);
const RANDOM_SHARE = 0.1;

type Query = { q: string; answers: string[] };
const isAnswer = (url: string, answers: readonly string[]) => answers.some((a) => new URL(url).pathname.endsWith(`/${a}`));
// (High bits: FNV-1a's lowest bit is the parity of the text's bytes, which halfOf reads — the two splits would be one.)
const hasTraffic = (q: string) => (fnv1a32(q.trim().toLowerCase()) >>> 16) % 4 !== 0;

/** A deterministic stream in [0, 1) (the same sessions every run). */
function random(seed: number): () => number {
  let x = seed >>> 0;
  return () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 2 ** 32;
  };
}

for (const name of values.sets!.split(',')) {
  const set = SETS[name];
  if (!set) throw new Error(`--sets: ${name} is not one of ${Object.keys(SETS).join(', ')}`);
  const queries = (JSON.parse(readFileSync(new URL(`./relevance/${set.queries}`, import.meta.url), 'utf8')) as { queries: Query[] }).queries;
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-clicks-'));
  const logDirs = [mkdtempSync(join(tmpdir(), 'trawl-bench-clicklog-')), mkdtempSync(join(tmpdir(), 'trawl-bench-clicklog-'))];
  const { server, bases } = await startNginx(set.root, 0, { autoindex: set.autoindex ?? false });
  const config = loadConfig({
    overrides: { seeds: [new URL(set.seed, bases[0]).href], dataDir, concurrency: 16, perHost: { delayMs: 0, maxConnections: 16 }, limits: { maxDepth: 100 } },
  });
  const app = await Appliance.open(config, { lockFor: 'bench' });
  try {
    await (await app.createCrawler()).crawler.run();
    server.kill();
    await app.refreshAnchors();
    console.log(`${name}: ${app.index.documentCount} pages indexed, ${queries.length} queries (${queries.filter((q) => hasTraffic(q.q)).length} with traffic)`);
    const base = { ...serverDefaults(), status: () => app.status(), version: 'bench', apiRate: 1e9 };
    // (A clock of the simulation's own: each action 5 s after the last, so that no search is taken for the one typed before it.)
    let clock = Date.now();
    const now = () => clock;
    /** Searchers logged in a log of their own (their own store); the searcher that learnt from it, once the sessions are over. */
    const side = (dir: string) => {
      const logStore = openSqliteStore(dir);
      const log = new SearchLog(logStore.searchLog, silentLog, 90, now);
      return { logStore, log, server: createApp({ ...base, searcher: app.index, analytics: log }), plain: createApp({ ...base, searcher: app.index }) };
    };
    const sides = { model: side(logDirs[0]!), random: side(logDirs[1]!) };
    /** After the sessions: the model read from the log (as a node reads it every REFRESH_MS), the searcher with what it learnt. */
    const learn = async (s: (typeof sides)['model']) => {
      const learner = new ClickLearner(s.logStore.searchLog, silentLog, now, 0);
      await learner.refresh();
      const curation = await Curation.open(app.store.curation, { synonyms: [] }, app.normalize, silentLog, learner);
      s.plain = createApp({ ...base, searcher: new CuratedSearcher(app.index, curation) });
      return { learner, curation };
    };
    type Side = (typeof sides)['model'];
    const search = async (s: Side, q: string, session: string, page = 1) => {
      clock += 5000;
      const res = await s.server.request(`/api/search?q=${encodeURIComponent(q)}&session=${session}&from=page&page=${page}`);
      return (await res.json()) as { searchId: string; hits: { url: string }[] };
    };
    const click = async (s: Side, searchId: string, position: number, url: string) => {
      clock += 5000;
      const res = await s.server.request('/api/analytics/events', { method: 'POST', body: JSON.stringify({ type: 'click', searchId, position, url }) });
      if (res.status !== 204) throw new Error(`click: ${res.status} ${await res.text()}`);
    };
    const ranks = new Map<Side, Map<string, number>>();
    const mrr = async (s: Side, list: readonly Query[]) => {
      let sum = 0;
      for (const { q, answers } of list) {
        const hits = ((await (await s.plain.request(`/api/search?q=${encodeURIComponent(q)}&size=20`)).json()) as { hits: { url: string }[] }).hits;
        const at = hits.findIndex((h) => isAnswer(h.url, answers));
        if (!ranks.has(s)) ranks.set(s, new Map());
        ranks.get(s)!.set(q, at + 1);
        if (at >= 0 && at < 10) sum += 1 / (at + 1);
      }
      return list.length ? sum / list.length : 0;
    };
    const groups = {
      traffic: queries.filter((q) => hasTraffic(q.q)),
      none: queries.filter((q) => !hasTraffic(q.q)),
    };
    const table = async (s: Side) => {
      const out: Record<string, number> = {};
      for (const [g, list] of Object.entries(groups))
        for (const half of ['all', 'tuning', 'held-out'] as const)
          out[`${g} ${half}`] = await mrr(s, half === 'all' ? list : list.filter((q) => halfOf(q.q) === half));
      return out;
    };
    const before = await table(sides.model);
    const ranksBefore = new Map(ranks.get(sides.model));

    const next = random(fnv1a32(name));
    let clicks = 0;
    for (const [i, { q, answers }] of groups.traffic.entries())
      for (let k = 0; k < SESSIONS; k++) {
        const session = `sim${String(i).padStart(4, '0')}${String(k).padStart(4, '0')}`;
        // The searchers of the click model.
        for (let page = 1; page <= 2; page++) {
          const r = await search(sides.model, q, session, page);
          const found = r.hits.findIndex((h, p) => next() < 1 / (p + 1 + (page - 1) * 10) && isAnswer(h.url, answers));
          if (found >= 0) {
            const p = next() < RANDOM_SHARE ? Math.floor(next() * r.hits.length) : found;
            await click(sides.model, r.searchId, p + 1, r.hits[p]!.url);
            clicks++;
            break;
          }
          if (next() < 0.5) break;
        }
        // Searchers clicking at random.
        const r = await search(sides.random, q, session);
        if (r.hits.length) {
          const p = Math.floor(next() * r.hits.length);
          await click(sides.random, r.searchId, p + 1, r.hits[p]!.url);
        }
      }
    clock += 60_000;
    for (const s of Object.values(sides)) await s.log.close();
    const learnt = { model: await learn(sides.model), random: await learn(sides.random) };
    const after = { model: await table(sides.model), random: await table(sides.random) };
    // The tuning half's queries with traffic whose answer is not first after: where it was, where it is (0: not in the first 20; held out: not shown).
    const missed = groups.traffic.filter((q) => halfOf(q.q) === 'tuning' && ranks.get(sides.model)!.get(q.q) !== 1);
    const moves = missed.map((q) => `"${q.q}" ${ranksBefore.get(q.q)} → ${ranks.get(sides.model)!.get(q.q)}`);
    console.log(`  tuning queries not first after the clicks: ${moves.join(', ') || 'none'}`);
    // (Of the held-out half, only how many have no answer in the first 20: what no click can teach.)
    const unreachable = groups.traffic.filter((q) => halfOf(q.q) === 'held-out' && !ranksBefore.get(q.q)).length;
    console.log(`  held-out queries with traffic whose answer is not in the first 20 before: ${unreachable}`);
    console.log(`  ${SESSIONS} sessions a query with traffic, ${clicks} clicks; model: ${JSON.stringify(learnt.model.learner.model.size)}`);
    const n = (k: string) => {
      const [g, half] = k.split(' ') as ['traffic' | 'none', string];
      return groups[g].filter((q) => half === 'all' || halfOf(q.q) === half).length;
    };
    console.log(`  MRR@10 (queries)        ${'before'.padStart(8)} ${'clicks'.padStart(8)} ${'random'.padStart(8)}`);
    for (const k of Object.keys(before)) {
      const cell = (x: number) => (n(k) ? x.toFixed(3) : '—').padStart(8);
      console.log(`  ${`${k} (${n(k)})`.padEnd(22)} ${cell(before[k]!)} ${cell(after.model[k]!)} ${cell(after.random[k]!)}`);
    }
    const ok = (b: boolean) => (b ? 'met' : 'NOT met');
    const change = (side: Record<string, number>, k: string) => (side[k]! - before[k]!).toFixed(3);
    console.log(
      `  targets: with traffic ≥ 0.97: ${ok(after.model['traffic all']! >= 0.97)} (held out: ${after.model['traffic held-out']!.toFixed(3)}); ` +
        `without traffic within 0.005: ${ok(Math.abs(after.model['none all']! - before['none all']!) <= 0.005)}; ` +
        `random clicks alone: ${change(after.random, 'traffic all')} (held out ${change(after.random, 'traffic held-out')})`,
    );
    for (const s of Object.values(learnt)) s.curation.close();
    for (const s of Object.values(sides)) await s.logStore.close();
  } finally {
    server.kill();
    await app.close();
    for (const d of [dataDir, ...logDirs]) rmSync(d, { recursive: true, force: true });
  }
}
console.log(`load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
