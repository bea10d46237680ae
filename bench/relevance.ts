/**
 * bench/relevance: known-item search quality. Crawls a documentation corpus from loopback with
 * Trawl (a real crawl, politeness off), then asks each query of a query set through Trawl's own
 * search, and — over the same stored pages and the same fields with the same weights — of SQLite
 * FTS5 (bm25), of MiniSearch and of Xapian (BM25, Debian's python3-xapian, when installed). Prints
 * MRR@10 and recall@10 for each.
 *
 *   npx tsx bench/relevance.ts [--queries bench/relevance/postgresql.json] [--root /usr/share/doc/postgresql-doc-15/html] [--show] [--snippets "vacuum full"]
 *   (Debian: apt-get install postgresql-doc-15 nginx-light python3-xapian)
 *   npx tsx bench/relevance.ts --root /usr/share/doc/python3.11/html --queries bench/relevance/python.json   (python3.11-doc)
 *   npx tsx bench/relevance.ts --root /usr/share/doc/texlive-doc --autoindex --seed '' --queries bench/relevance/texlive.json   (texlive-latex-base-doc)
 *
 * All of them get the same treatment: all words must match, and if no page has them all, pages with
 * any of them are ranked instead (what Trawl does by itself).
 *
 * Each query is asked three ways (relevance/variants.ts): exact, as typed halfway (its last word
 * cut after 4 letters: "window func") and with one typo ("window functoins"). Trawl forgives both
 * (completions, corrections); SQLite FTS5 and "MiniSearch" are asked as they are, "MiniSearch, p+f"
 * with the options a search box would give it (prefix search on the last word, fuzzy 0.2) for
 * every variant. `--variants exact` asks only the queries as written.
 *
 * Each set is split in two by a hash of each query (relevance/split.ts): MRR@10 is printed for all
 * the queries, for the half to tune on and for the half held out. Tune on the first; a change is
 * accepted on the second.
 */
import type { StoredDocument } from '../model/index.ts';
import Database from 'better-sqlite3';
import MiniSearch from 'minisearch';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { FIELDS } from '../indexer/ingest/fields.ts';
import { FIELD_WEIGHT } from '../indexer/structures/bm25f.ts';
import { tokenize } from '../indexer/ingest/tokenize.ts';
import { startNginx, startNodeServer } from './corpus-server.ts';
import { halfOf, type Half } from './relevance/split.ts';
import { hasXapian, startXapian } from './relevance/xapian.ts';
import { variantOf, VARIANTS, type Variant } from './relevance/variants.ts';

const { values } = parseArgs({
  options: {
    queries: { type: 'string', default: new URL('./relevance/postgresql.json', import.meta.url).pathname },
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    seed: { type: 'string', default: 'index.html' },
    // Every folder answered by its listing (a tree of PDFs crawled from its root: TeX Live's docs).
    autoindex: { type: 'boolean', default: false },
    show: { type: 'boolean', default: false },
    variants: { type: 'string', default: VARIANTS.join(',') },
    // Prints the first results of this query with their snippets (what a person reads).
    snippets: { type: 'string' },
  },
});
if (!existsSync(values.root!)) {
  console.error(`${values.root} does not exist. On Debian: apt-get install postgresql-doc-15 (or pass --root DIR)`);
  process.exit(2);
}
type QuerySet = { corpus: string; queries: { q: string; answers: string[] }[] };
const set = JSON.parse(readFileSync(values.queries!, 'utf8')) as QuerySet;
const K = 10;

// 1. A real crawl with Trawl.
if (values.autoindex && !existsSync('/usr/sbin/nginx')) {
  console.error('--autoindex needs nginx: apt-get install nginx-light');
  process.exit(2);
}
const { server, bases } = existsSync('/usr/sbin/nginx')
  ? await startNginx(values.root!, 0, { autoindex: values.autoindex! })
  : await startNodeServer(values.root!);
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-relevance-'));
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
const t0 = performance.now();
await (await app.createCrawler()).crawler.run();
server.kill();
// Pages stored before their host's template was learned are cleaned of it (appliance/template-clean.ts).
await app.templatesCleaned();
// Links found after a page was indexed reach its anchor field now.
const refreshed = await app.refreshAnchors();
const docs: StoredDocument[] = [];
for await (const d of app.store.documents.all()) docs.push(d);
console.log(
  `corpus: ${set.corpus}: ` +
    `${docs.length} pages crawled in ${((performance.now() - t0) / 1000).toFixed(1)} s (anchor text of ${refreshed} updated after the crawl)`,
);
console.log(`queries: ${set.queries.length} from ${values.queries}`);

