/**
 * The statistics of the whole corpus that a query over shards reads (the first of a coordinator's
 * two rounds: ARCHITECTURE.md, "Search over shards"). Each shard runs the query's planning — parse,
 * forgiving, weights — over its own documents and reports every statistic it looked up
 * (`TermReport`, record.ts); the coordinator sums them (`mergeReports`) and sends the sum with the
 * query (`CorpusStats`), and each shard then ranks its documents with it (replay.ts). A document's
 * score then depends on the corpus, never on which shard holds it: the merged top ten is one
 * node's.
 *
 * Each field is what one node's query would read of its index: the document count and field
 * lengths (BM25's IDF and length norms), each term's document frequency and whether the
 * dictionary knows it, the stemmers of the pages' languages, the completions of a prefix (as you
 * type), the terms near a word (typos) and whether the typo index holds a term, its alphabet, and
 * how many pages hold a completion with the query's other words. A lookup is keyed by what it
 * asked (a prefix, a word and a distance), so that the shards' answers to one question are summed.
 */

/** One shard's statistics for one query. */
export type TermReport = {
  readonly documents: number;
  /** The field lengths summed over its documents (ingest/fields.ts order). */
  readonly lengthSum: readonly number[];
  /** Its documents by the stemmer of their language (query/languages.ts `stemmersIn`). */
  readonly stemmers: Readonly<Record<string, number>>;
  /** Each term looked up: [documents holding it, 1 when the dictionary knows it (it may be in none now) else 0]. */
  readonly terms: Readonly<Record<string, readonly [number, number]>>;
  /** Completions looked up (key: prefix, newline, shortest): the terms, the most frequent here first. */
  readonly completions: Readonly<Record<string, readonly string[]>>;
  /** Typo candidates looked up (key: word, newline, edits allowed): [term, edits]. */
  readonly near: Readonly<Record<string, readonly (readonly [string, number])[]>>;
  /** Terms asked of the typo index: 1 when it holds them. */
  readonly typos: Readonly<Record<string, number>>;
  /** The characters of the typo index's terms. */
  readonly alphabet: string;
  /**
   * Pages holding a completion with the query's other words (key: the other words, as JSON), by
   * completion; `known`: which of the other words this shard knows (a bit each) — pages here
   * count only when every word the corpus knows is known here too.
   */
  readonly together: Readonly<Record<string, { readonly known: number; readonly counts: Readonly<Record<string, number>> }>>;
};

/** The corpus's statistics for one query: the shards' reports summed. */
export type CorpusStats = {
  readonly documents: number;
  readonly lengthSum: readonly number[];
  /** The stemmers' keys, most documents first (ties: by key), as one node orders them. */
  readonly stemmers: readonly string[];
  readonly terms: Readonly<Record<string, readonly [number, number]>>;
  readonly completions: Readonly<Record<string, readonly string[]>>;
  readonly near: Readonly<Record<string, readonly (readonly [string, number])[]>>;
  readonly typos: Readonly<Record<string, number>>;
  readonly alphabet: string;
  /** By the other words (JSON), by completion: pages holding both, in every shard. */
  readonly together: Readonly<Record<string, Readonly<Record<string, number>>>>;
};

/**
 * A record's own value at `key` — never one it inherits: terms are any words, "constructor" and
 * "toString" among them.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/** The key of a completion lookup. */
export const completionKey = (prefix: string, shortest: number): string => `${prefix}\n${shortest}`;
/** The key of a typo lookup. */
export const nearKey = (word: string, distance: number): string => `${word}\n${distance}`;
/** The key of a count of pages holding a completion with the other words. */
export const togetherKey = (others: readonly (readonly string[])[]): string => JSON.stringify(others);

/** The stemmers' keys by their documents, most first (query/languages.ts `stemmersIn`'s order). */
export function stemmerOrder(pages: Readonly<Record<string, number>>): string[] {
  return Object.entries(pages)
    .filter(([, n]) => n > 0)
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([key]) => key);
}

