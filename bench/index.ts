/**
 * bench/index: the in-RAM index on its own. Builds a corpus of N documents from the sentences of a
 * real documentation corpus (deterministic; made from its id, stored in SQLite and read back from
 * there by queries, as in the appliance), then prints:
 * indexing docs/s (analysis and ranking statistics included), query latency p50/p99 for single
 * words, two words, phrases and words being typed (the last one a prefix) — idle and while
 * documents are being indexed between queries (made and
 * analyzed in another thread, as the crawler's parse workers do) —,
 * how often the two-pass search's top ten equals exhaustive scoring's, heap per document, flush
 * time and size, load time.
 *
 *   node --expose-gc --import tsx bench/index.ts [--docs 10000] [--root /usr/share/doc/postgresql-doc-15/html]
 *   node --expose-gc --import tsx bench/index.ts --docs 100000
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapStatistics } from 'node:v8';
import { join } from 'node:path';
import { receiveMessageOnPort, Worker } from 'node:worker_threads';
import { analyze, type Analysis } from '../indexer/ingest/analyze.ts';
import { flushIndex, loadIndex } from '../indexer/persistence/snapshot.ts';
import { SearchIndex } from '../indexer/search-index.ts';
import { tokenize } from '../indexer/ingest/tokenize.ts';
import { openSqliteStore } from '../store/sqlite/index.ts';
import type { StoredDocument } from '../model/index.ts';
import { benchOptions, indexedBeforeQueries, ms, percentile, QUERIES_WHILE_INDEXING, QUERY_KINDS, syntheticCorpus } from './synthetic-corpus.ts';
import { waitedForCoreMs } from './thread-cpu.ts';

const options = benchOptions();
const N = options.docs;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) console.warn('(run with node --expose-gc for heap figures)');
const heap = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};
/** Typed arrays' backing stores, outside V8's heap (after the collections heap() ran). */
const arrayBuffers = () => process.memoryUsage().arrayBuffers;
const MB = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;
/** Resident memory now and at most so far (what the machine pays, store pages and code included). */
const rss = () => `RSS ${MB(process.memoryUsage().rss)} (peak ${MB(process.resourceUsage().maxRSS * 1024)})`;
console.log(
  `uptime load average: ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; heap limit ${MB(getHeapStatistics().heap_size_limit)}`,
);

const corpus = syntheticCorpus(options.root);
const makeDoc = corpus.makeDoc;
console.log(`sentences: ${corpus.sentences}, headings: ${corpus.headings} from ${options.root}`);

// The documents and their token sequences (for exact phrases) live in SQLite, as in the appliance,
// where the crawler writes them in one commit. Here they are written a thousand at a time, off the clock.
const storeDir = mkdtempSync(join(tmpdir(), 'trawl-bench-store-'));
const sqlite = openSqliteStore(storeDir);
const store = sqlite.documents;
const pending: [StoredDocument, Uint32Array][] = [];
const writeSequences = sqlite.db.transaction(() => {
  for (const [doc, tokens] of pending) store.putNow(doc, { tokens, stemming: 'english' });
  pending.length = 0;
});
// Queries read documents from the store, as the appliance's do — not by making them again: V8
// keeps allocation-site statistics, and made by the same code as the documents the build holds in
// `pending`, a query's documents would be allocated straight into the old generation, keeping the
// young strings they point to alive through every scavenge until a full collection (heavy
// promotion; 4–12 ms scavenges that were a third of the prefix queries' p99).
const lookup = (id: number) => store.get(id);
const index = new SearchIndex(lookup, undefined, {}, (ids) => store.sequencesOf(ids, 'english'));
const heap0 = heap();
const buffers0 = arrayBuffers();
// Index all but 600 now; those are indexed between queries below ("while indexing").
const first = indexedBeforeQueries(N);
let t = performance.now();
let offTheClock = 0;
for (let id = 0; id < first; id++) {
  const d = makeDoc(id);
  const analysis = analyze(d);
  index.upsert(d, analysis);
  pending.push([d, analysis.sequence]);
  if (pending.length === 1000) {
    const t0 = performance.now();
    writeSequences();
    offTheClock += performance.now() - t0;
  }
}
writeSequences();
const indexSeconds = (performance.now() - t - offTheClock) / 1000;
const heapPerDoc = (heap() - heap0) / first;
const buffersPerDoc = (arrayBuffers() - buffers0) / first;
console.log(
  `indexing: ${first} docs in ${indexSeconds.toFixed(1)} s → ${Math.round(first / indexSeconds)} docs/s (analysis, ` +
    'postings and ranking statistics; documents generated on the fly)',
);
console.log(
  `heap: ${(heapPerDoc / 1024).toFixed(2)} KB per document (${MB(heapPerDoc * first)} for ${first}); ` +
    `typed arrays' backing stores outside the heap ${(buffersPerDoc / 1024).toFixed(2)} KB per document (${MB(buffersPerDoc * first)}); ${rss()}`,
);

