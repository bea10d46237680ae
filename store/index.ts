/**
 * The store's interfaces: what the crawler, the indexer and the orchestrator may depend on. The
 * implementations are adapters in their own folders (store/sqlite/), wired by the orchestrator.
 */
export { MAX_ANCHOR_TEXT, MAX_ANCHORS_READ, type AnchorStore } from './anchors.ts';
export type { SearchLogStore } from './analytics.ts';
export type { SearchReportStore } from './analytics-reports.ts';
export type { ArchiveRef, ArchiveStore } from './archive.ts';
export type { ChangeLog } from './changes.ts';
export { MAX_CURATION_HISTORY, type CurationStore } from './curation.ts';
export type { DocumentStore, TokenSequence } from './documents.ts';
export type { HostStore } from './hosts.ts';
export type { ClaimOptions, HostLease, LeaseStore, WorkerBeat, WorkerView } from './leases.ts';
export type { RejectionStore } from './rejections.ts';
export type { RobotsEntry, RobotsStore } from './robots.ts';
export type { SeedStore } from './seeds.ts';
export {
  ReadOnlyStoreError,
  StoreLocationError,
  StoreOpenError,
  type EnqueueBatch,
  type EnqueueResult,
  type FetchCommit,
  type FetchCommitResult,
  type Store,
  type StoreHealth,
} from './store.ts';
export { BROKEN_LINK_STATUSES, type Finish, type TakeKind, type TakeOptions, type Taken, type UrlStore } from './urls.ts';
