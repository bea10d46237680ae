/**
 * The search console (`/console`, console-page.ts): behind the admin token — given once on
 * /console/login, then a cookie (console-access.ts) — or server.auth's login. Its pages read the
 * same reports as /api/analytics/* (analytics-reports.ts), for the range and filters asked.
 */
import type { Context } from 'hono';
import { html } from 'hono/html';
import { normalQuery } from '../../model/index.ts';
import { reportRange } from '../analytics-reports.ts';
import { leversSection, prefixRuleOf, queryRuleOf } from '../console-levers.ts';
import { type ConsoleParams, disabledBody, loginBody, overviewBody, queryBody } from '../console-page.ts';
import type { SearchLevers } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { layout } from '../pages.ts';
import type { Routes, ServerParts } from '../parts.ts';
import { staticUrl } from '../static-files.ts';
import { statusLine } from '../status-line.ts';

/** Rows of each table of the overview. */
const ROWS = 50;
/** Changes to the levers listed (the API has more: /api/curation/history). */
const HISTORY_ROWS = 20;
/** A form's body at most (a token, a synonym line): the console's forms are small. */
const MAX_FORM_BYTES = 64 * 1024;

const head = () => html`<link rel="stylesheet" href="${staticUrl('uplot.css')}">
<script src="${staticUrl('uplot.js')}" defer></script>
<script src="${staticUrl('console.js')}" defer></script>`;

const paramsOf = (c: Context): ConsoleParams => {
  const p: Record<string, string> = {};
  for (const k of ['since', 'until', 'site', 'lang', 'type'] as const) {
    const v = c.req.query(k)?.trim().slice(0, 200);
    if (v) p[k] = v;
  }
  return p;
};

/** A console page, or the login (or why there is no console) when the request may not see it. */
async function page(c: Context, parts: ServerParts, title: string, body: () => Promise<ReturnType<typeof overviewBody>>, status: 200 | 400 = 200) {
  const access = parts.console.check(c);
  const s = statusLine(await parts.status());
  const frame = (b: ReturnType<typeof overviewBody>) =>
    layout({ title: `${title} — Trawl`, status: s, version: parts.deps.version, body: b, wide: true, head: head() });
  if (access === 'disabled') return c.html(frame(disabledBody()), 403);
  if (access === 'login') return c.html(frame(loginBody(false, c.req.path + (new URL(c.req.url).search || ''))), 401);
  if (!parts.deps.reports) return c.html(frame(html`<h1>Search console</h1><p>No search log here: <code>analytics.enabled</code> is false.</p>`), 404);
  try {
    return c.html(frame(await body()), status);
  } catch (e) {
    if (e instanceof HttpError && e.status === 400) return c.html(frame(html`<h1>Search console</h1><p class="error" role="alert">${e.message}</p>`), 400);
    throw e;
  }
}

async function form(c: Context): Promise<Record<string, string>> {
  if (Number(c.req.header('content-length') ?? 0) > MAX_FORM_BYTES) throw new HttpError(413, 'too-large', `a form over ${MAX_FORM_BYTES} bytes`);
  const body = await c.req.parseBody();
  return Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === 'string')) as Record<string, string>;
}

export const consolePages: Routes = (app, parts) => {
  /** The overview; `error`: why a change to the levers was refused (shown in their section, a 400). */
  const overview = (c: Context, error?: string) =>
    page(
      c,
      parts,
      'Search console',
      async () => {
        const r = parts.deps.reports!;
        const params = paramsOf(c);
        const { range, shown } = reportRange(params, r.now());
        const { levers } = parts.deps;
        const [days, top, noResults, noClicks, refinements, suggestions, history] = await Promise.all([
          r.days(range),
          r.queries(range, ROWS, 'top'),
          r.queries(range, ROWS, 'no-results'),
          r.queries(range, ROWS, 'no-clicks'),
          r.refinements(range, ROWS),
          r.suggestions(range, ROWS),
          levers?.history(HISTORY_ROWS) ?? [],
        ]);
        const leversHtml = levers ? leversSection(levers.current(), history, error) : undefined;
        return overviewBody(
          { params, shown, days, top, noResults, noClicks, refinements, suggestions, ...(leversHtml ? { levers: leversHtml } : {}) },
          !!levers,
        );
      },
      error ? 400 : 200,
    );
  app.get('/console', (c) => overview(c));

  /** A change to the levers from a console form: made, then back to them; refused, the overview says why. */
  const change = (path: string, made: (f: Record<string, string>, levers: SearchLevers, by: string) => Promise<{ error: string } | string | undefined>) =>
    app.post(path, async (c) => {
      parts.console.require(c);
      const levers = parts.deps.levers;
      if (!levers) throw new HttpError(404, 'no-levers', 'no synonyms or rules here: this server has no store of its own');
      const refused = await made(await form(c), levers, parts.console.who(c));
      if (refused) return overview(c, typeof refused === 'string' ? refused : refused.error);
      return c.redirect('/console#levers', 303);
    });
  const lines = (s: string | undefined) =>
    (s ?? '')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
  change('/console/synonyms', (f, l, by) => l.putSynonyms(lines(f.synonyms), by));
  change('/console/synonyms/add', (f, l, by) => l.putSynonyms([...l.current().synonyms, ...lines(f.line)], by));
  change('/console/rules/add', (f, l, by) => {
    const { rules } = l.current();
    const rule = f.kind === 'prefix' ? prefixRuleOf(f) : queryRuleOf(f);
    if (typeof rule === 'string') return Promise.resolve(rule);
    const next = 'prefix' in rule ? { ...rules, prefixes: [...rules.prefixes, rule] } : { ...rules, queries: [...rules.queries, rule] };
    return l.putRules(next, by);
  });
  change('/console/rules/remove', (f, l, by) => {
    const { rules } = l.current();
    const i = Number(f.index);
    const without = <T>(list: readonly T[]) => list.filter((_, k) => k !== i);
    return l.putRules(f.kind === 'prefix' ? { ...rules, prefixes: without(rules.prefixes) } : { ...rules, queries: without(rules.queries) }, by);
  });

  app.get('/console/query', (c) =>
    page(c, parts, 'Search console', async () => {
      const r = parts.deps.reports!;
      const params = paramsOf(c);
      const q = normalQuery(c.req.query('q')?.slice(0, 1000) ?? '');
      if (!q) throw new HttpError(400, 'missing-query', 'which query? (parameter q)');
      const { range, shown } = reportRange(params, r.now());
      const detail = await r.query(q, range);
      const now = await parts.deps.searcher.search(q, { explain: true }).catch(() => undefined);
      return queryBody(detail, params, shown, now?.hits);
    }),
  );

  app.post('/console/login', async (c) => {
    const f = await form(c);
    const next = f.next?.startsWith('/console') ? f.next : '/console';
    if (parts.console.login(c, f.token ?? '')) return c.redirect(next, 303);
    const s = statusLine(await parts.status());
    return c.html(layout({ title: 'Search console — Trawl', status: s, version: parts.deps.version, body: loginBody(true, next), wide: true }), 401);
  });

  app.post('/console/logout', (c) => {
    parts.console.logout(c);
    return c.redirect('/console', 303);
  });
};
