/**
 * bench/index-fts5: SQLite FTS5 over the same synthetic corpus and queries as bench/index, as the
 * baseline for its figures: indexing docs/s (one transaction per 1,000 documents, Porter and
 * unicode61 like bench/relevance), size on disk, and query latency p50/p99 for one word, two words
 * and phrases — the ten best by bm25 (weighted like Trawl's fields) with a snippet each, plus the
 * count of all matches, as Trawl's search answers them.
 *
 *   npx tsx bench/index-fts5.ts [--docs 10000] [--root /usr/share/doc/postgresql-doc-15/html]
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { FIELD_WEIGHT } from '../indexer/structures/bm25f.ts';
import { benchOptions, indexedBeforeQueries, ms, percentile, QUERY_KINDS, syntheticCorpus } from './synthetic-corpus.ts';

const options = benchOptions();
const N = options.docs;

const corpus = syntheticCorpus(options.root);
const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-fts5-'));
const file = join(dir, 'fts.db');
const db = new Database(file);
db.pragma('journal_mode = WAL');
const FIELDS = ['title', 'headings', 'description', 'url', 'body'] as const;
db.exec(`CREATE VIRTUAL TABLE pages USING fts5(${FIELDS.join(', ')}, tokenize = 'porter unicode61 remove_diacritics 2')`);
const insert = db.prepare(`INSERT INTO pages (rowid, ${FIELDS.join(', ')}) VALUES (?, ?, ?, ?, ?, ?)`);
const urlWords = (url: string) => {
  const u = new URL(url);
  return `${u.hostname} ${decodeURIComponent(u.pathname)}`;
};

const t = performance.now();
for (let from = 0; from < N; from += 1000) {
  db.transaction(() => {
    for (let id = from; id < Math.min(N, from + 1000); id++) {
      const d = corpus.makeDoc(id);
      insert.run(id, d.title, d.headings.join('\n'), d.description, urlWords(d.url), d.text);
    }
  })();
}
const seconds = (performance.now() - t) / 1000;
db.pragma('wal_checkpoint(TRUNCATE)');
console.log(
  `FTS5 indexing: ${N} docs in ${seconds.toFixed(1)} s → ${Math.round(N / seconds)} docs/s (documents generated on the fly); ` +
    `${(statSync(file).size / 1e6).toFixed(1)} MB on disk`,
);

// Trawl's query forms in FTS5's syntax: words are ANDed; a phrase is a quoted string; a prefix
// query's last word is a prefix ("w"*).
const toMatch = (q: string, kind: string) =>
  q.startsWith('"')
    ? `"${q.replace(/"/g, '')}"`
    : q
        .split(/\s+/)
        .map((w, i, all) => (kind === 'prefix' && i === all.length - 1 ? `"${w}"*` : `"${w}"`))
        .join(' ');
const weights = FIELDS.map((f) => FIELD_WEIGHT[f]).join(', ');
const top = db.prepare(
  `SELECT rowid, snippet(pages, 4, '<mark>', '</mark>', '…', 32) AS snippet FROM pages WHERE pages MATCH ? ORDER BY bm25(pages, ${weights}) LIMIT 10`,
);
const count = db.prepare('SELECT count(*) AS n FROM pages WHERE pages MATCH ?');
// The queries of bench/index (drawn from the documents it indexes first).
const sets = corpus.querySets(indexedBeforeQueries(N), options.queries);
for (const kind of QUERY_KINDS) {
  const run = (q: string) => {
    const t0 = performance.now();
    const match = toMatch(q, kind);
    top.all(match);
    count.get(match);
    return performance.now() - t0;
  };
  sets[kind].forEach(run); // warm
  const lat = sets[kind].map(run);
  console.log(`FTS5 query (${kind}): p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))}`);
}
db.close();
rmSync(dir, { recursive: true, force: true });
