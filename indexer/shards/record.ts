/**
 * A shard's first round (statistics.ts): the query planned over its own index through a lens that
 * notes every statistic looked up — each term's frequency, each prefix's completions, each word's
 * typo candidates, each count of pages holding a completion with the other words — for the
 * coordinator to sum. The lens answers from this index as it stands, so the planning goes the way
 * it would here; the lookups of other shards' plans are theirs to report.
 *
 * The lens's objects are this index's own with a few methods in front (Object.create: the rest is
 * read through the prototype), made per query and never written to.
 */
import { stemmerByKey } from '../ingest/language/stemmers.ts';
import { stemmerFor } from '../ingest/tokenize.ts';
import { MAX_COMPLETIONS } from '../query/completions.ts';
import { togetherIn } from '../query/forgive.ts';
import type { Lens, SearchIndex } from '../search-index.ts';
import type { PrefixIndex } from '../structures/prefix-index.ts';
import type { TermStats } from '../structures/term-stats.ts';
import type { Near, TypoIndex } from '../structures/typo-index.ts';
import type { Vocabulary } from '../structures/vocabulary.ts';
import { completionKey, knownWords, nearKey, togetherKey, type TermReport } from './statistics.ts';

/**
 * A completion lookup notes this many of the prefix's completions, most frequent here first — more
 * than a query takes (MAX_COMPLETIONS), so that the corpus's most frequent are among the shards'
 * (a completion in no shard's first COMPLETIONS_NOTED cannot be taken: said in ARCHITECTURE.md).
 */
export const COMPLETIONS_NOTED = 4 * MAX_COMPLETIONS;

export class Recorder {
  private readonly terms = new Map<string, [number, number]>();
  private readonly completions = new Map<string, Set<string>>();
  private readonly near = new Map<string, Map<string, number>>();
  private readonly typos = new Map<string, number>();
  private readonly together = new Map<string, { known: number; counts: Map<string, number> }>();
  private alphabet = '';
  /** Above 0 while this index's own structures run (their inner lookups are not the query's). */
  private quiet = 0;
  readonly lens: Lens;

  /** `stemmers`: the keys the coordinator ordered (else this index's own). */
  constructor(
    private readonly index: SearchIndex,
    stemmers?: readonly string[],
  ) {
    const own = index.lens();
    this.lens = {
      stats: this.statsView(index.stats),
      vocabulary: this.vocabularyView(index.vocabulary),
      stemmers: stemmers ? stemmersOf(stemmers) : own.stemmers,
      countTogether: (term, others) => this.countTogether(term, others),
    };
  }

  /** What the lookups found, with this index's totals. */
  report(): TermReport {
    const stats = this.index.stats;
    const stemmers: Record<string, number> = {};
    for (let id = 0; id < stats.sourceCount; id++) {
      const n = stats.documentsOfSource(id);
      const key = stemmerFor(stats.source(id).lang).key;
      if (n > 0) stemmers[key] = (stemmers[key] ?? 0) + n;
    }
    return {
      documents: stats.documentCount,
      lengthSum: stats.fieldLengths(),
      stemmers,
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
    const stats = this.index.stats;
    this.terms.set(term, [stats.docFrequency(term), stats.termId(term) === undefined ? 0 : 1]);
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

  private statsView(stats: TermStats): TermStats {
    return Object.create(stats, {
      termId: {
        value: (t: string) => {
          this.note(t);
          return stats.termId(t);
        },
      },
      docFrequency: {
        value: (t: string) => {
          this.note(t);
          return stats.docFrequency(t);
        },
      },
      docFrequencyOf: {
        value: (id: number) => {
          this.note(stats.term(id));
          return stats.docFrequencyOf(id);
        },
      },
      idf: {
        value: (id: number) => {
          this.note(stats.term(id));
          return stats.idf(id);
        },
      },
    }) as TermStats;
  }

  private vocabularyView(vocabulary: Vocabulary): Vocabulary {
    const stats = this.index.stats;
    const { prefixes, typos } = vocabulary;
    const complete = (prefix: string, weight: (id: number) => number, limit: number, shortest = 2): number[] => {
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
    return Object.create(vocabulary, {
      prefixes: { value: Object.create(prefixes, { complete: { value: complete } }) as PrefixIndex },
      typos: { value: Object.create(typos, { near: { value: near }, has: { value: has }, alphabet: { value: alphabet } }) as TypoIndex },
    }) as Vocabulary;
  }

  /**
   * Pages here holding `term` with the other words (query/forgive.ts `togetherIn`), noted — and,
   * the first time these other words are asked about, those of every completion noted so far:
   * another shard's plan may take completions this one's did not.
   */
  private countTogether(term: string, others: readonly (readonly string[])[]): number {
    const stats = this.index.stats;
    const key = togetherKey(others);
    let entry = this.together.get(key);
    const sets = others
      .map((ts) => ts.map((t) => stats.termId(t)).filter((id): id is number => id !== undefined && stats.docFrequencyOf(id) > 0))
      .filter((ids) => ids.length);
    const count = (t: string) => this.quietly(() => togetherIn(t, sets, stats, (x, n) => this.index.postings.docsWith(x, n)));
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
