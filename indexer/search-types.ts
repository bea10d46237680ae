/**
 * What the index answers, and what a query goes through on its way (search-index.ts): the types
 * the search server, the shell and a coordinator over shards (indexer/shards) see.
 */
import type { Adjusted, Adjustments } from './query/adjust.ts';
import type { Facets } from './query/filters.ts';
import type { Forgiven } from './query/forgive.ts';
import type { CountTogether } from './query/shares.ts';
import type { QueryDocuments } from './query/documents.ts';
import type { SearchHit } from './query/hits.ts';
import type { Occurrences } from './query/locate.ts';
import type { ParsedQuery } from './query/parse.ts';
import type { Ranked } from './query/rank.ts';
import type { Synonyms } from './query/synonyms.ts';
import type { SlotWeights } from './query/weights.ts';
import type { Stemmer } from './ingest/language/stemmers.ts';
import type { CorpusStatistics } from './structures/corpus-statistics.ts';
import type { OwnIndex } from './structures/index-view.ts';
import type { WordIndexes } from './structures/vocabulary.ts';

export type SearchResponse = {
  readonly query: string;
  readonly total: number;
  readonly tookMs: number;
  readonly page: number;
  readonly size: number;
  /** No document matched every word: these match some of them. */
  readonly partial: boolean;
  /** Set when an exact phrase was checked on only the best results: there may be more. */
  readonly totalIsLowerBound?: boolean;
  readonly hits: readonly SearchHit[];
  /** Result counts by host, language, type and topic (query/filters.ts). */
  readonly facets: Facets;
  /** The query with unknown words corrected ("did you mean"), when some word is unknown. */
  readonly suggestion?: string;
  /** Words the search also took for others (typos, query/forgive.ts): as typed, and as a page spells the word taken. */
  readonly corrected?: readonly { readonly from: string; readonly to: string }[];
  /** The synonyms the query's words had (`SearchOptions.synonyms`): an entry of the rules the query holds, and what it also found — as the rules write them. */
  readonly synonyms?: readonly { readonly from: string; readonly to: readonly string[] }[];
  /** Answered by a coordinator over shards (indexer/shards): which answered, and which are missing from it. */
  readonly shards?: ShardsAnswered;
};

/** The shards a coordinator asked, and those whose documents are missing from an answer (down, slow, or refusing). */
export type ShardsAnswered = {
  readonly asked: number;
  readonly answered: number;
  /** Some shard did not answer: results from its documents are missing. */
  readonly partial: boolean;
  readonly missing: readonly { readonly shard: string; readonly error: string }[];
  /** Lookups some shard answered from its own statistics, the first round not having gathered them (indexer/shards/replay.ts); absent: none. */
  readonly statisticsMissed?: number;
};

/**
 * What a query reads its statistics through — term frequencies, document count, field lengths,
 * the vocabulary its words are completed and corrected from, the stemmers of the pages' languages:
 * this index's own (`SearchIndex.lens`), or, on a shard of a cluster, the whole corpus's, as its
 * coordinator gathered them (indexer/shards/replay.ts). Documents, vectors and postings are
 * always this index's, as of the query's start (`documents`: its view, index-view.ts).
 */
export type Lens = {
  /** The corpus's figures ranking reads (structures/corpus-statistics.ts): the view's own, or a shard's corpus's. */
  readonly stats: CorpusStatistics;
  /**
   * This index as the query started: its documents' vectors and sources — and how many of its
   * documents hold a term, which says what reading its postings costs (query/candidates.ts), never
   * what a term weighs (that is `stats`).
   */
  readonly documents: OwnIndex;
  readonly vocabulary: WordIndexes;
  readonly stemmers: readonly Stemmer[];
  /** How many pages hold a completion with the query's other words (forgive.ts; unset: counted here). */
  readonly countTogether?: CountTogether;
};

/** A query parsed, forgiven and weighed. */
export type Plan = {
  readonly typed: ParsedQuery;
  readonly forgiven: Forgiven;
  readonly weights: SlotWeights;
  /** The query's exact scores of documents (0 for one not indexed). */
  readonly exactScores: (ids: ArrayLike<number>) => Float64Array;
};

/** A query ranked (SearchIndex.rank), before near-duplicates fold and a page is cut. */
export type Ranking = {
  readonly plan: Plan;
  readonly lens: Lens;
  /** The best candidates by exact score, best first, before phrase evidence. */
  readonly ranked: readonly Ranked[];
  /** Each of the best RERANK's phrase-evidence factor (its score × it); undefined for a one-word query. */
  readonly evidence: ReadonlyMap<number, number> | undefined;
  readonly total: number;
  /** An exact phrase was checked on the best only: the total is a lower bound. */
  readonly capped: boolean;
  /** No document matched every word: these match some. */
  readonly partial: boolean;
  readonly facets: Facets;
  /** The documents the query read (each once). */
  readonly docs: QueryDocuments;
  /** The bodies' occurrences of the query's terms, of those read for evidence. */
  readonly bodies: ReadonlyMap<number, Occurrences>;
  /** What the console's levers did to each result they touched (SearchOptions.adjust). */
  readonly adjusted?: ReadonlyMap<number, Adjusted>;
};

/**
 * `exact`: no forgiving (no completion of the last word, no typo corrected). `explain`: each hit's
 * score taken apart (query/explain.ts; an index's own answer, not a coordinator's over shards).
 * `synonyms`: the site owner's (query/synonyms.ts), applied below the words themselves — even
 * when `exact`: they are no guess of the search's, the owner asked for them.
 */
export type SearchOptions = {
  readonly page?: number;
  readonly size?: number;
  readonly exact?: boolean;
  readonly explain?: boolean;
  /** The console's levers for this query: pins, hides, sections boosted or buried, what clicks taught (query/adjust.ts). */
  readonly adjust?: Adjustments;
  readonly synonyms?: Synonyms;
};

/** Results on a page when the caller names no size, and the most it may ask for (the API's `size` has the same bounds). */
export const PAGE_SIZE = { default: 10, max: 100 } as const;

/** The page and its size a search is asked for, within their bounds. */
export function pageOf(options: SearchOptions): { readonly page: number; readonly size: number } {
  return { page: Math.max(1, options.page ?? 1), size: Math.min(PAGE_SIZE.max, Math.max(1, options.size ?? PAGE_SIZE.default)) };
}

/** What the search server may see of the index: reading only. */
export interface Searcher {
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  /** The query with its last word completed, most frequent completion first (at most `limit`); none if absent. */
  suggest?(query: string, limit?: number): Promise<string[]>;
  readonly documentCount: number;
  /**
   * Grows with every change that can alter an answer (a page added, replaced or removed, its anchors
   * refreshed): the search server's ETags are made of it, so a repeated search is a 304 until then.
   */
  readonly version: number;
}
