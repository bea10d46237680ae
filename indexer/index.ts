/** The indexer's public face. */
export { SearchIndex, type DocumentLookup, type Searcher, type SearchHit, type SearchOptions, type SearchResponse } from './search-index.ts';
export { flushIndex, loadIndex, readManifest, IndexFormatError, INDEX_FORMAT, type FlushInfo, type Manifest } from './persist.ts';
export { parseQuery, QueryError, MAX_QUERY_LENGTH, MAX_QUERY_TERMS, type ParsedQuery } from './query.ts';
export { escapeHtml, makeSnippet } from './snippet.ts';
export { currentStemming, fold, setStemming, tokenize, type Stemming } from './tokenize.ts';
export { analyze, isAnalysis, type Analysis } from './analyze.ts';
