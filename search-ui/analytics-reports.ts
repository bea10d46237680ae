/**
 * The search log's reports (`/api/analytics/*`, admin): the queries searched in a time range with
 * what searchers did with them (searches, clicked, the first click's mean position, none found),
 * and the searches of each day — as JSON, or as CSV (`format=csv`) for a spreadsheet. Behind the
 * admin token (and `server.auth`'s login, when set, as every route): what people searched for is
 * the site owner's to read, not the searchers'.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { DAY_MS, type DayReport, daysOf, normalQuery, type QueryReport, type ReportRange } from '../model/index.ts';
import { ADMIN, ERRORS, error, json } from './api/openapi.ts';
import { intParam } from './api/schemas.ts';
import type { ConsoleAccess } from './console-access.ts';
import type { SearchConsoleReports } from './deps.ts';
import { HttpError } from './errors.ts';
import type { ServerApp } from './parts.ts';

/** One query's searches a detail reads at most (appliance/search-reports.ts QUERY_SAMPLE). */
const QUERY_SAMPLE_NOTE = 'at most 2,000';

/** The range a report covers unless asked: the last 30 days. */
export const DEFAULT_REPORT_DAYS = 30;

const dateParam = (name: string, what: string) =>
  z
    .string()
    .refine((v) => !Number.isNaN(Date.parse(v)), { error: `parameter ${name} is a date or a time (ISO 8601: 2026-12-01, 2026-12-01T08:00:00Z)` })
    .optional()
    .openapi({ description: what, example: '2026-12-01' });

const filterParam = (name: string, what: string) =>
  z
    .string()
    .max(200)
    .optional()
    .openapi({ description: `Only the searches that carried \`${name}:\` with this value (${what})` });

const ReportQuery = z.object({
  since: dateParam('since', `From when, a whole day (UTC) at least (default: ${DEFAULT_REPORT_DAYS} days before \`until\`)`),
  until: dateParam('until', 'Until when, excluded; a time within a day takes that day whole (default: now)'),
  site: filterParam('site', 'a host'),
  lang: filterParam('lang', 'a language code'),
  type: filterParam('type', 'a document type'),
  limit: intParam('limit', 1, 10_000, 100),
  format: z.enum(['json', 'csv'], { error: 'parameter format is json or csv' }).default('json'),
});
const DetailQuery = ReportQuery.extend({ q: z.string().min(1, { error: 'parameter q (the query, as understood) is required' }).max(1000) });

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
const RefinementSchema = z
  .object({
    from: z.string(),
    to: z.string(),
    searches: z.number().int().openapi({ description: 'Times a session searched `from`, then `to` (within 10 minutes)' }),
    fromClicked: z.number().int(),
    toClicked: z.number().int(),
  })
  .openapi('RefinementReport');
const SuggestionSchema = z
  .object({ from: z.string(), to: z.string(), unclicked: z.number().int(), toClicked: z.number().int(), line: z.string() })
  .openapi('SynonymSuggestion');
const DetailSchema = z
  .object({
    query: z.string(),
    searches: z
      .number()
      .int()
      .openapi({ description: `The searches read: the most recent, ${QUERY_SAMPLE_NOTE}` }),
    clicked: z.number().int(),
    positions: z.array(z.object({ position: z.number().int(), shown: z.number().int(), clicks: z.number().int() })),
    urls: z.array(z.object({ url: z.string(), shown: z.number().int(), meanPosition: z.number(), clicks: z.number().int() })),
  })
  .openapi('QueryDetail');
const range = z.object({ since: z.string(), until: z.string() });

const NO_LOG = error('No search log here: analytics.enabled is false (code: no-search-log)');
const ANSWERS = { 400: ERRORS[400], 401: ERRORS[401], 403: ERRORS[403], 404: NO_LOG, 429: ERRORS[429] };

/** A report's route: GET path, its table's rows under `key` (JSON), or as CSV. */
const reportRoute = <S extends z.ZodType>(path: string, summary: string, key: string, row: S) =>
  createRoute({
    method: 'get',
    path,
    summary,
    ...ADMIN,
    request: { query: ReportQuery },
    responses: { 200: json(range.extend({ [key]: z.array(row) }), 'The rows (format=csv: text/csv, a header line first)'), ...ANSWERS },
  });

