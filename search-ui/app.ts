/**
 * The search server (Hono, with OpenAPI routes): the search page, the crawl dashboard and the JSON
 * API. It sees a read-only Searcher, a status function, a URL lookup and the admin actions
 * (deps.ts), never the crawler itself. `createApp` only wires: the middleware in the order of
 * their table (middleware.ts), the route modules (routes/: each declares its paths, methods and
 * handlers together), what no route answers (routes/fallback.ts), and the one error handler
 * (errors.ts). The API's parameters are validated by the same schemas that describe it (api/).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import type { UiDeps } from './deps.ts';
import { handleErrors, refuseParameter, type ServerEnv } from './errors.ts';
import { useMiddleware } from './middleware.ts';
import { type Routes, serverParts } from './parts.ts';
import { jsonApi } from './routes/api.ts';
import { consolePages } from './routes/console.ts';
import { dashboard } from './routes/dashboard.ts';
import { notFound } from './routes/fallback.ts';
import { health } from './routes/health.ts';
import { searchPage } from './routes/search-page.ts';
import { staticFiles } from './routes/static.ts';

export type { UiDeps } from './deps.ts';

/** The route modules, each declaring its own routes. */
const ROUTES: readonly Routes[] = [searchPage, dashboard, consolePages, jsonApi, health, staticFiles];

/** The search server's app over `deps`: served by `listen` (server.ts), asked in-process by `app.request()` in tests. */
export function createApp(deps: UiDeps): OpenAPIHono<ServerEnv> {
  const app = new OpenAPIHono<ServerEnv>({ defaultHook: refuseParameter });
  useMiddleware(app, deps);
  const parts = serverParts(deps);
  for (const routes of ROUTES) routes(app, parts);
  app.notFound(notFound(app, parts));
  app.onError(handleErrors(deps.log));
  return app;
}
