/**
 * The search log's reports (`/api/analytics/*`, admin): the queries searched in a time range with
 * what searchers did with them (searches, clicked, the first click's mean position, none found),
 * and the searches of each day — as JSON, or as CSV (`format=csv`) for a spreadsheet. Behind the
 * admin token (and `server.auth`'s login, when set, as every route): what people searched for is
 * the site owner's to read, not the searchers'.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import type { DayReport, QueryReport } from '../model/index.ts';
import { sameToken } from './access.ts';
import { ADMIN, ERRORS, error, json } from './api/openapi.ts';
import { intParam } from './api/schemas.ts';
import type { SearchAnalytics } from './deps.ts';
import { HttpError } from './errors.ts';
import type { ServerApp } from './parts.ts';

/** The range a report covers unless asked: the last 30 days. */
export const DEFAULT_REPORT_DAYS = 30;

const dateParam = (name: string, what: string) =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), { error: `parameter ${name} is a date or a time (ISO 8601: 2026-12-01, 2026-12-01T08:00:00Z)` })
    .optional()
    .openapi({ description: what, example: '2026-12-01' });

const ReportQuery = z.object({
  since: dateParam('since', `From when (default: ${DEFAULT_REPORT_DAYS} days before \`until\`)`),
  until: dateParam('until', 'Until when, excluded (default: now)'),
  limit: intParam('limit', 1, 10_000, 100),
  format: z.enum(['json', 'csv'], { error: 'parameter format is json or csv' }).default('json'),
});

const QueryReportSchema = z
  .object({
    query: z.string().openapi({ description: 'The query as understood (lower case, its spaces collapsed, the words taken for others replaced)' }),
    searches: z.number().int(),
    clicked: z.number().int().openapi({ description: 'Searches with a click on a result' }),
    clickThroughRate: z.number().openapi({ description: 'clicked / searches' }),
    firstClickPosition: z.number().nullable().openapi({ description: "The mean position of each clicked search's first click" }),
    noResults: z.number().int().openapi({ description: 'Searches that found nothing' }),
  })
  .openapi('QueryReport');
const DayReportSchema = z
  .object({ day: z.string().openapi({ example: '2026-12-01' }), searches: z.number().int(), clicked: z.number().int() })
  .openapi('DayReport');
const range = z.object({ since: z.string(), until: z.string() });

const NO_LOG = error('No search log here: analytics.enabled is false, or the crawl database is open for reading only (code: no-search-log)');

const queriesRoute = createRoute({
  method: 'get',
  path: '/api/analytics/queries',
  summary: 'The search log: the queries searched, the most first, with what searchers did (admin)',
  ...ADMIN,
  request: { query: ReportQuery },
  responses: {
    200: json(range.extend({ queries: z.array(QueryReportSchema) }), 'The queries (format=csv: text/csv, a header line first)'),
    400: ERRORS[400],
    401: ERRORS[401],
    403: ERRORS[403],
    404: json(
      z.object({ error: z.string(), code: z.string() }),
      'No search log here: analytics.enabled is false, or the store is read-only (code: no-search-log)',
    ),
    429: ERRORS[429],
  },
});

const daysRoute = createRoute({
  method: 'get',
  path: '/api/analytics/days',
  summary: 'The search log: searches and searches clicked, day by day (UTC; admin)',
  ...ADMIN,
  request: { query: ReportQuery },
  responses: {
    200: json(range.extend({ days: z.array(DayReportSchema) }), 'The days with searches, in order (format=csv: text/csv)'),
    400: ERRORS[400],
    401: ERRORS[401],
    403: ERRORS[403],
    404: NO_LOG,
    429: ERRORS[429],
  },
});

export function reportRoutes(app: ServerApp, analytics: SearchAnalytics | undefined, token: string | undefined): void {
  const allowed = (c: Context) => {
    if (!token) throw new HttpError(403, 'admin-disabled', 'the search log is read with the admin token: set server.adminToken (or TRAWL_ADMIN_TOKEN)');
    const given = /^Bearer\s+(\S+)$/i.exec(c.req.header('authorization') ?? '')?.[1];
    if (!given || !sameToken(given, token))
      throw new HttpError(401, 'unauthorized', 'this report needs Authorization: Bearer <admin token>', { 'www-authenticate': 'Bearer' });
    if (!analytics) throw new HttpError(404, 'no-search-log', 'no search log here: analytics.enabled is false, or the store is open for reading only');
    return analytics;
  };
  const rangeOf = (log: SearchAnalytics, q: { since?: string | undefined; until?: string | undefined }) => {
    // (`until` is excluded, so "until now" ends a millisecond after the log's now: a search made
    // this very millisecond is in the report.)
    const until = q.until ? Date.parse(q.until) : log.now() + 1;
    const since = q.since ? Date.parse(q.since) : until - DEFAULT_REPORT_DAYS * 86_400_000;
    if (since >= until) throw new HttpError(400, 'bad-parameter', 'since must be before until');
    return { since, until, shown: { since: new Date(since).toISOString(), until: new Date(until).toISOString() } };
  };
  app.openapi(queriesRoute, async (c) => {
    const log = allowed(c);
    const q = c.req.valid('query');
    const r = rangeOf(log, q);
    const queries = (await log.queries(r.since, r.until, q.limit)).map(withRate);
    if (q.format === 'csv') return csv(c, ['query', 'searches', 'clicked', 'clickThroughRate', 'firstClickPosition', 'noResults'], queries);
    return c.json({ ...r.shown, queries }, 200);
  });
  app.openapi(daysRoute, async (c) => {
    const log = allowed(c);
    const q = c.req.valid('query');
    const r = rangeOf(log, q);
    const days = await log.days(r.since, r.until);
    if (q.format === 'csv') return csv(c, ['day', 'searches', 'clicked'], days);
    return c.json({ ...r.shown, days: [...days] }, 200);
  });
}

const withRate = (q: QueryReport) => ({ ...q, clickThroughRate: q.searches ? Math.round((1000 * q.clicked) / q.searches) / 1000 : 0 });

/** Rows as CSV (RFC 4180: a field with a comma, a quote or a line break quoted, quotes doubled), a header line first. */
export function csvOf(columns: readonly string[], rows: readonly Readonly<Record<string, unknown>>[]): string {
  return `${columns.join(',')}\r\n${rows.map((r) => csvLine(columns, r)).join('')}`;
}

/** One row of CSV (see csvOf), its line break included. */
export function csvLine(columns: readonly string[], row: Readonly<Record<string, unknown>>): string {
  const field = (v: unknown) => {
    const s = v === null || v === undefined ? '' : String(v);
    // (A field a spreadsheet would take for a formula is quoted after a leading apostrophe: CSV injection.)
    const safe = /^[=+\-@\t\r]/.test(s) && typeof v === 'string' ? `'${s}` : s;
    return /[",\r\n]/.test(safe) || safe !== s ? `"${safe.replace(/"/g, '""')}"` : safe;
  };
  return `${columns.map((k) => field(row[k])).join(',')}\r\n`;
}

function csv(c: Context, columns: readonly string[], rows: readonly (QueryReport | DayReport | Record<string, unknown>)[]) {
  return c.body(csvOf(columns, rows as Record<string, unknown>[]), 200, { 'content-type': 'text/csv; charset=utf-8' }) as never;
}