// 2. The same pages and fields in SQLite FTS5 and in MiniSearch.
const urlWords = (url: string) => {
  const u = new URL(url);
  return `${u.hostname} ${decodeURIComponent(u.pathname)}`;
};
const fieldsOf = async (d: (typeof docs)[number]) => ({
  title: d.title,
  headings: d.headings.join('\n'),
  description: d.description,
  url: urlWords(d.url),
  anchor: (await app.store.anchors.of(d.id)).texts.join('\n'),
  body: d.text,
});
// (The anchor text is read from the store: each page's fields once, before either engine is fed.)
const fieldsById = new Map<number, Awaited<ReturnType<typeof fieldsOf>>>();
for (const d of docs) fieldsById.set(d.id, await fieldsOf(d));
const fields = (d: (typeof docs)[number]) => fieldsById.get(d.id)!;
const fts = new Database(':memory:');
// FTS5 stems with its own Porter tokenizer when Trawl stems (index.stemming), so it gets raw words.
const stemming = app.config.index.stemming !== 'none';
fts.exec(`CREATE VIRTUAL TABLE pages USING fts5(${FIELDS.join(', ')}, tokenize = '${stemming ? 'porter ' : ''}unicode61 remove_diacritics 2')`);
const insert = fts.prepare(`INSERT INTO pages (rowid, ${FIELDS.join(', ')}) VALUES (@id, ${FIELDS.map((f) => `@${f}`).join(', ')})`);
fts.transaction(() => {
  for (const d of docs) insert.run({ id: d.id, ...fields(d) });
})();
const bm25 = `bm25(pages, ${FIELDS.map((f) => FIELD_WEIGHT[f]).join(', ')})`;
const ftsSearch = (q: string, op: 'AND' | 'OR') => {
  const terms = (q.match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => w.toLowerCase());
  if (!terms.length) return [];
  const match = terms.map((t) => `"${t}"`).join(` ${op} `);
  return (fts.prepare(`SELECT rowid AS id FROM pages WHERE pages MATCH ? ORDER BY ${bm25} LIMIT ${K}`).all(match) as { id: number }[]).map((r) => r.id);
};
// MiniSearch gets Trawl's tokenizer (stemming included): the same terms, only the ranking differs.
const mini = new MiniSearch({ fields: [...FIELDS], idField: 'id', tokenize: (s) => tokenize(s), processTerm: (t) => t });
mini.addAll(docs.map((d) => ({ id: d.id, ...fields(d) })));
const boost = Object.fromEntries(FIELDS.map((f) => [f, FIELD_WEIGHT[f]]));
// MiniSearch as a search box uses it (its README's options): prefix search on the last word, fuzzy 0.2.
const FORGIVING = { prefix: (_t: string, i: number, terms: string[]) => i === terms.length - 1, fuzzy: 0.2 };
const miniSearch = (q: string, combineWith: 'AND' | 'OR', forgiving = false) =>
  mini
    .search(q, { boost, combineWith, ...(forgiving ? FORGIVING : {}) })
    .slice(0, K)
    .map((r) => r.id as number);
const urlOf = new Map(docs.map((d) => [d.id, d.url]));
// Xapian's BM25 over the same fields, when Debian's python3-xapian is installed.
const xapian = hasXapian()
  ? await startXapian(
      docs.map((d) => ({ id: d.id, fields: fields(d) })),
      FIELD_WEIGHT,
    )
  : undefined;
if (!xapian) console.log('Xapian: not installed (apt-get install python3-xapian); its anchor is left out');

type Engine = { name: string; search: (q: string) => string[] | Promise<string[]> };
const engines: Engine[] = [
  { name: 'Trawl', search: async (q) => (await app.index.search(q, { size: K })).hits.map((h) => h.url) },
  // Trawl without forgiving (exact=1): the words as typed only.
  { name: 'Trawl, exact=1', search: async (q) => (await app.index.search(q, { size: K, exact: true })).hits.map((h) => h.url) },
  { name: 'SQLite FTS5 bm25', search: (q) => (ftsSearch(q, 'AND').length ? ftsSearch(q, 'AND') : ftsSearch(q, 'OR')).map((id) => urlOf.get(id)!) },
  { name: 'MiniSearch', search: (q) => (miniSearch(q, 'AND').length ? miniSearch(q, 'AND') : miniSearch(q, 'OR')).map((id) => urlOf.get(id)!) },
  ...(xapian ? [{ name: 'Xapian BM25', search: async (q: string) => (await xapian.search(q)).map((id) => urlOf.get(id)!) }] : []),
  {
    name: 'MiniSearch, p+f',
    search: (q) => (miniSearch(q, 'AND', true).length ? miniSearch(q, 'AND', true) : miniSearch(q, 'OR', true)).map((id) => urlOf.get(id)!),
  },
];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;

