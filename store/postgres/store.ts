/**
 * The PostgreSQL store: the same interfaces as the embedded SQLite one, over a database that many
 * Trawl processes — crawlers on several machines, search nodes — share (issue 22). It passes the
 * same contract suite (store/contract/).
 *
 * What differs from SQLite, and why:
 * - Group commit without a window: the fetches handed over while a commit runs share the next
 *   transaction, one statement per table for all (group-commit.ts); each is durable when its
 *   `commitFetch` resolves, so a worker that dies loses nothing it was told was written. `sync()`
 *   waits for the commits handed over so far.
 * - Nothing is counted in RAM: other processes change the tables.
 * - The schema is migrated by numbered steps recorded in the database (migrations.ts).
 */
import type pg from 'pg';
import type { EnqueueBatch, EnqueueResult, FetchCommit, FetchCommitResult, Store } from '../store.ts';
import { PgSearchLog } from './analytics.ts';
import { PgSearchReports } from './analytics-reports.ts';
import { PgAnchorStore } from './anchors.ts';
import { PgChangeLog } from './changes.ts';
import { PgCurationStore } from './curation.ts';
import { connect, createPool, healthOf, redactLocation, type PostgresOptions, type StoreHealth } from './db.ts';
import { PgDocumentStore, StoredHints } from './documents.ts';
import { GroupCommit } from './group-commit.ts';
import { TableStatistics } from './statistics.ts';
import { PgHostStore } from './hosts.ts';
import { PgLeaseStore } from './leases.ts';
import { checkReadable, migrate, type MigrationReport } from './migrations.ts';
import { enqueueBatch } from './seen.ts';
import { PgArchiveStore, PgRejectionStore, PgRobotsStore, PgSeedStore } from './small-stores.ts';
import { PgUrlStore } from './urls.ts';

/**
 * Opens the store at a `postgres://` URL. A writer creates and migrates the schema; a reader
 * (`readOnly`) writes nothing and refuses a database without a current Trawl schema
 * (StoreOpenError, "no crawl in …"). A malformed URL or a server that does not answer is a
 * StoreLocationError.
 */
export async function openPostgresStore(location: string, options: PostgresOptions = {}): Promise<PostgresStore> {
  const pool = createPool(location, options);
  try {
    await connect(pool, location);
    const migrated = options.readOnly ? undefined : await migrate(pool, location);
    if (options.readOnly) await checkReadable(pool, location);
    return new PostgresStore(pool, redactLocation(location), options.readOnly === true, migrated);
  } catch (e) {
    await pool.end().catch(() => undefined);
    throw e;
  }
}

export class PostgresStore implements Store {
  readonly urls: PgUrlStore;
  readonly hosts: PgHostStore;
  readonly robots: PgRobotsStore;
  readonly documents: PgDocumentStore;
  readonly anchors: PgAnchorStore;
  readonly changes: PgChangeLog;
  readonly seeds: PgSeedStore;
  readonly rejections: PgRejectionStore;
  readonly archive: PgArchiveStore;
  readonly leases: PgLeaseStore;
  readonly searchLog: PgSearchLog;
  readonly searchReports: PgSearchReports;
  readonly curation: PgCurationStore;
  /** The group commit tests new content under a lock on its hash (group-commit.ts). */
  readonly testsContentAtCommit = true;
  /** Whether the pages of URLs taken are stored, as their take read it (documents.ts). */
  private readonly stored = new StoredHints();
  /** Fetches' commits, grouped. */
  readonly group: GroupCommit;
  /** The planner's statistics of the growing tables (a writer's). */
  readonly statistics: TableStatistics | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    readonly pool: pg.Pool,
    /** The database's URL without its password. */
    readonly location: string,
    readonly readOnly: boolean,
    /** What opening it migrated (a writer). */
    readonly migrated?: MigrationReport,
  ) {
    this.urls = new PgUrlStore(pool, this.stored);
    this.hosts = new PgHostStore(pool);
    this.robots = new PgRobotsStore(pool);
    // (A writer keeps the planner's statistics of the tables it grows current: statistics.ts.)
    this.statistics = readOnly ? undefined : new TableStatistics(pool);
    this.group = new GroupCommit(pool, this.statistics);
    this.documents = new PgDocumentStore(pool, this.group, this.stored);
    this.anchors = new PgAnchorStore(pool);
    this.changes = new PgChangeLog(pool);
    this.seeds = new PgSeedStore(pool);
    this.rejections = new PgRejectionStore(pool);
    this.archive = new PgArchiveStore(pool);
    this.leases = new PgLeaseStore(pool);
    this.searchLog = new PgSearchLog(pool);
    this.searchReports = new PgSearchReports(pool);
    this.curation = new PgCurationStore(pool);
  }

  async enqueue(batch: EnqueueBatch, now: number): Promise<EnqueueResult> {
    // One statement: a transaction by itself.
    return enqueueBatch(this.pool, batch, now);
  }

  /**
   * One fetch's changes, all or nothing, in the transaction of the next group commit
   * (group-commit.ts, which says how the content-seen test is made again there).
   */
  async commitFetch(c: FetchCommit, now: number): Promise<FetchCommitResult> {
    // (What the take read of its page holds no more.)
    this.stored.take(c.id);
    return this.group.commit(c, now);
  }

  /** Down while statements wait for a server that stopped answering (db.ts outlast). */
  health(): StoreHealth {
    return healthOf(this.pool);
  }

  /** Waits for the commits handed over so far (each is durable when its commitFetch resolves). */
  async sync(): Promise<void> {
    await this.group.settled();
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        await this.group.settled();
        await this.statistics?.settled();
        if (!this.readOnly) await this.anchors.write();
      } finally {
        await this.pool.end();
      }
    })();
    return this.closing;
  }
}
