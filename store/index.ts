export { openDb, SCHEMA_VERSION, type Db } from './db.ts';
export { DocumentStore, type Change } from './documents.ts';
export { acquireLock, LockError, type Lock } from './lock.ts';
export type { PageContent, StoredDocument, UrlRecord, UrlState } from './types.ts';
export { AnchorStore, type Anchors } from './anchors.ts';