// 3. Known-item metrics, for each variant of the queries. An answer is a file name
// ("sql-dropindex.html") or the end of a path ("library/json.html").
const isAnswer = (path: string, answer: string) => path === `/${answer}` || path.endsWith(`/${answer}`);
const variants = values.variants!.split(',') as Variant[];
// Each query's half (relevance/split.ts): a change is judged on the held-out half's MRR.
const halves = set.queries.map((x) => halfOf(x.q));
const inHalf = (h: Half) => halves.filter((x) => x === h).length;
console.log(`halves: ${inHalf('tuning')} queries to tune on, ${inHalf('held-out')} held out (by a hash of each query; judge a change on held-out)`);
console.log(
  `\n${'engine'.padEnd(18)} ${'queries'.padEnd(8)} ${'MRR@10'.padStart(7)} ${'tuning'.padStart(7)} ${'held-out'.padStart(8)} ` +
    `${'recall@10'.padStart(10)} ${'found@1'.padStart(8)} ${'p50 ms'.padStart(7)}`,
);
for (const engine of engines)
  for (const variant of variants) {
    let rr = 0;
    const rrOf = { tuning: 0, 'held-out': 0 };
    let recall = 0;
    let first = 0;
    const misses: string[] = [];
    // (The time of each search as the bench asks it: Xapian's includes a pipe to its process.)
    const took: number[] = [];
    for (const [i, { q: written, answers }] of set.queries.entries()) {
      const q = variantOf(written, variant);
      const t0 = performance.now();
      const got = (await engine.search(q)).map((u) => new URL(u).pathname);
      took.push(performance.now() - t0);
      const rank = got.findIndex((g) => answers.some((a) => isAnswer(g, a)));
      rr += rank >= 0 ? 1 / (rank + 1) : 0;
      rrOf[halves[i]!] += rank >= 0 ? 1 / (rank + 1) : 0;
      if (rank === 0) first++;
      recall += answers.filter((a) => got.some((g) => isAnswer(g, a))).length / answers.length;
      if (rank !== 0)
        misses.push(
          `  ${JSON.stringify(q)}: answer at ${rank < 0 ? '>10' : rank + 1}; top: ${got
            .slice(0, 3)
            .map((g) => g.replace(/^\//, ''))
            .join(', ')}`,
        );
    }
    const n = set.queries.length;
    const mrrOf = (h: Half) => (inHalf(h) ? (rrOf[h] / inHalf(h)).toFixed(3) : '-');
    console.log(
      `${engine.name.padEnd(18)} ${variant.padEnd(8)} ${(rr / n).toFixed(3).padStart(7)} ${mrrOf('tuning').padStart(7)} ${mrrOf('held-out').padStart(8)} ` +
        `${(recall / n).toFixed(3).padStart(10)} ${`${first}/${n}`.padStart(8)} ${median(took).toFixed(2).padStart(7)}`,
    );
    if (values.show) console.log(misses.join('\n'));
  }
// 4. What these queries cost in Trawl (a whole answer: ranking, snippets, facets), on real pages —
// whose lengths bench/index's synthetic ones do not have: each variant's queries asked 3 times, in
// turn, after the passes above; the p50 / p90 / p99 of all the asks.
{
  const times: number[] = [];
  for (let round = 0; round < 3; round++) {
    for (const variant of variants) {
      for (const { q } of set.queries) {
        const t0 = performance.now();
        await app.index.search(variantOf(q, variant), { size: K });
        times.push(performance.now() - t0);
      }
    }
  }
  times.sort((a, b) => a - b);
  const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!.toFixed(2);
  console.log(`\nTrawl query time (${variants.join(', ')}; ${times.length} asks): p50 ${at(50)} ms, p90 ${at(90)} ms, p99 ${at(99)} ms`);
}
if (values.snippets) {
  console.log(`\nfirst results for ${JSON.stringify(values.snippets)}:`);
  for (const h of (await app.index.search(values.snippets, { size: 3 })).hits) console.log(`  ${basename(new URL(h.url).pathname)}: ${h.snippet}`);
}
fts.close();
xapian?.close();
await app.close();
rmSync(dataDir, { recursive: true, force: true });
