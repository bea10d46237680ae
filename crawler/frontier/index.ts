export type { AnchorBatch, Frontier, FrontierItem, FrontierRun, Next, RequestEnd, RevisitMode, UrlCommit } from './frontier.ts';
export { PUT_BACK } from './frontier.ts';
export { LocalFrontier, type LocalFrontierOptions } from './local/local-frontier.ts';
export { LeasedFrontier, type LeasedFrontierOptions } from './leased/leased-frontier.ts';
export { type SharedFrontier, WorkerLeases } from './leased/leases.ts';
export { HostUrls, type PickOptions, TAKE_AHEAD } from './host-urls.ts';
export { clampInterval, hintedInterval, nextInterval, type FreshnessHints, type RevisitChange, type RevisitPolicy } from './revisit.ts';
export { HostScheduler, type HostPolicy } from './hosts.ts';
export { SeenCache } from './seen-cache.ts';
