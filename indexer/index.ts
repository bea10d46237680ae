/** The indexer's public face. */
export {
  SearchIndex,
  type AnchorLookup,
  type DocumentLookup,
  type Searcher,
  type SearchHit,
  type SearchOptions,
  type SearchResponse,
  type SequenceLookup,
  type ShardsAnswered,
} from './search-index.ts';
export { flushIndex, loadIndex, readManifest, IndexFormatError, INDEX_FORMAT, type FlushInfo, type Manifest } from './persistence/snapshot.ts';
export { parseQuery, QueryError, MAX_QUERY_LENGTH, MAX_QUERY_TERMS, type ParsedQuery } from './query/parse.ts';
export { escapeHtml, makeSnippet } from './query/snippet.ts';
export { Synonyms, SYNONYM_FACTOR, type AppliedSynonym } from './query/synonyms.ts';
export type { ScoreExplained, WordExplained } from './query/explain.ts';
export { PINNED_SCORE, type Adjusted, type Adjustments } from './query/adjust.ts';
export { PAGE_SIZE } from './search-types.ts';
export { analysisTag, currentStemming, fold, setStemming, tokenize, type Stemming } from './ingest/tokenize.ts';
export { analyze, isAnalysis, type Analysis } from './ingest/analyze.ts';
