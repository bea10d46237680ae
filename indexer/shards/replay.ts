/**
 * A shard's second round (statistics.ts): the query ranked over its own documents with the
 * corpus's statistics, as its coordinator summed them. The lens answers every lookup of the
 * query's planning and scoring from `CorpusStats` — a term's frequency and IDF, the document count
 * and field lengths of BM25's norms, a prefix's completions, a word's typo candidates, the pages
 * holding a completion with the other words — so that every shard plans the query as one node
 * over all the documents would, and scores its documents as that node would.
 *
 * A term the corpus knows and this shard does not gets an id of its own for this query, from the
 * top of the 32-bit range down (this index's ids count up from 0 and never get there): it weighs
 * what it weighs in the corpus, and no document here holds it. A lookup the first round did not
 * gather (another shard's plan went another way there) is answered from this index and noted
 * (`Misses`, through a Recorder): the shard sends what it found with its answer, and the
 * coordinator asks again with the shards' answers added to the corpus's statistics.
 */
import { fieldNorms, idf, impactFunction } from '../structures/bm25f.ts';
import type { Lens, SearchIndex } from '../search-index.ts';
import type { PrefixIndex } from '../structures/prefix-index.ts';
import type { DocVector, TermStats } from '../structures/term-stats.ts';
import type { Near, TypoIndex } from '../structures/typo-index.ts';
import type { Vocabulary } from '../structures/vocabulary.ts';
import { type Recorder, stemmersOf } from './record.ts';
import { completionKey, nearKey, own, togetherKey, type CorpusStats, type TermReport } from './statistics.ts';

/** The highest id a term unknown here is given for one query. */
const FOREIGN_TOP = 0xffff_fffe;

/** Lookups the corpus's statistics did not have, answered from this index — and what it answered, for the coordinator to sum. */
export class Misses {
  readonly asked = new Set<string>();

  constructor(readonly recorder: Recorder) {}

  note(what: string): void {
    this.asked.add(what);
  }

  get count(): number {
    return this.asked.size;
  }

  /** This index's answers to the lookups missed (undefined: none was). */
  report(): TermReport | undefined {
    return this.count ? this.recorder.report() : undefined;
  }
}

/** The lens of one query on this shard, with the corpus's statistics `g`; `misses` notes what they lacked. */
export function replayLens(index: SearchIndex, g: CorpusStats, misses: Misses): Lens {
  const stats = index.stats;
  // (What this index answers to a lookup the corpus lacks, noted: misses.report().)
  const local = misses.recorder.lens;
  const foreign = new Map<string, number>();
  const foreignTerms: string[] = [];
  const foreignId = (t: string) => {
    let id = foreign.get(t);
    if (id === undefined) {
      id = FOREIGN_TOP - foreignTerms.length;
      foreign.set(t, id);
      foreignTerms.push(t);
    }
    return id;
  };
  const isForeign = (id: number) => id > FOREIGN_TOP - foreignTerms.length && id <= FOREIGN_TOP;
  const term = (id: number): string => (isForeign(id) ? foreignTerms[FOREIGN_TOP - id]! : stats.term(id));
  const termId = (t: string): number | undefined => {
    const known = own(g.terms, t);
    if (!known) {
      misses.note(`term ${t}`);
      return local.stats.termId(t);
    }
    return stats.termId(t) ?? (known[1] ? foreignId(t) : undefined);
  };
  const docFrequency = (t: string): number => {
    const known = own(g.terms, t);
    if (known) return known[0];
    misses.note(`term ${t}`);
    return local.stats.docFrequency(t);
  };
  let impact: ((v: DocVector, row: number) => number) | undefined;
  const view = Object.create(stats, {
    documentCount: { get: () => g.documents },
    termId: { value: termId },
    term: { value: term },
    docFrequency: { value: docFrequency },
    docFrequencyOf: { value: (id: number) => docFrequency(term(id)) },
    idf: { value: (id: number) => idf(docFrequency(term(id)), g.documents) },
    impactFunction: { value: () => (impact ??= impactFunction(fieldNorms(Float64Array.from(g.lengthSum), g.documents))) },
  }) as TermStats;
  return {
    stats: view,
    vocabulary: vocabularyView(index.vocabulary, g, misses, { termId, term, isForeign }),
    stemmers: stemmersOf(g.stemmers),
    countTogether: (t, others) => {
      const counts = own(g.together, togetherKey(others));
      if (counts) return own(counts, t) ?? 0;
      misses.note(`together ${t} ${togetherKey(others)}`);
      return local.countTogether!(t, others);
    },
  };
}

/** The prefix and typo indexes answering from the corpus's lookups (this index's, noted, when they have none). */
function vocabularyView(
  vocabulary: Vocabulary,
  g: CorpusStats,
  misses: Misses,
  ids: { termId: (t: string) => number | undefined; term: (id: number) => string; isForeign: (id: number) => boolean },
): Vocabulary {
  const { termId, term, isForeign } = ids;
  const local = misses.recorder.lens.vocabulary;
  // As PrefixIndex.complete: the highest weight first; ties: shorter, then alphabetical; none of weight 0.
  const complete = (prefix: string, weight: (id: number) => number, limit: number, shortest = 2): number[] => {
    if (prefix.length < Math.max(1, shortest) || limit <= 0) return [];
    const list = own(g.completions, completionKey(prefix, shortest));
    if (!list) {
      misses.note(`completions ${prefix}`);
      return local.prefixes.complete(prefix, weight, limit, shortest);
    }
    const found: { id: number; t: string; w: number }[] = [];
    for (const t of new Set(list)) {
      const id = termId(t);
      const w = id === undefined ? 0 : weight(id);
      if (w > 0) found.push({ id: id!, t, w });
    }
    found.sort((a, b) => b.w - a.w || a.t.length - b.t.length || (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
    return found.slice(0, limit).map((f) => f.id);
  };
  const near = (word: string, distance: number): Near[] => {
    const list = own(g.near, nearKey(word, distance));
    if (!list) {
      misses.note(`near ${word} ${distance}`);
      return local.typos.near(word, distance);
    }
    return list.flatMap(([t, d]) => {
      const id = termId(t);
      return id === undefined ? [] : [{ id, distance: d }];
    });
  };
  const has = (id: number): boolean => {
    const held = own(g.typos, term(id));
    if (held !== undefined) return held === 1;
    misses.note(`typo ${term(id)}`);
    // (A term no document here holds is in no typo index here.)
    return isForeign(id) ? misses.recorder.noteTypo(term(id), false) : local.typos.has(id);
  };
  return Object.create(vocabulary, {
    prefixes: { value: Object.create(vocabulary.prefixes, { complete: { value: complete } }) as PrefixIndex },
    typos: { value: Object.create(vocabulary.typos, { near: { value: near }, has: { value: has }, alphabet: { value: () => g.alphabet } }) as TypoIndex },
  }) as Vocabulary;
}
