/**
 * The server's one error type and its one handler (Hono's shape: `HTTPException` and `onError`).
 *
 * A request the server refuses is an `HttpError` — an HTTPException with a stable `code` — thrown
 * by whatever refuses it: a guard, a route, a validation hook. `refusal` answers it, the same way
 * for all: JSON `{error, code}` under /api/* (the API's clients read the code), text on the pages,
 * or the page a route chose to show its refusals in (the search page shows a bad query in its own
 * layout, the query still in the box). The handler maps what else may be thrown: the indexer's
 * `QueryError` (a query that cannot be run) and the HTTPExceptions of Hono's own middleware.
 * Anything more is a fault of the server's: logged with its stack, answered 500 without it.
 */
import type { Context, ErrorHandler } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { QueryError } from '../indexer/index.ts';
import type { Log } from '../lib/log.ts';

/** A request the server refuses: its status, a stable code for programs, a message for people. */
export class HttpError extends HTTPException {
  constructor(
    status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    /** Headers the answer carries (Retry-After, Allow, WWW-Authenticate). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(status, { message });
  }
}

/** How a page shows a refusal in its own layout; a page route sets it with `c.set('errorPage', …)`. */
export type ErrorPage = (message: string) => string | Promise<string>;

/** The request's variables every route of the server may set. */
export type ServerEnv = { Variables: { errorPage?: ErrorPage } };

/** Whether the request is the JSON API's (its answers, errors included, are JSON). */
export function isApi(c: Context): boolean {
  return c.req.path.startsWith('/api/');
}

/** The answer to a refusal: JSON under /api/*, else the page's own error page, else text. */
export function refusal(c: Context<ServerEnv>, e: HttpError): Response | Promise<Response> {
  if (isApi(c)) return c.json({ error: e.message, code: e.code }, e.status, e.headers);
  const page = c.get('errorPage');
  return page ? c.html(page(e.message), e.status, e.headers) : c.text(e.message, e.status, e.headers);
}

/**
 * The check of the API's parameters (zod-openapi's `defaultHook`): a parameter the schema refuses
 * is a 400 with the schema's own message — missing-query for `q`, bad-parameter for the others.
 */
export function refuseParameter(result: { success: boolean; error?: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } }): undefined {
  if (result.success) return undefined;
  const issue = result.error?.issues[0];
  throw new HttpError(400, issue?.path[0] === 'q' ? 'missing-query' : 'bad-parameter', issue?.message ?? 'bad request');
}

/** What a thrown error is to the client: a refusal, an answer Hono's middleware made, or neither (a fault). */
function understood(e: Error): HttpError | Response | undefined {
  if (e instanceof HttpError) return e;
  if (e instanceof QueryError) return new HttpError(400, 'bad-query', e.message);
  if (e instanceof HTTPException) {
    // Hono's validators refuse a body that is not JSON, or not declared as JSON, by throwing.
    if (e.status === 400) return new HttpError(400, 'bad-body', 'the body must be JSON');
    if (e.status === 415) return new HttpError(415, 'bad-body', 'send the body as JSON, with Content-Type: application/json');
    // (bearerAuth refuses by throwing, with the answer it was given: routes/admin.ts.)
    return e.getResponse();
  }
  return undefined;
}

/** The server's `onError`: refusals answered as `refusal` says; anything else logged to `log` and a 500. */
export function handleErrors(log: Log): ErrorHandler<ServerEnv> {
  return (e, c) => {
    const known = understood(e);
    if (known instanceof Response) return known;
    if (known) return refusal(c, known);
    log.error(`search server: ${c.req.method} ${c.req.path}: ${e.stack ?? String(e)}`);
    return isApi(c) ? c.json({ error: 'internal error', code: 'internal' }, 500) : c.text('internal error', 500);
  };
}
