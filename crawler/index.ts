/** The crawler's public face: the crawler, its frontier's adapters, and the stages the orchestrator wires into it. */
export { Crawler } from './crawler.ts';
export type { CrawlerDeps, CrawlerEvents, CrawlerLimits, FetchArchive, IndexSink, RevisitMode } from './types.ts';
export type { FetchEvent } from '../model/index.ts';
export { Fetcher, type FetchResult, type PageFetcher } from './fetch/index.ts';
// (From the modules themselves, not parse/index.ts: the parsers load only when a page is parsed here.)
export { defaultParseWorkers, ParsePool, type PageParser } from './parse/pool.ts';
export {
  type Frontier,
  HostScheduler,
  type HostPolicy,
  HostUrls,
  LeasedFrontier,
  LocalFrontier,
  type LocalFrontierOptions,
  type PickOptions,
  type RevisitPolicy,
  type SharedFrontier,
} from './frontier/index.ts';
export { ERRORS, decide, type ErrorCode, type RetryPolicy } from './errors.ts';
export { StatsRecorder, type CrawlStats } from './stats.ts';
export { productToken, RobotsCache, type RobotsSource } from './robots/index.ts';
export { admit, buildScope, createNormalizer, defaultFilters, parseHostAlias, type UrlFilter, type UrlPolicy } from './urls/index.ts';
