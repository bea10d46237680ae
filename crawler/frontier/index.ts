export { Frontier, REMOVED_BY_ADMIN, type FrontierCounts, type Outcome, type PickOptions, type QueuedUrl, type Revisit, type Target } from './frontier.ts';
export { clampInterval, hintedInterval, nextInterval, type FreshnessHints, type RevisitChange, type RevisitPolicy } from './revisit.ts';
export { HostScheduler, type HostPolicy, type HostView } from './hosts.ts';
export { SeenCache } from './seen-cache.ts';
