/**
 * The store: everything Trawl knows durably — the frontier, the documents and their change log,
 * robots.txt, seeds, rejections and inbound link text — behind one interface per concern. The
 * crawler and the indexer depend on these interfaces only; `store/sqlite/` implements them on one
 * SQLite file (the embedded default), and a second backend is one more folder that passes the
 * same contract suite (`store/contract/`).
 *
 * Every method is asynchronous, so that a backend behind a network can implement it; the SQLite
 * one answers at once. Writes that belong together go through one call and one transaction:
 * `enqueue` (links and the rejections of the others) and `commitFetch` (everything one fetch
 * changes).
 */
import type { NewUrl, Outcome, Revisit, StoredDocument } from '../model/index.ts';
import type { SearchLogStore } from './analytics.ts';
import type { SearchReportStore } from './analytics-reports.ts';
import type { AnchorStore } from './anchors.ts';
import type { ArchiveStore } from './archive.ts';
import type { ChangeLog } from './changes.ts';
import type { CurationStore } from './curation.ts';
import type { DocumentStore, TokenSequence } from './documents.ts';
import type { HostStore } from './hosts.ts';
import type { LeaseStore } from './leases.ts';
import type { RejectionStore } from './rejections.ts';
import type { RobotsStore } from './robots.ts';
import type { SeedStore } from './seeds.ts';
import type { UrlStore } from './urls.ts';

/** URLs to queue (each once in its life: the seen-set) and the rejections of the links that were not admitted. */
export type EnqueueBatch = {
  readonly urls: readonly NewUrl[];
  /** Links turned away before the seen-set, by reason. */
  readonly rejected?: ReadonlyMap<string, number>;
};

/** What `enqueue` did: the URLs that were new (in the order given), and their hosts. */
export type EnqueueResult = { readonly added: readonly string[]; readonly hosts: ReadonlySet<string> };

/**
 * Everything one fetch of URL record `id` changes, written all or nothing. Applied in this
 * order: the stored copy leaves (`unindex`) or is recorded as a duplicate, a new copy is stored
 * (`document`) or the old one only touched (`touch`), links are queued, and the record finishes.
 */
export type FetchCommit = {
  readonly id: number;
  readonly outcome: Outcome;
  readonly revisit: Revisit;
  /** The page's stored copy (if any) leaves the store and the index. */
  readonly unindex?: boolean;
  /** The page has the same content as this stored document (the content-seen test). */
  readonly duplicateOf?: number;
  /** The page's new copy, with its token sequence for exact phrases. */
  readonly document?: { readonly doc: StoredDocument; readonly sequence?: TokenSequence };
  /** The stored copy is unchanged: only its fetch time moves to this. */
  readonly touch?: number;
  /** Links found on the page, queued unless seen (each new one records this page as the one it was found on). */
  readonly links?: EnqueueBatch;
};

export type FetchCommitResult = {
  /** The change's sequence number when a document was stored. */
  readonly stored?: number;
  /** The change's sequence number when a stored document was removed. */
  readonly removed?: number;
  /** What queuing the links did. */
  readonly enqueued: EnqueueResult;
  /**
   * Nothing was written: the page was to be stored as new content, but another process stored a
   * document with the same content meanwhile (its content-seen test read before that commit). The
   * caller decides again with this one as the page's same content, and commits that.
   */
  readonly contentSeen?: { readonly id: number; readonly url: string };
};

export interface Store {
  readonly urls: UrlStore;
  readonly hosts: HostStore;
  readonly robots: RobotsStore;
  readonly documents: DocumentStore;
  readonly anchors: AnchorStore;
  readonly changes: ChangeLog;
  readonly seeds: SeedStore;
  readonly rejections: RejectionStore;
  /** Where each URL's latest archived response is (crawler/archive). */
  readonly archive: ArchiveStore;
  /** Which worker fetches from which host, when many share the store (leases.ts). */
  readonly leases: LeaseStore;
  /** What people searched for and chose (analytics.ts). */
  readonly searchLog: SearchLogStore;
  /** The search console's reports over the log (analytics-reports.ts). */
  readonly searchReports: SearchReportStore;
  /** The search's levers, synonyms and rules, with their history (curation.ts). */
  readonly curation: CurationStore;
  /** Opened for reading only: every write refuses. */
  readonly readOnly: boolean;
  /** Where it is, for messages (a file, a database URL without its password). */
  readonly location: string;
  /**
   * Its commit tests a page stored as new content against the documents stored, and gives the
   * fetch up when that content is there (FetchCommitResult.contentSeen): the crawler need not read
   * first. PostgreSQL's must — other processes store pages too — and a read first would be a round
   * trip a page more (bench/scale: 1.01 a page); SQLite's one writer reads, in-process, before it commits.
   */
  readonly testsContentAtCommit?: boolean;
  /** Queues new URLs and counts the rejections, in one transaction. */
  enqueue(batch: EnqueueBatch, now: number): Promise<EnqueueResult>;
  /** Everything one fetch changes, in one transaction. */
  commitFetch(commit: FetchCommit, now: number): Promise<FetchCommitResult>;
  /**
   * Makes every write so far durable. A backend may group the writes of pages handled close
   * together into one transaction (SQLite does, for ~50 ms): a crash loses only that group, whose
   * URLs are fetched again on resume.
   */
  sync(): Promise<void>;
  /** Syncs and closes. Idempotent. */
  close(): Promise<void>;
  /** Whether the store answers, for a store behind a network (absent: always). */
  health?(): StoreHealth;
}

/** A store behind a network as last seen: up, or down since when (ms) and why. */
export type StoreHealth = { readonly up: boolean; readonly downSince?: number; readonly error?: string };

/** A store that cannot be opened as asked: missing, written by a newer Trawl, too old for a reader. */
export class StoreOpenError extends Error {
  readonly code = 'ERR_STORE_OPEN';
}

/**
 * A store location that cannot be used: not a URL Trawl knows, or no database answering there
 * (refused, unknown host, wrong credentials, no such database). The user's input: exit code 2. Its
 * message never holds a password.
 */
export class StoreLocationError extends Error {
  readonly code = 'ERR_STORE_LOCATION';
}

/** A write on a store opened read-only. */
export class ReadOnlyStoreError extends Error {
  readonly code = 'ERR_STORE_READ_ONLY';
}

export type { AnchorStore, ChangeLog, DocumentStore, HostStore, LeaseStore, RejectionStore, RobotsStore, SeedStore, TokenSequence, UrlStore };
