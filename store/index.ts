export { openDb, SCHEMA_VERSION, type Db } from './sqlite/db.ts';
export { DocumentStore, type Change } from './sqlite/documents.ts';
export { acquireLock, LockError, type Lock } from './sqlite/lock.ts';
export type { PageContent, StoredDocument, UrlRecord, UrlState } from '../model/index.ts';
export { AnchorStore, type Anchors } from './sqlite/anchors.ts';
