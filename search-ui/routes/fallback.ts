/**
 * What no route answers: 405 with `Allow` for a path that exists for other methods (read from the
 * app's own routes: guards.ts), else 404 — JSON under /api/*, the search layout on a page.
 */
import type { NotFoundHandler } from 'hono';
import { HttpError, isApi, refusal, type ServerEnv } from '../errors.ts';
import { allowedMethods } from '../guards.ts';
import { errorBody, layout } from '../pages.ts';
import type { ServerApp, ServerParts } from '../parts.ts';
import { statusLine } from '../status-line.ts';

export function notFound(app: ServerApp, { deps }: ServerParts): NotFoundHandler<ServerEnv> {
  return async (c) => {
    const allow = allowedMethods(app.routes, c.req.path);
    if (allow.length && !allow.includes(c.req.method)) {
      const error = `${c.req.method} is not allowed here: ${allow.join(', ')} ${allow.length > 1 ? 'are' : 'is'}`;
      return refusal(c, new HttpError(405, 'method-not-allowed', error, { allow: allow.join(', ') }));
    }
    if (isApi(c)) return refusal(c, new HttpError(404, 'not-found', 'no such endpoint'));
    return c.html(
      layout({
        title: 'Not found — Trawl',
        status: statusLine(await deps.status()),
        version: deps.version,
        body: errorBody('There is no page here. Search from the box above.'),
      }),
      404,
    );
  };
}
