export { Frontier, type FrontierCounts, type Outcome, type QueuedUrl } from './frontier.ts';
export { HostScheduler, type HostPolicy, type HostView } from './hosts.ts';
export { SeenCache } from './seen-cache.ts';
