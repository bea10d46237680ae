/**
 * A shard's first round (statistics.ts): the query planned over its own index through a lens that
 * notes every statistic looked up — each term's frequency, each prefix's completions, each word's
 * typo candidates, each count of pages holding a completion with the other words — for the
 * coordinator to sum. The lens answers from this index as it stands, so the planning goes the way
 * it would here; the lookups of other shards' plans are theirs to report.
 *
 * The lens is made per query over the query's view of this index (structures/index-view.ts):
 * `RecordingStatistics` is the view's CorpusStatistics with each lookup noted, and the vocabulary's
 * lookups are this index's own, noted.
 */
import { stemmerByKey } from '../ingest/language/stemmers.ts';
import { stemmerFor } from '../ingest/tokenize.ts';
import { MAX_COMPLETIONS } from '../query/completions.ts';
import { togetherIn } from '../query/shares.ts';
import { stemmersIn } from '../query/languages.ts';
import type { Lens, SearchIndex } from '../search-index.ts';
import type { ImpactFunction } from '../structures/bm25f.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexView } from '../structures/index-view.ts';
import type { Completer } from '../structures/prefix-index.ts';
import type { Near, TypoLookup } from '../structures/typo-index.ts';
import type { Vocabulary, WordIndexes } from '../structures/vocabulary.ts';
import { completionKey, knownWords, nearKey, togetherKey, type TermReport } from './statistics.ts';

/**
 * A completion lookup notes this many of the prefix's completions, most frequent here first — more
 * than a query takes (MAX_COMPLETIONS), so that the corpus's most frequent are among the shards'
 * (a completion in no shard's first COMPLETIONS_NOTED cannot be taken: said in ARCHITECTURE.md).
 */
export const COMPLETIONS_NOTED = 4 * MAX_COMPLETIONS;

/** This index's statistics as of the query's start (its view), each term looked up noted. */
export class RecordingStatistics implements CorpusStatistics {
  constructor(
    private readonly view: IndexView,
    private readonly noted: (term: string) => void,
  ) {}

  get documentCount(): number {
    return this.view.documentCount;
  }

  termId(term: string): number | undefined {
    this.noted(term);
    return this.view.termId(term);
  }

  term(termId: number): string {
    return this.view.term(termId);
  }

  docFrequency(term: string): number {
    this.noted(term);
    return this.view.docFrequency(term);
  }

  docFrequencyOf(termId: number): number {
    this.noted(this.view.term(termId));
    return this.view.docFrequencyOf(termId);
  }

  idf(termId: number): number {
    this.noted(this.view.term(termId));
    return this.view.idf(termId);
  }

  impactFunction(): ImpactFunction {
    return this.view.impactFunction();
  }
}

export class Recorder {
  private readonly terms = new Map<string, [number, number]>();
  private readonly completions = new Map<string, Set<string>>();
  private readonly near = new Map<string, Map<string, number>>();
  private readonly typos = new Map<string, number>();
  private readonly together = new Map<string, { known: number; counts: Map<string, number> }>();
  private alphabet = '';
  /** Above 0 while this index's own structures run (their inner lookups are not the query's). */
  private quiet = 0;
  /** This index's documents by the stemmer of their language, as the query started. */
  private readonly stemmerPages: Record<string, number> = {};
  readonly lens: Lens;

  /** `view`: the query's view of this index; `stemmers`: the keys the coordinator ordered (else this index's own). */
  constructor(
    private readonly index: SearchIndex,
    private readonly view: IndexView,
    stemmers?: readonly string[],
  ) {
    const { sources } = index.stats;
    for (let id = 0; id < sources.sourceCount; id++) {
      const n = sources.documentsOf(id);
      const key = stemmerFor(sources.source(id).lang).key;
      if (n > 0) this.stemmerPages[key] = (this.stemmerPages[key] ?? 0) + n;
    }
    this.lens = {
      stats: new RecordingStatistics(view, (term) => this.note(term)),
      documents: view,
      vocabulary: this.vocabularyView(index.vocabulary),
      stemmers: stemmers ? stemmersOf(stemmers) : stemmersIn(sources),
      countTogether: (term, others) => this.countTogether(term, others),
    };
  }

