/**
 * The search console's pages, rendered on the server (they work without JavaScript): the overview
 * — searches a day (a chart drawn by uPlot, which Trawl serves itself, over the same figures as the
 * table under it), the top queries, those that found nothing, those nobody clicked, the refinements
 * and the synonyms they suggest — and one query's page: what its searchers saw and chose, and why
 * each result ranks where it does. Every table links its JSON and CSV under /api/analytics/.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { SearchHit } from '../indexer/index.ts';
import type { DayReport, QueryDetail, QueryReport, RefinementReport, SynonymSuggestion } from '../model/index.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

/** What the range form shows and every link carries: the report's parameters as asked. */
export type ConsoleParams = { readonly since?: string; readonly until?: string; readonly site?: string; readonly lang?: string; readonly type?: string };

export type Overview = {
  readonly params: ConsoleParams;
  readonly shown: { readonly since: string; readonly until: string };
  readonly days: readonly DayReport[];
  readonly top: readonly QueryReport[];
  readonly noResults: readonly QueryReport[];
  readonly noClicks: readonly QueryReport[];
  readonly refinements: readonly RefinementReport[];
  readonly suggestions: readonly SynonymSuggestion[];
  /** Extra sections (the synonyms and rules editors, when the server has them). */
  readonly levers?: Html;
};

/** A query string of the params (and more), empty ones left out. */
export function queryString(params: Readonly<Record<string, string | undefined>>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? `?${s}` : '';
}

const pct = (part: number, whole: number) => (whole ? `${Math.round((100 * part) / whole)} %` : '—');
const num = (n: number) => n.toLocaleString('en');

function rangeForm(p: ConsoleParams, action: string, extra: Html = html``): Html {
  const field = (name: keyof ConsoleParams, label: string, type = 'text', hint = '') =>
    html`<label>${label} <input name="${name}" type="${type}" value="${p[name] ?? ''}" placeholder="${hint}" size="12"></label>`;
  return html`<form method="get" action="${action}" class="inline-form console-range">
${extra}${field('since', 'From', 'date')} ${field('until', 'until', 'date')} ${field('site', 'site:', 'text', 'any host')}
${field('lang', 'lang:', 'text', 'any')}
${field('type', 'type:', 'text', 'any')}
<button type="submit">Show</button>
</form>`;
}

function exports(path: string, p: ConsoleParams, extra: Record<string, string> = {}): Html {
  const q = { ...p, ...extra };
  return html`<p class="exports">As <a href="${path}${queryString(q)}">JSON</a> · <a href="${path}${queryString({ ...q, format: 'csv' })}">CSV</a></p>`;
}

function queryLink(query: string, p: ConsoleParams): Html {
  return html`<a href="/console/query${queryString({ q: query, ...p })}">${query}</a>`;
}

function queryTable(id: string, caption: string, rows: readonly QueryReport[], p: ConsoleParams, path: string, empty: string): Html {
  if (!rows.length) return html`<section id="${id}"><h2>${caption}</h2><p class="empty">${empty}</p></section>`;
  const body = rows.map(
    (r) => html`<tr><td>${queryLink(r.query, p)}</td><td class="n">${num(r.searches)}</td><td class="n">${pct(r.clicked, r.searches)}</td>
<td class="n">${r.firstClickPosition === null ? '—' : r.firstClickPosition.toFixed(1)}</td><td class="n">${pct(r.searches - r.clicked, r.searches)}</td>
<td class="n">${num(r.noResults)}</td></tr>`,
  );
  return html`<section id="${id}"><h2>${caption}</h2>
<table><thead><tr><th>Query</th><th>Searches</th><th>Clicked</th><th>First click at</th><th>Without a click</th><th>Found nothing</th></tr></thead>
<tbody>${body}</tbody></table>${exports(path, p)}</section>`;
}

function daysSection(days: readonly DayReport[], p: ConsoleParams): Html {
  // (The chart's figures as JSON for console.js; a script element of this type is data, never run.)
  const data = JSON.stringify({ days: days.map((d) => d.day), searches: days.map((d) => d.searches), clicked: days.map((d) => d.clicked) });
  const rows = days.map((d) => html`<tr><td>${d.day}</td><td class="n">${num(d.searches)}</td><td class="n">${num(d.clicked)}</td></tr>`);
  return html`<section id="days"><h2>Searches a day</h2>
<div id="days-chart" class="console-chart" aria-hidden="true"></div>
<script type="application/json" id="days-data">${raw(data.replace(/</g, '\\u003c'))}</script>
${
  days.length
    ? html`<details${days.length <= 14 ? raw(' open') : ''}><summary>The figures</summary>
<table><thead><tr><th>Day (UTC)</th><th>Searches</th><th>Clicked</th></tr></thead>
<tbody>${rows}</tbody></table></details>`
    : html`<p class="empty">No searches in this range.</p>`
}
${exports('/api/analytics/days', p)}</section>`;
}

