/**
 * Which backend holds the crawl: the one place that knows both adapters. A location is a data
 * directory (SQLite's crawl.db in it, the embedded default) or a `postgres://` URL (a database many
 * Trawl processes share: config `store`, TRAWL_STORE, --store).
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/schema.ts';
import type { Log } from '../lib/log.ts';
import type { Store } from '../store/index.ts';
import { acquireLock, DB_FILE, fileSchemaVersion, openSqliteStore, SCHEMA_VERSION as SQLITE_SCHEMA_VERSION, type SqliteStore } from '../store/sqlite/index.ts';

/**
 * A URL names a database; anything else is a data directory. (Any scheme goes to the PostgreSQL
 * adapter, which refuses those it does not speak in one line — never a directory named `mysql:`.)
 */
const isDatabaseUrl = (location: string): boolean => /^[a-z][a-z0-9+.-]*:\/\//i.test(location);

/** The PostgreSQL backend, loaded when a database is named: a crawl on SQLite starts without `pg` (issue 23). */
const postgres = () => import('../store/postgres/index.ts');

/** Where a config keeps its crawl: its `store` URL, else its data directory. */
export const storeLocationOf = (config: Readonly<Config>): string => config.store ?? config.dataDir;

export type OpenStoreOptions = {
  /** A reader (search, serve, export): nothing is created, migrated or written. */
  readonly readOnly?: boolean;
  /** A database's connections at most, and how long connecting may take (cluster.*). */
  readonly poolSize?: number;
  readonly connectTimeoutMs?: number;
  /** How long a database that stopped answering is waited for (cluster.outageRetry). */
  readonly outageRetryMs?: number;
  /** Where the store tells what it cannot do as it should (a SQLite writer's checkpointer failing). */
  readonly log?: Log;
};

/**
 * Opens the store at `location`: a writer creates and migrates it, a reader refuses one without a
 * crawl (StoreOpenError "no crawl in …"). A `postgres://` URL that is malformed or whose server
 * does not answer is a StoreLocationError (exit code 2), whose message holds no password.
 */
export async function openStore(location: string, options: OpenStoreOptions = {}): Promise<Store> {
  if (isDatabaseUrl(location)) return (await postgres()).openPostgresStore(location, { ...options, readOnly: options.readOnly === true });
  // A SQLite writer checkpoints its WAL on a worker thread: the main thread answers searches (issue 23).
  return openSqliteStore(location, { readOnly: options.readOnly === true, checkpoints: { log: options.log } });
}

/** What `trawl db migrate` did: where, the schema version now, and the steps applied. */
export type MigrateReport = { readonly location: string; readonly version: number; readonly applied: readonly string[] };

/** Creates or migrates the store at `location` (what every writer does when it opens it), and closes it. */
export async function migrateStore(location: string): Promise<MigrateReport> {
  if (isDatabaseUrl(location)) {
    const { openPostgresStore, redactLocation, SCHEMA_VERSION: PG_SCHEMA_VERSION } = await postgres();
    const store = await openPostgresStore(location);
    await store.close();
    return { location: redactLocation(location), version: PG_SCHEMA_VERSION, applied: store.migrated?.applied ?? [] };
  }
  const before = fileSchemaVersion(join(location, DB_FILE));
  mkdirSync(location, { recursive: true });
  // (Not under a live crawl's feet: the data directory's writer lock, as every writer takes it.)
  const lock = acquireLock(location, 'db migrate');
  let store: SqliteStore;
  try {
    store = openSqliteStore(location);
    await store.close();
  } finally {
    lock.release();
  }
  const applied =
    before === 0 ? [`created at schema ${SQLITE_SCHEMA_VERSION}`] : before < SQLITE_SCHEMA_VERSION ? [`schema ${before} → ${SQLITE_SCHEMA_VERSION}`] : [];
  return { location: store.location, version: SQLITE_SCHEMA_VERSION, applied };
}