const ROUTES = {
  queries: reportRoute(
    '/api/analytics/queries',
    'The search log: the queries searched, the most first, with what searchers did (admin)',
    'queries',
    QueryReportSchema,
  ),
  noResults: reportRoute(
    '/api/analytics/no-results',
    'The search log: the queries that found nothing, the most often first (admin)',
    'queries',
    QueryReportSchema,
  ),
  noClicks: reportRoute(
    '/api/analytics/no-clicks',
    'The search log: the queries that found something and were never clicked, the most searched first (admin)',
    'queries',
    QueryReportSchema,
  ),
  days: reportRoute('/api/analytics/days', 'The search log: searches and searches clicked, day by day (UTC; admin)', 'days', DayReportSchema),
  refinements: reportRoute(
    '/api/analytics/refinements',
    'The search log: the queries people refine (A, then B in one session) and what they refine them to (admin)',
    'refinements',
    RefinementSchema,
  ),
  suggestions: reportRoute(
    '/api/analytics/suggestions',
    'The search log: synonyms to consider — a query without a click, then another that was clicked, in one session (admin)',
    'suggestions',
    SuggestionSchema,
  ),
};
const detailRoute = createRoute({
  method: 'get',
  path: '/api/analytics/query',
  summary: "The search log: one query's recent searches as their pages showed them — by position, and by URL (admin)",
  ...ADMIN,
  request: { query: DetailQuery },
  responses: { 200: json(range.extend({ detail: DetailSchema }), 'The detail (format=csv: its URLs)'), ...ANSWERS },
});

type Asked = z.infer<typeof ReportQuery>;

/** The range and filters a report was asked for, checked. */
export function reportRange(q: Partial<Asked>, now: number): { range: ReportRange; shown: { since: string; until: string } } {
  // (`until` is excluded, so "until now" ends a millisecond after the log's now: a search made
  // this very millisecond is in the report.)
  const until = q.until ? Date.parse(q.until) : now + 1;
  const since = q.since ? Date.parse(q.since) : until - DEFAULT_REPORT_DAYS * DAY_MS;
  for (const [name, v] of [
    ['since', since],
    ['until', until],
  ] as const)
    if (Number.isNaN(v)) throw new HttpError(400, 'bad-parameter', `${name} is a date or a time (ISO 8601: 2026-12-01, 2026-12-01T08:00:00Z)`);
  if (since >= until) throw new HttpError(400, 'bad-parameter', 'since must be before until');
  const filters = { site: q.site || undefined, lang: q.lang || undefined, type: q.type || undefined };
  const { first, last } = daysOf({ since, until });
  return {
    range: { since, until, filters },
    shown: { since: new Date(first * DAY_MS).toISOString(), until: new Date((last + 1) * DAY_MS).toISOString() },
  };
}

export function reportRoutes(app: ServerApp, reports: SearchConsoleReports | undefined, access: ConsoleAccess): void {
  const allowed = (c: Context) => {
    access.require(c);
    if (!reports) throw new HttpError(404, 'no-search-log', 'no search log here: analytics.enabled is false');
    return reports;
  };
  const table = <R>(
    route: ReturnType<typeof reportRoute>,
    key: string,
    columns: readonly string[],
    rows: (r: SearchConsoleReports, range: ReportRange, q: Asked) => Promise<readonly R[]>,
  ) =>
    app.openapi(route, async (c) => {
      const r = allowed(c);
      const q = c.req.valid('query') as Asked;
      const { range, shown } = reportRange(q, r.now());
      const found = await rows(r, range, q);
      if (q.format === 'csv') return csv(c, columns, found as Record<string, unknown>[]);
      return c.json({ ...shown, [key]: found }, 200) as never;
    });
  const QUERY_COLUMNS = ['query', 'searches', 'clicked', 'clickThroughRate', 'firstClickPosition', 'noResults'];
  table(ROUTES.queries, 'queries', QUERY_COLUMNS, async (r, range, q) => (await r.queries(range, q.limit, 'top')).map(withRate));
  table(ROUTES.noResults, 'queries', QUERY_COLUMNS, async (r, range, q) => (await r.queries(range, q.limit, 'no-results')).map(withRate));
  table(ROUTES.noClicks, 'queries', QUERY_COLUMNS, async (r, range, q) => (await r.queries(range, q.limit, 'no-clicks')).map(withRate));
  table(ROUTES.days, 'days', ['day', 'searches', 'clicked'], (r, range) => r.days(range));
  table(ROUTES.refinements, 'refinements', ['from', 'to', 'searches', 'fromClicked', 'toClicked'], (r, range, q) => r.refinements(range, q.limit));
  table(ROUTES.suggestions, 'suggestions', ['from', 'to', 'unclicked', 'toClicked', 'line'], (r, range, q) => r.suggestions(range, q.limit));
  app.openapi(detailRoute, async (c) => {
    const r = allowed(c);
    const q = c.req.valid('query');
    const { range, shown } = reportRange(q, r.now());
    const detail = await r.query(normalQuery(q.q), range);
    if (q.format === 'csv') return csv(c, ['url', 'shown', 'meanPosition', 'clicks'], detail.urls);
    return c.json({ ...shown, detail: { ...detail, positions: [...detail.positions], urls: [...detail.urls] } }, 200);
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