function refinementsSection(rows: readonly RefinementReport[], p: ConsoleParams): Html {
  if (!rows.length)
    return html`<section id="refinements"><h2>Refined queries</h2><p class="empty">No search was followed by another in its session.</p></section>`;
  const body = rows.map(
    (r) => html`<tr><td>${queryLink(r.from, p)}</td><td>${queryLink(r.to, p)}</td><td class="n">${num(r.searches)}</td>
<td class="n">${pct(r.fromClicked, r.searches)}</td><td class="n">${pct(r.toClicked, r.searches)}</td></tr>`,
  );
  return html`<section id="refinements"><h2>Refined queries</h2>
<p>A search followed in its session, within ten minutes, by another.</p>
<table><thead><tr><th>Searched</th><th>Then</th><th>Times</th><th>First clicked</th><th>Then clicked</th></tr></thead><tbody>${body}</tbody></table>
${exports('/api/analytics/refinements', p)}</section>`;
}

function suggestionsSection(rows: readonly SynonymSuggestion[], p: ConsoleParams, canAdd: boolean): Html {
  if (!rows.length)
    return html`<section id="suggestions"><h2>Synonyms to consider</h2>
<p class="empty">None yet: a query without a click, then another that was clicked.</p></section>`;
  const add = (line: string) =>
    canAdd
      ? html`<form method="post" action="/console/synonyms/add" class="inline-form"><input type="hidden" name="line" value="${line}">
<button type="submit">Add</button></form>`
      : '';
  const body = rows.map(
    (s) => html`<tr><td><code>${s.line}</code></td><td class="n">${num(s.unclicked)}</td><td class="n">${num(s.toClicked)}</td><td>${add(s.line)}</td></tr>`,
  );
  return html`<section id="suggestions"><h2>Synonyms to consider</h2>
<p>Searches without a click, followed in their session by another that was clicked (a "did you mean" taken is one).</p>
<table><thead><tr><th>Synonym</th><th>Unclicked first</th><th>Then clicked</th><th></th></tr></thead><tbody>${body}</tbody></table>
${exports('/api/analytics/suggestions', p)}</section>`;
}

const NO_CLICKS_EMPTY = 'Every query that found something was clicked.';

export function overviewBody(o: Overview, canAdd: boolean): Html {
  const total = o.days.reduce((n, d) => n + d.searches, 0);
  const clicked = o.days.reduce((n, d) => n + d.clicked, 0);
  return html`<h1>Search console</h1>
<p class="console-summary">${num(total)} searches from ${o.shown.since.slice(0, 10)} until ${o.shown.until.slice(0, 10)} (UTC), ${pct(clicked, total)} clicked.
<a href="#top">Top queries</a> · <a href="#no-results">Found nothing</a> · <a href="#no-clicks">Not clicked</a> · <a href="#refinements">Refined</a> ·
<a href="#suggestions">Synonyms to consider</a>${o.levers ? html` · <a href="#levers">Synonyms and rules</a>` : ''}</p>
${rangeForm(o.params, '/console')}
${daysSection(o.days, o.params)}
${queryTable('top', 'Top queries', o.top, o.params, '/api/analytics/queries', 'No searches in this range.')}
${queryTable('no-results', 'Queries that found nothing', o.noResults, o.params, '/api/analytics/no-results', 'Every query found something.')}
${queryTable('no-clicks', 'Queries with results and no click', o.noClicks, o.params, '/api/analytics/no-clicks', NO_CLICKS_EMPTY)}
${refinementsSection(o.refinements, o.params)}
${suggestionsSection(o.suggestions, o.params, canAdd)}
${o.levers ?? ''}
<form method="post" action="/console/logout" class="inline-form"><button type="submit">Log out of the console</button></form>`;
}

