/**
 * What the routes of one server share (`ServerParts`): its deps, and the state the server keeps —
 * the search metrics, the status history the dashboard draws, the search ETags, the event streams
 * open — made once by createApp. A route module (routes/) is a function of the app and these.
 */
import { type ConsoleAccess, consoleAccess } from './console-access.ts';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { QueryError, type SearchResponse } from '../indexer/index.ts';
import type { ApplianceStatus } from '../model/index.ts';
import type { UiDeps } from './deps.ts';
import type { ServerEnv } from './errors.ts';
import { StreamGate } from './guards.ts';
import { ResultTags } from './http-cache.ts';
import { SearchMetrics } from './metrics.ts';
import { History } from './status-page.ts';

/** The app the routes are declared on. */
export type ServerApp = OpenAPIHono<ServerEnv>;

/** A route module: declares its routes (path, method, handler) on the app. */
export type Routes = (app: ServerApp, parts: ServerParts) => void;

export type ServerParts = {
  readonly deps: UiDeps;
  readonly metrics: SearchMetrics;
  /** The statuses seen, for the dashboard's chart. */
  readonly history: History;
  /** The ETags of answers made from the index (http-cache.ts). */
  readonly tags: ResultTags;
  /** The server-sent event streams open, up to server.maxEventStreams. */
  readonly streams: StreamGate;
  /** Whether the admin actions are on (actions and a token): the dashboard shows their forms. */
  readonly adminOn: boolean;
  /** Who may read the search console and its reports (console-access.ts). */
  readonly console: ConsoleAccess;
  /** The status now, kept in the history. */
  status(): Promise<ApplianceStatus>;
  /** A search, counted in the metrics (refused ones too). */
  search(q: string, page: number, size: number, exact?: boolean, explain?: boolean): Promise<SearchResponse>;
};

export function serverParts(deps: UiDeps): ServerParts {
  const metrics = new SearchMetrics({ processMetrics: deps.processMetrics ?? true });
  const history = new History();
  return {
    deps,
    metrics,
    history,
    tags: new ResultTags(),
    streams: new StreamGate(deps.maxEventStreams),
    adminOn: Boolean(deps.admin && deps.adminToken),
    console: consoleAccess(deps),
    status: async () => {
      const s = await deps.status();
      history.add(s);
      return s;
    },
    search: async (q, page, size, exact = false, explain = false) => {
      try {
        const r = await deps.searcher.search(q, { page, size, exact, ...(explain ? { explain } : {}) });
        metrics.observe(r.tookMs);
        return r;
      } catch (e) {
        if (e instanceof QueryError) metrics.refused();
        throw e;
      }
    },
  };
}