// Queries: words of the documents, pairs from the same document, and phrases taken from documents.
const Q = options.queries;
const sets = corpus.querySets(first, Q);
/** Each timed query's wall time less the main thread's wait for a core (thread-cpu.ts `waitedForCoreMs`), by what is timed (none: not kept). */
const ranFor = new Map<string, number[]>();
/** Each timed query's interval, by what is timed: to count those that had a garbage collection inside. */
const spans = new Map<string, [number, number][]>();
/** Garbage collections (start, end; reported a moment later, so read after the queries). */
const collections: [number, number][] = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) collections.push([e.startTime, e.startTime + e.duration]);
}).observe({ entryTypes: ['gc'] });
let timing: string | undefined;
const time = async (q: string) => {
  const w0 = waitedForCoreMs();
  const t0 = performance.now();
  await index.search(q);
  const wall = performance.now() - t0;
  const w1 = waitedForCoreMs();
  if (timing) {
    const list = spans.get(timing) ?? [];
    list.push([t0, t0 + wall]);
    spans.set(timing, list);
  }
  if (timing && w0 !== undefined && w1 !== undefined) {
    const list = ranFor.get(timing) ?? [];
    list.push(wall - (w1 - w0));
    ranFor.set(timing, list);
  }
  return wall;
};
/** " (with a core whenever runnable: p50 …, p99 …)" for the queries timed as `key`, if measured. */
const withCore = (key: string) => {
  const ts = ranFor.get(key);
  return ts?.length ? ` (with a core whenever runnable: p50 ${ms(percentile(ts, 50))}, p99 ${ms(percentile(ts, 99))})` : '';
};
/** " k with a collection inside (the longest part of one inside a query: x ms)" for the queries timed as `key`. */
const collected = (key: string) => {
  let k = 0;
  let longest = 0;
  for (const [a, b] of spans.get(key) ?? []) {
    const inside = collections.filter(([s, e]) => e > a && s < b).map(([s, e]) => Math.min(e, b) - Math.max(s, a));
    if (inside.length) {
      k++;
      longest = Math.max(longest, ...inside);
    }
  }
  return `${k} of ${spans.get(key)?.length ?? 0} with a collection inside${k ? ` (at most ${ms(longest)} of one)` : ''}`;
};
/** Each query's latency, one after the other. */
const times = async (qs: readonly string[]) => {
  const out: number[] = [];
  for (const q of qs) out.push(await time(q));
  return out;
};
for (const [name, qs] of Object.entries(sets)) {
  timing = undefined;
  await times(qs); // warm
  timing = `idle ${name}`;
  const lat = await times(qs);
  console.log(`query (${name}), idle: p50 ${ms(percentile(lat, 50))}, p99 ${ms(percentile(lat, 99))}${withCore(timing)}`);
}
timing = undefined;
// The same queries scored exhaustively (every candidate from its vector): how often is the top ten
// of the two-pass search (impact lists, then the best few hundred exactly) the same, and how slow
// would exhaustive scoring be?
{
  const lists = index.impacts.size();
  console.log(`impact lists: ${lists.terms} terms, ${lists.entries} entries (${((lists.entries * 8) / 1e6).toFixed(0)} MB)`);
  const typos = index.vocabulary.typos.size();
  console.log(
    `vocabulary: ${index.stats.termCount} terms, ${index.vocabulary.prefixes.size} completable; typo index ${typos.terms} terms, ` +
      `${typos.entries} entries in ${typos.slots} slots (${((typos.slots * 8) / 1e6).toFixed(1)} MB, ` +
      `${((typos.slots * 8) / Math.max(1, typos.terms)).toFixed(0)} bytes a term)`,
  );
  const top = async (q: string) => JSON.stringify((await index.search(q)).hits.map((h) => h.id));
  // (Above 200,000 documents, exhaustive scoring takes seconds a query: 50 of each kind are compared.)
  const compared = N > 200_000 ? Object.fromEntries(Object.entries(sets).map(([k, qs]) => [k, qs.slice(0, 50)])) : sets;
  const all = Object.values(compared).flat();
  const fast: string[] = [];
  for (const q of all) fast.push(await top(q));
  const limit = index.tuning.exactLimit;
  index.tuning.exactLimit = Infinity;
  const exhaustive: string[] = [];
  for (const q of all) exhaustive.push(await top(q));
  const slow = await times(compared['two words']!);
  index.tuning.exactLimit = limit;
  const same = fast.filter((f, i) => f === exhaustive[i]).length;
  const kinds = Object.entries(compared).map(([k, qs]) => [k, qs.length] as const);
  const byKind = kinds.map(([k, n], j) => {
    const from = kinds.slice(0, j).reduce((sum, [, m]) => sum + m, 0);
    return `${k} ${fast.slice(from, from + n).filter((f, i) => f === exhaustive[from + i]).length}`;
  });
  console.log(
    `two-pass top ten = exhaustive top ten: ${same} of ${fast.length} queries (${byKind.join(', ')}); ` +
      `exhaustive scoring, two words: p50 ${ms(percentile(slow, 50))}, p99 ${ms(percentile(slow, 99))}`,
  );
}
// While indexing: the remaining documents go in between queries, one at a time. As in the
// appliance, they are made and analyzed in another thread (feed-worker.ts) and arrive as messages.
const feed = new MessageChannel();
const counters = { produced: new Int32Array(new SharedArrayBuffer(4)), taken: new Int32Array(new SharedArrayBuffer(4)) };
// (Node 20 applies no loader to a worker's entry: a small module registers tsx's, then loads it.)
const feederEntry =
  `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; ` +
  `register(); await import(${JSON.stringify(new URL('./feed-worker.ts', import.meta.url).href)});`;
