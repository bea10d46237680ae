/**
 * bench/index-memory: where the in-RAM index's memory goes, per document. Indexes N synthetic
 * documents (bench/synthetic-corpus.ts, as bench/index does), then drops the index's structures one
 * at a time and measures what each one freed: V8's heap (`heapUsed`, what a `--max-old-space-size`
 * limits) and the typed arrays' backing stores outside it (`arrayBuffers`), both after full GCs.
 *
 *   node --expose-gc --import tsx bench/index-memory.ts [--docs 100000]
 */
import { analyze } from '../indexer/ingest/analyze.ts';
import { SearchIndex } from '../indexer/search-index.ts';
import { benchOptions, syntheticCorpus } from './synthetic-corpus.ts';

const options = benchOptions();
const N = options.docs;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const memory = () => {
  gc();
  gc();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
};
const corpus = syntheticCorpus(options.root);
const before = memory();
let index: SearchIndex | undefined = new SearchIndex((id) => (id >= 0 && id < N ? corpus.makeDoc(id) : undefined));
for (let id = 0; id < N; id++) {
  const d = corpus.makeDoc(id);
  index.upsert(d, analyze(d));
}
await index.search('configuration parameter'); // the vocabulary's lazy parts, as after a first query
const built = memory();
const perDoc = (bytes: number) => `${(bytes / N / 1024).toFixed(2)} KB`;
const line = (name: string, heap: number, buffers: number) =>
  console.log(
    `${name.padEnd(34)} heap ${perDoc(heap).padStart(9)}  array buffers ` +
      `${perDoc(buffers).padStart(9)}  together ${perDoc(heap + buffers).padStart(9)} per document`,
  );
console.log(
  `${N} documents; uptime: ${(await import('node:os'))
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
);
line('whole index', built.heap - before.heap, built.buffers - before.buffers);
// Each structure's own fields cleared in turn (the index and others still hold the object itself).
const clear = (o: object) => {
  for (const k of Object.keys(o)) (o as Record<string, unknown>)[k] = undefined;
};
const parts: [string, () => void][] = [
  ['postings (FlexSearch)', () => clear(index!.postings.flex)],
  ['impact lists', () => clear(index!.impacts)],
  ['vocabulary (prefix, typo indexes)', () => clear(index!.vocabulary)],
  ['simhashes', () => clear(index!.simhashes)],
];
let last = built;
for (const [name, drop] of parts) {
  drop();
  const now = memory();
  line(name, last.heap - now.heap, last.buffers - now.buffers);
  last = now;
}
index = undefined;
const empty = memory();
line('term stats (dictionary, vectors)', last.heap - empty.heap, last.buffers - empty.buffers);
