/**
 * The synthetic corpus of bench/index and bench/index-fts5: documents of ~3.8 KB (some 650
 * tokens) made from the sentences and headings of a real documentation corpus, each regenerated
 * from its id when needed (so that only the index under test takes memory), and query sets drawn
 * from the documents: one word, two words, two adjacent words as a phrase, and words being typed
 * (prefix: a word's first 2 to 5 letters alone, or a word and the first 4 letters of another).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeBody, parseHtml } from '../crawler/parse/index.ts';
import type { StoredDocument } from '../model/index.ts';

export type QueryKind = 'one word' | 'two words' | 'phrase' | 'prefix';
export const QUERY_KINDS: readonly QueryKind[] = ['one word', 'two words', 'phrase', 'prefix'];

/** The command line both benches take: --docs N, --root (the corpus of sentences), --queries per kind. */
export function benchOptions(): { docs: number; root: string; queries: number } {
  const { values } = parseArgs({
    options: {
      docs: { type: 'string', default: '10000' },
      root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
      queries: { type: 'string', default: '300' },
    },
  });
  return { docs: Number(values.docs), root: values.root!, queries: Number(values.queries) };
}

/** The p-th percentile of some latencies, and a latency as printed. */
export const percentile = (xs: readonly number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
export const ms = (x: number) => `${x.toFixed(2)} ms`;

/** Queries of each kind that bench/index asks while indexing, a document indexed before each. */
export const QUERIES_WHILE_INDEXING = 200;

/** bench/index indexes all but this many documents before its queries (the rest go in between them). */
export function indexedBeforeQueries(docs: number): number {
  return docs - Math.min(QUERIES_WHILE_INDEXING * QUERY_KINDS.length, Math.floor(docs * 0.1));
}

export type SyntheticCorpus = {
  readonly sentences: number;
  readonly headings: number;
  /** Document `id`, the same every time. */
  makeDoc(id: number): StoredDocument;
  /** `count` queries of each kind, drawn (deterministically) from documents 0 … docs − 1. */
  querySets(docs: number, count: number): Record<QueryKind, string[]>;
};

export function syntheticCorpus(root: string): SyntheticCorpus {
  const sentences: string[] = [];
  const headings: string[] = [];
  for (const f of readdirSync(root).filter((f) => f.endsWith('.html'))) {
    // (Only the text and the headings are used: whatever robots token, every link.)
    const p = parseHtml(decodeBody(readFileSync(join(root, f)), 'text/html').text, `http://x/${f}`, 'trawlbot', Number.MAX_SAFE_INTEGER);
    headings.push(...p.headings);
    for (const s of p.text.split(/(?<=[.!?])\s+|\n+/)) if (s.length > 30 && s.length < 400) sentences.push(s);
  }
  const makeDoc = (id: number): StoredDocument => {
    let s = Math.imul(id + 1, 2654435761) >>> 0;
    const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const parts: string[] = [];
    let length = 0;
    while (length < 3800) {
      const sentence = sentences[Math.floor(next() * sentences.length)]!;
      parts.push(sentence);
      length += sentence.length + 1;
    }
    const text = parts.join(' ');
    return {
      id,
      url: `http://host${id % 50}.bench.invalid/doc/${id}`,
      title: headings[Math.floor(next() * headings.length)]!,
      description: '',
      headings: [headings[Math.floor(next() * headings.length)]!],
      text,
      contentType: 'text/html',
      bytes: text.length,
      truncated: false,
      httpStatus: 200,
      fetchedAt: 0,
      hash: String(id),
    };
  };
  const querySets = (docs: number, count: number): Record<QueryKind, string[]> => {
    let s = 12345;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const words = (id: number) =>
      makeDoc(id)
        .text.split(/\s+/)
        .filter((w) => /^[a-z]{4,}$/i.test(w));
    const sets: Record<QueryKind, string[]> = { 'one word': [], 'two words': [], phrase: [], prefix: [] };
    for (let i = 0; i < count; i++) {
      const w = words(Math.floor(rnd() * docs));
      const a = Math.floor(rnd() * (w.length - 2));
      sets['one word'].push(w[a]!);
      sets['two words'].push(`${w[a]} ${w[Math.floor(rnd() * w.length)]}`);
      sets.phrase.push(`"${w[a]} ${w[a + 1]}"`);
      const other = w[Math.floor(rnd() * w.length)]!;
      sets.prefix.push(i % 2 ? `${w[a]} ${other.slice(0, 4)}` : other.slice(0, 2 + ((i >> 1) % 4)));
    }
    return sets;
  };
  return { sentences: sentences.length, headings: headings.length, makeDoc, querySets };
}