const feeder = new Worker(new URL(`data:text/javascript,${encodeURIComponent(feederEntry)}`), {
  workerData: { root: options.root, from: first, to: N, port: feed.port2, ...counters },
  transferList: [feed.port2],
});
/** Waits until the worker has made `count` documents (its errors cannot be heard in this synchronous loop: a deadline). */
const waitFor = (count: number) => {
  const deadline = performance.now() + 60_000;
  for (let made = Atomics.load(counters.produced, 0); made < count; made = Atomics.load(counters.produced, 0)) {
    if (performance.now() > deadline) throw new Error('bench/index: the feed worker made no document for 60 s (did it fail to start?)');
    Atomics.wait(counters.produced, 0, made, 100);
  }
};
const take = (): { doc: StoredDocument; analysis: Analysis } => {
  const taken = Atomics.load(counters.taken, 0);
  waitFor(taken + 1);
  const message = receiveMessageOnPort(feed.port1)!.message as { doc: StoredDocument; analysis: Analysis };
  Atomics.add(counters.taken, 0, 1);
  Atomics.notify(counters.taken, 0);
  return message;
};
// (The worker first reads the corpus, off the clock.)
if (first < N) waitFor(1);
let next = first;
const during: Record<string, number[]> = Object.fromEntries(QUERY_KINDS.map((k) => [k, []]));
const upserts: number[] = [];
// (At most 200 rounds with queries of each kind; any documents left are indexed after them, without.)
for (let round = 0; next < N && round < QUERIES_WHILE_INDEXING * QUERY_KINDS.length; round++, next++) {
  const t0 = performance.now();
  const { doc, analysis } = take();
  index.upsert(doc, analysis);
  upserts.push(performance.now() - t0);
  store.putNow(doc, { tokens: analysis.sequence, stemming: 'english' });
  const kind = QUERY_KINDS[round % QUERY_KINDS.length]!;
  const qs = sets[kind];
  timing = `indexing ${kind}`;
  during[kind]!.push(await time(qs[Math.floor(round / QUERY_KINDS.length) % qs.length]!));
  timing = undefined;
}
for (; next < N; next++) {
  const { doc, analysis } = take();
  index.upsert(doc, analysis);
  store.putNow(doc, { tokens: analysis.sequence, stemming: 'english' });
}
await feeder.terminate();
console.log(
  `query while indexing (a document indexed before each query): ${Object.entries(during)
    .map(([k, v]) => `${k} p50 ${ms(percentile(v, 50))}, p99 ${ms(percentile(v, 99))}${withCore(`indexing ${k}`)}`)
    .join('; ')}; ` +
    `one document's indexing (its message read, then indexed): p50 ${ms(percentile(upserts, 50))}, p99 ${ms(percentile(upserts, 99))}, ` +
    `max ${ms(Math.max(...upserts))}`,
);

