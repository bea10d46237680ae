/**
 * A shard's second round (statistics.ts): the query ranked over its own documents with the
 * corpus's statistics, as its coordinator summed them. The lens answers every lookup of the
 * query's planning and scoring from `CorpusStats` — a term's frequency and IDF, the document count
 * and field lengths of BM25's norms, a prefix's completions, a word's typo candidates, the pages
 * holding a completion with the other words — so that every shard plans the query as one node
 * over all the documents would, and scores its documents as that node would.
 *
 * `GatheredStatistics` is the CorpusStatistics the query reads (structures/corpus-statistics.ts),
 * over this index's view for its term ids (structures/index-view.ts). A term the corpus knows and
 * this shard does not gets an id of its own for this query, from the top of the 32-bit range down
 * (this index's ids count up from 0 and never get there): it weighs what it weighs in the corpus,
 * and no document here holds it. A lookup the first round did not
 * gather (another shard's plan went another way there) is answered from this index and noted
 * (`Misses`, through a Recorder): the shard sends what it found with its answer, and the
 * coordinator asks again with the shards' answers added to the corpus's statistics.
 */
import { fieldNorms, idf, impactFunction, type ImpactFunction } from '../structures/bm25f.ts';
import type { Lens } from '../search-index.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexView } from '../structures/index-view.ts';
import type { Completer } from '../structures/prefix-index.ts';
import type { Near, TypoLookup } from '../structures/typo-index.ts';
import type { WordIndexes } from '../structures/vocabulary.ts';
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

/**
 * The corpus's statistics `g` for one query on this shard: each lookup answered from them, else
 * from this index (through the recorder's lens, which notes what it answered) and noted as missed.
 */
export class GatheredStatistics implements CorpusStatistics {
  private readonly foreign = new Map<string, number>();
  private readonly foreignTerms: string[] = [];
  private impact: ImpactFunction | undefined;
  /** This index's own answers (noted): for a lookup the corpus's statistics lack. */
  private readonly local: CorpusStatistics;

  constructor(
    private readonly view: IndexView,
    private readonly g: CorpusStats,
    private readonly misses: Misses,
  ) {
    this.local = misses.recorder.lens.stats;
  }

  get documentCount(): number {
    return this.g.documents;
  }

  termId(term: string): number | undefined {
    const known = own(this.g.terms, term);
    if (!known) {
      this.misses.note(`term ${term}`);
      return this.local.termId(term);
    }
    return this.view.termId(term) ?? (known[1] ? this.foreignId(term) : undefined);
  }

  term(termId: number): string {
    return this.isForeign(termId) ? this.foreignTerms[FOREIGN_TOP - termId]! : this.view.term(termId);
  }

  docFrequency(term: string): number {
    const known = own(this.g.terms, term);
    if (known) return known[0];
    this.misses.note(`term ${term}`);
    return this.local.docFrequency(term);
  }

  docFrequencyOf(termId: number): number {
    return this.docFrequency(this.term(termId));
  }

  idf(termId: number): number {
    return idf(this.docFrequency(this.term(termId)), this.g.documents);
  }

  impactFunction(): ImpactFunction {
    this.impact ??= impactFunction(fieldNorms(Float64Array.from(this.g.lengthSum), this.g.documents));
    return this.impact;
  }

  /** True for an id given to a term this index does not know. */
  isForeign(termId: number): boolean {
    return termId > FOREIGN_TOP - this.foreignTerms.length && termId <= FOREIGN_TOP;
  }

  private foreignId(term: string): number {
    let id = this.foreign.get(term);
    if (id === undefined) {
      id = FOREIGN_TOP - this.foreignTerms.length;
      this.foreign.set(term, id);
      this.foreignTerms.push(term);
    }
    return id;
  }
}

/**
 * The lens of one query on this shard, over `view` (this index as the query started), with the
 * corpus's statistics `g`; `misses` notes what they lacked.
 */
export function replayLens(view: IndexView, g: CorpusStats, misses: Misses): Lens {
  const stats = new GatheredStatistics(view, g, misses);
  // (What this index answers to a lookup the corpus lacks, noted: misses.report().)
  const local = misses.recorder.lens;
  return {
    stats,
    documents: view,
    vocabulary: vocabularyView(g, misses, stats),
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
function vocabularyView(g: CorpusStats, misses: Misses, stats: GatheredStatistics): WordIndexes {
  const local = misses.recorder.lens.vocabulary;
  // As PrefixIndex.complete: the highest weight first; ties: shorter, then alphabetical; none of weight 0.
  const complete: Completer['complete'] = (prefix, weight, limit, shortest = 2) => {
    if (prefix.length < Math.max(1, shortest) || limit <= 0) return [];
    const list = own(g.completions, completionKey(prefix, shortest));
    if (!list) {
      misses.note(`completions ${prefix}`);
      return local.prefixes.complete(prefix, weight, limit, shortest);
    }
    const found: { id: number; t: string; w: number }[] = [];
    for (const t of new Set(list)) {
      const id = stats.termId(t);
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
      const id = stats.termId(t);
      return id === undefined ? [] : [{ id, distance: d }];
    });
  };
  const has = (id: number): boolean => {
    const term = stats.term(id);
    const held = own(g.typos, term);
    if (held !== undefined) return held === 1;
    misses.note(`typo ${term}`);
    // (A term no document here holds is in no typo index here.)
    return stats.isForeign(id) ? misses.recorder.noteTypo(term, false) : local.typos.has(id);
  };
  const typos: TypoLookup = { near, has, alphabet: () => g.alphabet };
  return { prefixes: { complete }, typos };
}
