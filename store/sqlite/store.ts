/**
 * The SQLite store: one file per data directory (`crawl.db`, WAL), the embedded default. Its
 * writes are synchronous underneath (better-sqlite3); the interface is asynchronous so that other
 * backends can implement it.
 *
 * Group commit: everything one fetch changes is written together, all or nothing (a failing page
 * rolls back its savepoint only), in a transaction shared by the pages handled within
 * GROUP_COMMIT_MS, so that many pages pay for one commit (a commit was ~0.15 ms a page, a tenth of
 * the crawl's main thread). A crash loses the pages of the open group: their URLs are fetched again
 * on resume, like those in flight. `sync()` ends the group at once.
 */
import { SqliteSearchLog } from './analytics.ts';
import { SqliteSearchReports } from './analytics-reports.ts';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { EnqueueBatch, EnqueueResult, FetchCommit, FetchCommitResult, Store } from '../store.ts';
import { SqliteAnchorStore } from './anchors.ts';
import { SqliteCurationStore } from './curation.ts';
import { SqliteChangeLog } from './changes.ts';
import { openDb, StoreOpenError, type Db } from './db.ts';
import { SqliteDocumentStore } from './documents.ts';
import { SqliteHostStore } from './hosts.ts';
import { SqliteLeaseStore } from './leases.ts';
import { SqliteArchiveStore } from './archive.ts';
import { WalCheckpointer, type CheckpointerOptions } from './checkpointer.ts';
import { SqliteRejectionStore, SqliteRobotsStore, SqliteSeedStore } from './small-stores.ts';
import { SqliteUrlStore, UrlCounters } from './urls.ts';

/** The crawl database's file name in a data directory. */
export const DB_FILE = 'crawl.db';

/** How long a group transaction stays open at most. */
const GROUP_COMMIT_MS = 50;

const NOTHING_QUEUED: EnqueueResult = { added: [], hosts: new Set() };

export type SqliteStoreOptions = {
  /** Open an existing crawl for reading only (trawl search, serve, export): nothing is created or written. */
  readonly readOnly?: boolean;
  /**
   * A writer's WAL checkpoints made on a worker thread (checkpointer.ts), not in the commits of
   * the thread that answers searches: what the crawling appliance asks for. Ignored by a reader.
   */
  readonly checkpoints?: CheckpointerOptions;
};

/**
 * Opens the store of a data directory. A writer creates the database if needed; a reader refuses a
 * directory that holds no crawl (StoreOpenError, "no crawl in DIR") and creates nothing.
 */
export function openSqliteStore(dataDir: string, options: SqliteStoreOptions = {}): SqliteStore {
  const file = join(dataDir, DB_FILE);
  if (options.readOnly && !existsSync(file))
    throw new StoreOpenError(`no crawl in ${dataDir}: there is no ${DB_FILE} there (crawl first: trawl crawl URL --data ${dataDir})`);
  const readOnly = options.readOnly === true;
  return new SqliteStore(openDb(file, { readOnly }), file, readOnly, options.checkpoints);
}

export class SqliteStore implements Store {
  readonly urls: SqliteUrlStore;
  readonly hosts: SqliteHostStore;
  readonly robots: SqliteRobotsStore;
  readonly documents: SqliteDocumentStore;
  readonly anchors: SqliteAnchorStore;
  readonly changes: SqliteChangeLog;
  readonly seeds: SqliteSeedStore;
  readonly rejections: SqliteRejectionStore;
  readonly archive: SqliteArchiveStore;
  readonly leases: SqliteLeaseStore;
  readonly searchLog: SqliteSearchLog;
  readonly searchReports: SqliteSearchReports;
  readonly curation: SqliteCurationStore;
  /** A group transaction is open, committed by its timer or sync(). */
  private group = false;
  private groupTimer: NodeJS.Timeout | undefined;
  private closed = false;
  /** The writer's checkpoints on a worker thread, when asked for. */
  readonly checkpointer: WalCheckpointer | undefined;