// (The collections are reported to the observer on a later turn of the event loop.)
await new Promise((r) => setTimeout(r, 50));
console.log(`garbage collections inside timed queries: ${[...spans.keys()].map((k) => `${k}: ${collected(k)}`).join('; ')}`);

// Flush and load.
const dir = mkdtempSync(join(tmpdir(), 'trawl-bench-index-'));
t = performance.now();
// Queries keep coming while the flush writes: how long does one wait at most?
let flushing = true;
const waits: number[] = [];
const prober = (async () => {
  while (flushing) {
    const asked = performance.now();
    await new Promise((r) => setImmediate(r));
    const t0 = performance.now();
    await index.search(sets['two words']![waits.length % Q]!);
    waits.push(t0 - asked);
  }
})();
const info = await flushIndex(dir, index, 1);
flushing = false;
await prober;
console.log(
  `flush: ${ms(performance.now() - t)} in all, the thread held at most ${ms(info.maxPauseMs)} at a time; ${waits.length} queries during ` +
    `it waited at most ${ms(Math.max(0, ...waits))}; ${(info.bytes / 1e6).toFixed(1)} MB on disk for ${info.documents} documents`,
);
const expected = JSON.stringify((await index.search(sets['two words']![0]!)).hits.map((h) => h.id));
// Drop the index that was built, as a process starting up would not have it.
// (Every structure: at a million documents, two indexes at once would be ~15 GB.)
for (const k of Object.keys(index)) (index as unknown as Record<string, unknown>)[k] = undefined;
const loaded = new SearchIndex(lookup, undefined, {}, (ids) => store.sequencesOf(ids, 'english'));
const heapBeforeLoad = heap();
const buffersBeforeLoad = arrayBuffers();
t = performance.now();
loadIndex(dir, loaded);
const loadMs = performance.now() - t;
console.log(
  `load: ${ms(loadMs)}, heap ${MB(heap() - heapBeforeLoad)}, typed arrays outside it ${MB(arrayBuffers() - buffersBeforeLoad)}, ${rss()}; ` +
    `answers the same: ${JSON.stringify((await loaded.search(sets['two words']![0]!)).hits.map((h) => h.id)) === expected}`,
);
rmSync(dir, { recursive: true, force: true });
await sqlite.close();
rmSync(storeDir, { recursive: true, force: true });
console.log(`tokens in a document: ~${tokenize(makeDoc(0).text).length}; ${rss()}`);
