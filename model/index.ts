/**
 * The domain model: the types every stage shares (URLs and their states, documents, the error
 * vocabulary, what Trawl reports about itself). It imports nothing outside this folder.
 */
export * from './documents.ts';
export * from './errors.ts';
export * from './status.ts';
export * from './urls.ts';
export * from './analytics.ts';
export * from './curation.ts';