/** The shards' reports summed into the corpus's statistics. */
export function mergeReports(reports: readonly TermReport[]): CorpusStats {
  // (Maps, not objects, while summing: a term may be any word, "constructor" among them.)
  const lengthSum: number[] = [];
  const stemmers = new Map<string, number>();
  const terms = new Map<string, [number, number]>();
  const completions = new Map<string, Set<string>>();
  const near = new Map<string, Map<string, number>>();
  const typos = new Map<string, number>();
  const alphabet = new Set<string>();
  let documents = 0;
  for (const r of reports) {
    documents += r.documents;
    r.lengthSum.forEach((n, f) => {
      lengthSum[f] = (lengthSum[f] ?? 0) + n;
    });
    for (const [key, n] of Object.entries(r.stemmers)) stemmers.set(key, (stemmers.get(key) ?? 0) + n);
    for (const [t, [df, known]] of Object.entries(r.terms)) {
      const sum = terms.get(t) ?? [0, 0];
      terms.set(t, [sum[0] + df, Math.max(sum[1], known)]);
    }
    for (const [key, list] of Object.entries(r.completions)) {
      const all = completions.get(key) ?? new Set();
      for (const t of list) all.add(t);
      completions.set(key, all);
    }
    for (const [key, list] of Object.entries(r.near)) {
      const all = near.get(key) ?? new Map<string, number>();
      for (const [t, d] of list) all.set(t, Math.min(d, all.get(t) ?? d));
      near.set(key, all);
    }
    for (const [t, held] of Object.entries(r.typos)) typos.set(t, Math.max(typos.get(t) ?? 0, held));
    for (const c of r.alphabet) alphabet.add(c);
  }
  return {
    documents,
    lengthSum,
    stemmers: stemmerOrder(Object.fromEntries(stemmers)),
    terms: Object.fromEntries(terms),
    completions: Object.fromEntries([...completions].map(([k, v]) => [k, [...v]])),
    near: Object.fromEntries([...near].map(([k, v]) => [k, [...v]])),
    typos: Object.fromEntries(typos),
    alphabet: [...alphabet].sort().join(''),
    together: mergeTogether(reports, (t) => terms.get(t)?.[0] ?? 0),
  };
}

/**
 * The corpus's statistics with what the shards answered to lookups it lacked (their second round
 * went where no shard's first did: replay.ts) added — what it had stays.
 */
export function extendCorpus(corpus: CorpusStats, missed: readonly TermReport[]): CorpusStats {
  const extra = mergeReports(missed);
  const df = (t: string) => (own(corpus.terms, t) ?? own(extra.terms, t))?.[0] ?? 0;
  return {
    ...corpus,
    terms: { ...extra.terms, ...corpus.terms },
    completions: { ...extra.completions, ...corpus.completions },
    near: { ...extra.near, ...corpus.near },
    typos: { ...extra.typos, ...corpus.typos },
    alphabet: [...new Set(corpus.alphabet + extra.alphabet)].sort().join(''),
    together: { ...mergeTogether(missed, df), ...corpus.together },
  };
}

/**
 * Pages holding a completion with the other words, summed over the shards that know every other
 * word the corpus knows (a shard that lacks one has no page holding it: it adds nothing; what it
 * counted, it counted against fewer words).
 */
function mergeTogether(reports: readonly TermReport[], df: (term: string) => number): Record<string, Record<string, number>> {
  const out = new Map<string, Map<string, number>>();
  for (const r of reports) {
    for (const [key, { known, counts }] of Object.entries(r.together)) {
      const others = JSON.parse(key) as string[][];
      if (known !== knownWords(others, df)) continue;
      const sum = out.get(key) ?? new Map<string, number>();
      for (const [t, n] of Object.entries(counts)) sum.set(t, (sum.get(t) ?? 0) + n);
      out.set(key, sum);
    }
  }
  return Object.fromEntries([...out].map(([k, v]) => [k, Object.fromEntries(v)]));
}

/** Which of the other words (a bit each) have a term in some document, by `df`. */
export function knownWords(others: readonly (readonly string[])[], df: (term: string) => number): number {
  let bits = 0;
  others.forEach((terms, i) => {
    if (terms.some((t) => df(t) > 0)) bits |= 1 << i;
  });
  return bits;
}
