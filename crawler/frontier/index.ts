export { Frontier, type PickOptions } from './frontier.ts';
export { clampInterval, hintedInterval, nextInterval, type FreshnessHints, type RevisitChange, type RevisitPolicy } from './revisit.ts';
export { HostScheduler, type HostPolicy } from './hosts.ts';
export { SeenCache } from './seen-cache.ts';
export { WorkerLeases, type SharedFrontier } from './leases.ts';