/** One result as the search ranks it now, with its score taken apart (the explanation's figures, whatever parts it has). */
function whyRow(h: SearchHit, i: number): Html {
  const e = h.explain as Record<string, unknown> | undefined;
  const parts = e
    ? Object.entries(e)
        .filter(([k, v]) => typeof v === 'number' && k !== 'score')
        .map(([k, v]) => `${k} ${(v as number).toFixed(3).replace(/\.?0+$/, '')}`)
        .join(' · ')
    : '';
  const words = (e?.words as { word: string; score: number }[] | undefined)?.map((w) => `${w.word} ${w.score.toFixed(2)}`).join(', ') ?? '';
  const missing = (e?.missing as string[] | undefined)?.length ? ` — missing: ${(e!.missing as string[]).join(', ')}` : '';
  // (What the levers did: a pin, a section's weight, what clicks taught.)
  const a = h.adjusted;
  const levers = [a?.pinned ? 'pinned' : '', a?.section ? `section × ${a.section}` : '', a?.clicks ? `clicks × ${a.clicks}` : ''].filter(Boolean).join(' · ');
  return html`<tr><td class="n">${i + 1}</td><td><a href="${/^https?:\/\//i.test(h.url) ? h.url : '#'}">${h.title || h.url}</a><br><small>${h.url}</small></td>
<td class="n">${a?.pinned ? 'pinned' : h.score.toFixed(3)}</td><td><small>${words}${missing}</small><br><small>${parts}</small>${
    levers ? html`<br><small class="levers">${levers}</small>` : ''
  }</td></tr>`;
}

export function queryBody(d: QueryDetail, p: ConsoleParams, shown: { since: string; until: string }, now: readonly SearchHit[] | undefined): Html {
  const byPosition = d.positions.map(
    (x) =>
      html`<tr><td class="n">${x.position}</td><td class="n">${num(x.shown)}</td><td class="n">${num(x.clicks)}</td>
<td class="n">${pct(x.clicks, x.shown)}</td></tr>`,
  );
  const urls = d.urls.map(
    (u) => html`<tr><td><a href="${/^https?:\/\//i.test(u.url) ? u.url : '#'}">${u.url}</a></td><td class="n">${num(u.shown)}</td>
<td class="n">${u.meanPosition}</td><td class="n">${num(u.clicks)}</td></tr>`,
  );
  return html`<h1>Search console: <q>${d.query}</q></h1>
<p><a href="/console${queryString(p)}">← All queries</a> · <a href="/?q=${encodeURIComponent(d.query)}">Search it</a></p>
${rangeForm(p, '/console/query', html`<input type="hidden" name="q" value="${d.query}">`)}
<p class="console-summary">${num(d.searches)} searches from ${shown.since.slice(0, 10)} until ${shown.until.slice(0, 10)} (the most recent, at most 2,000),
${pct(d.clicked, d.searches)} clicked.</p>
<section id="positions"><h2>Clicks by position</h2>
${
  d.positions.length
    ? html`<table><thead><tr><th>Position</th><th>Shown</th><th>Clicks</th><th>Rate</th></tr></thead><tbody>${byPosition}</tbody></table>`
    : html`<p class="empty">Its searches showed nothing.</p>`
}</section>
<section id="urls"><h2>What searchers saw and chose</h2>
${
  d.urls.length
    ? html`<table><thead><tr><th>Result</th><th>Shown</th><th>At (mean)</th><th>Clicks</th></tr></thead><tbody>${urls}</tbody></table>`
    : html`<p class="empty">Nothing was shown.</p>`
}
${exports('/api/analytics/query', p, { q: d.query })}</section>
<section id="why"><h2>Why each result ranks where it does, now</h2>
${
  now?.length
    ? html`<table><thead><tr><th>#</th><th>Result</th><th>Score</th><th>Its parts</th></tr></thead><tbody>${now.map(whyRow)}</tbody></table>`
    : html`<p class="empty">The search finds nothing now.</p>`
}</section>`;
}

export function loginBody(failed: boolean, next: string): Html {
  return html`<h1>Search console</h1>
${failed ? html`<p class="error" role="alert">That is not the admin token.</p>` : ''}
<p>What people search for is the site owner's to read: give the admin token (<code>server.adminToken</code>). It is kept by this browser as a
cookie for this server only, for twelve hours.</p>
<form method="post" action="/console/login" class="admin-form"><input type="hidden" name="next" value="${next}">
<label for="console-token">Admin token</label> <input id="console-token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Open the console</button></form>`;
}

export function disabledBody(): Html {
  return html`<h1>Search console</h1>
<p>The console is read with the admin token: set <code>server.adminToken</code> (or the environment variable <code>TRAWL_ADMIN_TOKEN</code>),
or put the server behind a login (<code>server.auth</code>).</p>`;
}
