export { Frontier, REMOVED_BY_ADMIN, type FrontierCounts, type Outcome, type QueuedUrl, type Target } from './frontier.ts';
export { HostScheduler, type HostPolicy, type HostView } from './hosts.ts';
export { SeenCache } from './seen-cache.ts';
