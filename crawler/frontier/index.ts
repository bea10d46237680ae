export { Frontier, type FrontierCounts, type Outcome, type QueuedUrl } from './frontier.ts';
export { HostScheduler, type HostPolicy } from './hosts.ts';