  /** What the lookups found, with this index's totals. */
  report(): TermReport {
    return {
      documents: this.view.documentCount,
      lengthSum: this.view.fieldLengths(),
      stemmers: this.stemmerPages,
      terms: Object.fromEntries(this.terms),
      completions: Object.fromEntries([...this.completions].map(([k, v]) => [k, [...v]])),
      near: Object.fromEntries([...this.near].map(([k, v]) => [k, [...v]])),
      typos: Object.fromEntries(this.typos),
      alphabet: this.alphabet,
      together: Object.fromEntries([...this.together].map(([k, v]) => [k, { known: v.known, counts: Object.fromEntries(v.counts) }])),
    };
  }

  /** Notes whether the typo index here holds `term`; returns it. */
  noteTypo(term: string, held: boolean): boolean {
    this.typos.set(term, held ? 1 : 0);
    return held;
  }

  private note(term: string): void {
    if (this.quiet || this.terms.has(term)) return;
    this.terms.set(term, [this.view.docFrequency(term), this.view.termId(term) === undefined ? 0 : 1]);
  }

  /** While this index's own structures run (a prefix's completions weighed), nothing is noted. */
  private quietly<T>(run: () => T): T {
    this.quiet++;
    try {
      return run();
    } finally {
      this.quiet--;
    }
  }

  /** This index's prefix and typo indexes, each lookup noted. */
  private vocabularyView(vocabulary: Vocabulary): WordIndexes {
    const stats = this.view;
    const { prefixes, typos } = vocabulary;
    const complete: Completer['complete'] = (prefix, weight, limit, shortest = 2) => {
      const ids = this.quietly(() => prefixes.complete(prefix, weight, Math.max(limit, COMPLETIONS_NOTED), shortest));
      const noted = this.completions.get(completionKey(prefix, shortest)) ?? new Set();
      for (const id of ids) {
        noted.add(stats.term(id));
        this.note(stats.term(id));
      }
      this.completions.set(completionKey(prefix, shortest), noted);
      return ids.slice(0, limit);
    };
    const near = (word: string, distance: number): Near[] => {
      const found = this.quietly(() => typos.near(word, distance));
      const noted = this.near.get(nearKey(word, distance)) ?? new Map<string, number>();
      for (const c of found) {
        const t = stats.term(c.id);
        noted.set(t, Math.min(c.distance, noted.get(t) ?? c.distance));
        this.typos.set(t, 1);
        this.note(t);
      }
      this.near.set(nearKey(word, distance), noted);
      return found;
    };
    const has = (id: number): boolean => {
      const held = typos.has(id);
      this.typos.set(stats.term(id), held ? 1 : 0);
      return held;
    };
    const alphabet = (): string => (this.alphabet = typos.alphabet());
    const lookups: TypoLookup = { near, has, alphabet };
    return { prefixes: { complete }, typos: lookups };
  }

  /**
   * Pages here holding `term` with the other words (query/shares.ts `togetherIn`), noted — and,
   * the first time these other words are asked about, those of every completion noted so far:
   * another shard's plan may take completions this one's did not.
   */
  private countTogether(term: string, others: readonly (readonly string[])[]): number {
    const stats = this.view;
    const key = togetherKey(others);
    let entry = this.together.get(key);
    const sets = others
      .map((ts) => ts.map((t) => stats.termId(t)).filter((id): id is number => id !== undefined && stats.docFrequencyOf(id) > 0))
      .filter((ids) => ids.length);
    const docsWith = (x: string, n: number) => this.index.postings.docsWith(x, n);
    const count = (t: string) => this.quietly(() => togetherIn(t, sets, stats, stats.docFrequency(t), docsWith));
    if (!entry) {
      entry = { known: knownWords(others, (t) => stats.docFrequency(t)), counts: new Map() };
      this.together.set(key, entry);
      for (const list of this.completions.values()) for (const t of list) if (!entry.counts.has(t)) entry.counts.set(t, count(t));
    }
    if (!entry.counts.has(term)) entry.counts.set(term, count(term));
    return entry.counts.get(term)!;
  }
}

/** The stemmers of these keys (a key this Trawl does not know: the default stemmer, as a page of an unknown language). */
export function stemmersOf(keys: readonly string[]): ReturnType<typeof stemmerFor>[] {
  return keys.length ? keys.map((k) => stemmerByKey(k) ?? stemmerFor(undefined)) : [stemmerFor(undefined)];
}