  constructor(
    readonly db: Db,
    readonly location: string,
    readonly readOnly: boolean,
    checkpoints?: CheckpointerOptions,
  ) {
    const counters = new UrlCounters(db);
    // (Recovery leaves the URLs of leased hosts to their leases.)
    this.urls = new SqliteUrlStore(db, counters, () => this.leases.leasedHosts());
    this.hosts = new SqliteHostStore(db, counters);
    this.leases = new SqliteLeaseStore(db, this.hosts, counters);
    this.robots = new SqliteRobotsStore(db);
    this.changes = new SqliteChangeLog(db, location);
    this.documents = new SqliteDocumentStore(db, this.changes);
    this.anchors = new SqliteAnchorStore(db);
    this.seeds = new SqliteSeedStore(db);
    this.rejections = new SqliteRejectionStore(db);
    this.archive = new SqliteArchiveStore(db);
    this.searchLog = new SqliteSearchLog(db);
    this.searchReports = new SqliteSearchReports(db);
    // (A lever pulled is committed at once, with the pages of the group open then: not 50 ms later.)
    this.curation = new SqliteCurationStore(db, () => this.commitGroup());
    if (checkpoints && !readOnly) this.checkpointer = new WalCheckpointer(db, location, checkpoints);
  }

  async enqueue(batch: EnqueueBatch, now: number): Promise<EnqueueResult> {
    return this.db.transaction(() => this.enqueueNow(batch, now))();
  }

  async commitFetch(c: FetchCommit, now: number): Promise<FetchCommitResult> {
    return this.inGroup(() => {
      const removed = c.unindex ? this.documents.removeNow(c.id) : undefined;
      if (c.duplicateOf !== undefined) this.documents.addDuplicateNow(c.id, c.duplicateOf);
      const stored = c.document ? this.documents.putNow(c.document.doc, c.document.sequence) : undefined;
      if (c.touch !== undefined) this.documents.touchNow(c.id, c.touch);
      const enqueued = c.links ? this.enqueueNow(c.links, now, c.id) : NOTHING_QUEUED;
      this.urls.finishNow(c.id, { outcome: c.outcome, revisit: c.revisit }, now);
      return { ...(stored !== undefined ? { stored } : {}), ...(removed !== undefined ? { removed } : {}), enqueued };
    });
  }

  async sync(): Promise<void> {
    this.commitGroup();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.commitGroup();
    if (!this.readOnly) this.anchors.writeNow();
    // The worker's connection goes first: closing the last one, the writer's, copies what is left
    // of the WAL into the database file and removes it, as it does without a checkpointer.
    await this.checkpointer?.close();
    this.db.close();
  }

  /** True until close(). */
  get open(): boolean {
    return !this.closed;
  }

  /**
   * Queues the new URLs and counts the rejections (the seen-set's own as 'already-seen'), in the
   * caller's transaction; the new ones record the page they were found on, when they come from one.
   */
  private enqueueNow(batch: EnqueueBatch, now: number, foundOn?: number): EnqueueResult {
    const result = this.urls.insert(batch.urls, now, foundOn);
    const seen = batch.urls.length - result.added.length;
    const reasons = new Map(batch.rejected ?? []);
    // The seen-set is the last filter: its rejections are counted like the others'.
    if (seen) reasons.set('already-seen', (reasons.get('already-seen') ?? 0) + seen);
    this.rejections.countNow(reasons);
    return result;
  }

  private inGroup<T>(fn: () => T): T {
    if (!this.db.inTransaction) {
      this.db.exec('BEGIN');
      this.group = true;
      this.groupTimer = setTimeout(() => this.commitGroup(), GROUP_COMMIT_MS);
    }
    return this.db.transaction(fn)();
  }

  private commitGroup(): void {
    clearTimeout(this.groupTimer);
    this.groupTimer = undefined;
    if (!this.group) return;
    this.group = false;
    if (this.db.inTransaction) this.db.exec('COMMIT');
    this.checkpointer?.afterCommit();
  }
}
