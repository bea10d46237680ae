/**
 * The PostgreSQL store: the same interfaces as the embedded SQLite one, over a database that many
 * Trawl processes — crawlers on several machines, search nodes — share (issue 22). It passes the
 * same contract suite (store/contract/).
 *
 * What differs from SQLite, and why:
 * - Every commit is its own transaction, durable when it resolves (no group commit: PostgreSQL
 *   commits concurrent transactions together by itself, and a worker that dies loses nothing it
 *   was told was written). `sync()` has nothing left to do.
 * - Nothing is counted in RAM: other processes change the tables.
 * - The schema is migrated by numbered steps recorded in the database (migrations.ts).
 */
import type pg from 'pg';
import type { EnqueueBatch, EnqueueResult, FetchCommit, FetchCommitResult, Store } from '../store.ts';
import { PgAnchorStore } from './anchors.ts';
import { logChanges, PgChangeLog } from './changes.ts';
import { connect, createPool, healthOf, redactLocation, run, transaction, type PostgresOptions, type StoreHealth } from './db.ts';
import { addDuplicate, PgDocumentStore, putDocument, removeDocument, touchDocument } from './documents.ts';
import { PgHostStore } from './hosts.ts';
import { PgLeaseStore } from './leases.ts';
import { checkReadable, migrate, type MigrationReport } from './migrations.ts';
import { enqueueBatch } from './seen.ts';
import { PgArchiveStore, PgRejectionStore, PgRobotsStore, PgSeedStore } from './small-stores.ts';
import { finishUrl, PgUrlStore } from './urls.ts';

const NOTHING_QUEUED: EnqueueResult = { added: [], hosts: new Set() };

/** A commit given up: another process stored the same content first (see commitFetch). */
class ContentSeen {
  constructor(readonly doc: { readonly id: number; readonly url: string }) {}
}

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
  private closing: Promise<void> | undefined;

  constructor(
    readonly pool: pg.Pool,
    /** The database's URL without its password. */
    readonly location: string,
    readonly readOnly: boolean,
    /** What opening it migrated (a writer). */
    readonly migrated?: MigrationReport,
  ) {
    this.urls = new PgUrlStore(pool);
    this.hosts = new PgHostStore(pool);
    this.robots = new PgRobotsStore(pool);
    this.documents = new PgDocumentStore(pool);
    this.anchors = new PgAnchorStore(pool);
    this.changes = new PgChangeLog(pool);
    this.seeds = new PgSeedStore(pool);
    this.rejections = new PgRejectionStore(pool);
    this.archive = new PgArchiveStore(pool);
    this.leases = new PgLeaseStore(pool);
  }

  async enqueue(batch: EnqueueBatch, now: number): Promise<EnqueueResult> {
    // One statement: a transaction by itself.
    return enqueueBatch(this.pool, batch, now);
  }

  /**
   * One fetch's changes in one transaction, in the order FetchCommit gives. The change log is
   * written last, so that the head of the log (changes.ts) is locked only for the commit itself.
   *
   * The crawler's content-seen test reads before this commit, so two workers fetching the same
   * content at once would both store it: a page stored as new content first takes a lock on its
   * hash (an advisory lock, released at the commit) and looks again; content another process
   * stored meanwhile gives the commit up (`contentSeen`), and the crawler records a duplicate.
   */
  async commitFetch(c: FetchCommit, now: number): Promise<FetchCommitResult> {
    return this.commitOnce(c, now).catch((e: unknown) => {
      if (e instanceof ContentSeen) return { enqueued: NOTHING_QUEUED, contentSeen: e.doc };
      throw e;
    });
  }

  private commitOnce(c: FetchCommit, now: number): Promise<FetchCommitResult> {
    return transaction(this.pool, async (q) => {
      const fresh = c.document && c.duplicateOf === undefined && c.document.doc.text ? c.document.doc : undefined;
      if (fresh) {
        await run(q, 'SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [fresh.hash]);
        const same = (await run<{ id: number; url: string }>(q, 'SELECT id, url FROM documents WHERE hash = $1 ORDER BY id LIMIT 1', [fresh.hash])).rows[0];
        if (same && same.id !== c.id) throw new ContentSeen(same);
      }
      const changes: { docId: number; op: 'put' | 'remove' }[] = [];
      if (c.unindex && (await removeDocument(q, c.id))) changes.push({ docId: c.id, op: 'remove' });
      if (c.duplicateOf !== undefined) await addDuplicate(q, c.id, c.duplicateOf);
      if (c.document) {
        await putDocument(q, c.document.doc, c.document.sequence);
        changes.push({ docId: c.document.doc.id, op: 'put' });
      }
      if (c.touch !== undefined) await touchDocument(q, c.id, c.touch);
      const enqueued = c.links ? await enqueueBatch(q, c.links, now) : NOTHING_QUEUED;
      await finishUrl(q, c.id, { outcome: c.outcome, revisit: c.revisit }, now);
      const seqs = await logChanges(q, changes);
      const removed = changes[0]?.op === 'remove' ? seqs[0] : undefined;
      const stored = c.document ? seqs.at(-1) : undefined;
      return { ...(stored !== undefined ? { stored } : {}), ...(removed !== undefined ? { removed } : {}), enqueued };
    });
  }

  /** Down while statements wait for a server that stopped answering (db.ts outlast). */
  health(): StoreHealth {
    return healthOf(this.pool);
  }

  /** Every commit is durable when it resolves: nothing waits here. */
  async sync(): Promise<void> {}

  async close(): Promise<void> {
    this.closing ??= (async () => {
      try {
        if (!this.readOnly) await this.anchors.write();
      } finally {
        await this.pool.end();
      }
    })();
    return this.closing;
  }
}
