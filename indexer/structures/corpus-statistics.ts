/**
 * What ranking reads of the corpus: the figures BM25F and forgiving search are made of — the
 * document count, each term's id and document frequency, its IDF, and the impact function with
 * the fields' length norms (bm25f.ts). Query code (indexer/query, search-index.ts) reads the
 * corpus through this interface only, so a statistic it comes to read is one every
 * implementation must give — the compiler says so:
 *
 * - a query's view of this index (index-view.ts): its own figures, as of the query's start;
 * - on a shard of a cluster, the whole corpus's figures as its coordinator gathered them
 *   (shards/replay.ts `GatheredStatistics`), or this index's own, each lookup noted for the
 *   coordinator (shards/record.ts `RecordingStatistics`).
 *
 * What is not here is always this index's own: its documents' vectors and sources (index-view.ts
 * `IndexedDocuments`), its postings and impact lists.
 */
import type { ImpactFunction } from './bm25f.ts';

export interface CorpusStatistics {
  /** Documents in the corpus (BM25's N). */
  readonly documentCount: number;
  /**
   * The term's id, undefined when the corpus does not know it. For a term this index holds, the id
   * is this index's (a shard's view gives the others ids of their own, above all of this index's):
   * an id can be looked up in this index's vectors, postings and impact lists.
   */
  termId(term: string): number | undefined;
  /** The term of an id this gave ('' for one it never gave). */
  term(termId: number): string;
  /** Documents of the corpus holding the term. */
  docFrequency(term: string): number;
  docFrequencyOf(termId: number): number;
  /** The term's inverse document frequency, as BM25 weighs it (bm25f.ts `idf`). */
  idf(termId: number): number;
  /** What a term adds to a document's score before its IDF, with the corpus's length norms (bm25f.ts). */
  impactFunction(): ImpactFunction;
}
