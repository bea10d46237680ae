/**
 * The search log as the API feeds it (deps.analytics: appliance/search-log.ts): which searches are
 * logged, what of each, and the click beacons of the page and the widget
 * (`POST /api/analytics/events`). Private by design: a browser that asks not to be tracked
 * (`Sec-GPC: 1`, `DNT: 1`) leaves no trace, and nothing that names a person is kept — no address,
 * no user agent, no cookie; only the random session id a tab keeps, when it sends one.
 */
import { createRoute } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { SearchResponse } from '../indexer/index.ts';
import type { SearchSource } from '../model/index.ts';
import { error, ERRORS } from './api/openapi.ts';
import { ClickEvent } from './api/schemas.ts';

export { SESSION } from './api/schemas.ts';
import type { SearchAnalytics } from './deps.ts';
import { HttpError } from './errors.ts';
import type { ServerApp } from './parts.ts';

/** A click beacon is a few hundred bytes: a larger body is no beacon. */
export const MAX_EVENT_BYTES = 4096;

/** Whether the request asks not to be tracked (Global Privacy Control, Do Not Track). */
export function untracked(c: Context): boolean {
  const headers = c.req.raw.headers;
  return headers.get('sec-gpc')?.trim() === '1' || headers.get('dnt')?.trim() === '1';
}

/** Logs the answer `r` of a search asked with these parameters; returns its id. */
export function logSearch(
  analytics: SearchAnalytics,
  asked: { readonly q: string; readonly page: number; readonly session?: string | undefined; readonly from?: SearchSource | undefined },
  r: SearchResponse,
): string {
  return analytics.record({
    ...(asked.session ? { session: asked.session } : {}),
    source: asked.from ?? 'api',
    query: asked.q,
    understood: understoodQuery(asked.q, r.corrected),
    filters: filtersOf(asked.q),
    page: asked.page,
    total: r.total,
    shown: r.hits.map((h) => h.url),
    tookMs: r.tookMs,
  });
}

/** The filters a query carries (site:, lang:, type:, topic:), by name; several of one kind joined by a space. */
export function filtersOf(query: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of query.matchAll(/(?:^|\s)(site|lang|type|topic):(\S+)/gi)) {
    const k = m[1]!.toLowerCase();
    out[k] = out[k] ? `${out[k]} ${m[2]}` : m[2]!;
  }
  return out;
}

/** The query as understood: in lower case, its spaces collapsed, the words the search took for others replaced. */
export function understoodQuery(query: string, corrected: readonly { readonly from: string; readonly to: string }[] = []): string {
  const to = new Map(corrected.map((c) => [c.from.toLowerCase(), c.to.toLowerCase()]));
  return query
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .map((w) => to.get(w) ?? w)
    .join(' ');
}

const eventsRoute = createRoute({
  method: 'post',
  path: '/api/analytics/events',
  summary: 'A click on a result, for the search log (the page and the widget send it with navigator.sendBeacon)',
  description:
    'The body is a ClickEvent as JSON, sent as text/plain or application/json, at most 4 KB. Counted once per session, query and URL; ' +
    'a click on a URL its search did not show at that position is refused. Answers other origins too (server.corsOrigins).',
  request: { body: { content: { 'text/plain': { schema: ClickEvent }, 'application/json': { schema: ClickEvent } } } },
  responses: {
    204: { description: 'Taken (counted, or a repeat that counts nothing; also when the browser asked not to be tracked)' },
    400: ERRORS[400],
    404: error('No such search in the log (code: unknown-search)'),
    413: error(`Body over ${MAX_EVENT_BYTES} bytes (code: too-large)`),
    422: error('The search did not show that URL at that position (code: not-shown)'),
    429: ERRORS[429],
  },
});

/** POST /api/analytics/events. */
export function eventRoutes(app: ServerApp, analytics: SearchAnalytics | undefined): void {
  app.use(
    '/api/analytics/events',
    bodyLimit({
      maxSize: MAX_EVENT_BYTES,
      onError: () => {
        throw new HttpError(413, 'too-large', `an event is at most ${MAX_EVENT_BYTES} bytes`);
      },
    }),
  );
  app.openapi(eventsRoute, async (c) => {
    if (!analytics || untracked(c)) return c.body(null, 204);
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      throw new HttpError(400, 'bad-body', 'the event is not JSON');
    }
    const parsed = ClickEvent.safeParse(body);
    if (!parsed.success)
      throw new HttpError(400, 'bad-body', `not a click event: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ')}`);
    const outcome = await analytics.click(parsed.data);
    if (outcome === 'unknown-search') throw new HttpError(404, 'unknown-search', 'no such search in the log');
    if (outcome === 'not-shown')
      throw new HttpError(422, 'not-shown', `search ${parsed.data.searchId} did not show that URL at position ${parsed.data.position}`);
    return c.body(null, 204);
  });
}
