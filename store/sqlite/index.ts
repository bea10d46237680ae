/** The SQLite store (the embedded default) and the data directory's writer lock. */
export { DB_FILE, openSqliteStore, SqliteStore, type SqliteStoreOptions } from './store.ts';
export { fileSchemaVersion, openDb, SCHEMA_VERSION, StoreOpenError, type Db } from './db.ts';
export { acquireLock, LockError, type Lock } from './lock.ts';
