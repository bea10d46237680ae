/**
 * What the search server is given (`UiDeps`): the searcher, the status, the admin actions, the
 * logger, and the server's settings. The settings the config always gives (config/schema.ts:
 * `server.maxEventStreams`, `server.apiRate`, `server.host` and `server.allowedHosts`, `server.corsOrigins`) are
 * required, so that their defaults live in the schema alone; the limits the config does not hold
 * are the named constants below.
 */
import type {
  ApplianceStatus,
  CurationChange,
  SearchRules,
  DayReport,
  LoggedSearch,
  QueryDetail,
  QueryListing,
  QueryReport,
  RefinementReport,
  ReportRange,
  ShardStatus,
  SynonymSuggestion,
  UrlExplanation,
} from '../model/index.ts';
import type { ShardNode } from '../indexer/shards/index.ts';
import type { Searcher } from '../indexer/index.ts';
import type { Log } from '../lib/log.ts';
import type { AdminActions } from './routes/admin.ts';
import type { ServerAuth } from './access.ts';
import type { HostPolicy } from './guards.ts';

/** How often /api/events sends the status, unless `eventIntervalMs` says otherwise. */
export const EVENT_INTERVAL_MS = 1000;

/**
 * The search log as the server feeds it (appliance/search-log.ts): a search to log, its id
 * answered at once (it is written later, in a batch); a click checked against what its search showed.
 */
export type SearchAnalytics = {
  record(search: Omit<LoggedSearch, 'id' | 'at' | 'prefixes'>): string;
  click(c: { readonly searchId: string; readonly position: number; readonly url: string }): Promise<'counted' | 'repeated' | 'unknown-search' | 'not-shown'>;
};

/** The search console's reports (appliance/search-reports.ts): /console and /api/analytics/*. */
export type SearchConsoleReports = {
  queries(range: ReportRange, limit: number, listing?: QueryListing): Promise<readonly QueryReport[]>;
  days(range: ReportRange): Promise<readonly DayReport[]>;
  refinements(range: ReportRange, limit: number): Promise<readonly RefinementReport[]>;
  suggestions(range: ReportRange, limit: number): Promise<readonly SynonymSuggestion[]>;
  query(query: string, range: ReportRange): Promise<QueryDetail>;
  /** The log's clock: a report's default range ends at its now, included. */
  now(): number;
};

/**
 * The search's levers (appliance/curation.ts): the synonyms and the rules as they are, replaced
 * (a change refused answers its reason), and their history. `by`: who (console-access.ts `who`).
 */
export type SearchLevers = {
  current(): { readonly synonyms: readonly string[]; readonly rules: SearchRules };
  putSynonyms(lines: readonly string[], by: string): Promise<{ readonly error: string } | undefined>;
  putRules(rules: SearchRules, by: string): Promise<{ readonly error: string } | undefined>;
  history(limit: number): Promise<readonly CurationChange[]>;
};

export type UiDeps = {
  readonly searcher: Searcher;
  readonly status: () => Promise<ApplianceStatus>;
  readonly version: string;
  /** Where the server reports what went wrong inside it (a 500): the appliance's logger. */
  readonly log: Log;
  /** Server-sent event streams open at once (server.maxEventStreams); beyond, 503. */
  readonly maxEventStreams: number;
  /** The names the server answers to (server.host and server.allowedHosts); others get 421. */
  readonly hosts: HostPolicy;
  /** server.corsOrigins: the origins whose pages may call /api/search and /api/suggest (cors.ts). */
  readonly corsOrigins: readonly string[];
  /** server.auth: the search, the API and the dashboard behind a login. */
  readonly serverAuth?: ServerAuth | undefined;
  /** What Trawl knows of a URL (/api/document, the dashboard's lookup). */
  readonly explain?: (url: string) => Promise<UrlExplanation>;
  /** Whether the store answers (a database can be away): /healthz says 503 while it does not. */
  readonly storeHealth?: () => { readonly up: boolean; readonly downSince?: number; readonly error?: string };
  /** The admin actions; they are on only with `adminToken` too. */
  readonly admin?: AdminActions;
  readonly adminToken?: string | undefined;
  /** Requests per second (and twice that at once) that one address may make to /api/* (server.apiRate). */
  readonly apiRate: number;
  /** How often /api/events sends the status, in ms (default EVENT_INTERVAL_MS; tests make it quick). */
  readonly eventIntervalMs?: number;
  /** Process metrics (CPU, heap, event loop, GC) in /metrics; on unless turned off. */
  readonly processMetrics?: boolean;
  /** This server's index as a coordinator asks it (/api/shard/*: routes/shard.ts); absent: it holds none. */
  readonly shard?: ShardNode;
  /** The search log (analytics.enabled); absent: nothing is logged. */
  readonly analytics?: SearchAnalytics;
  /** The console's reports over the log (also when this server writes no log: a store it only reads). */
  readonly reports?: SearchConsoleReports;
  /** The synonyms and rules (/api/synonyms, /api/rules, the console); absent: none here (a coordinator). */
  readonly levers?: SearchLevers;
  /** The shards this server merges, as last checked (a coordinator: /healthz reports them, 503 when none answers). */
  readonly shards?: () => readonly ShardStatus[];
};
