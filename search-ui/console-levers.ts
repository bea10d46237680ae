/**
 * The console's levers section (`#levers`), rendered on the server: the synonyms as lines to edit,
 * the rules — pins and hides for a query, boosts and burials of a URL prefix — each with a form to
 * add one and a button to remove it, and the history of changes (when, by whom). The forms post to
 * /console/synonyms and /console/rules/* (routes/console.ts), which change what the next search
 * does, on every node of a cluster, and come back here.
 */
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { CurationChange, PrefixRule, QueryRule, SearchRules } from '../model/index.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

const matchText = (r: QueryRule) => ('query' in r.match ? html`the query <q>${r.match.query}</q>` : html`queries with <q>${r.match.contains.join(' ')}</q>`);

function queryRuleRow(r: QueryRule, i: number): Html {
  const list = (urls: readonly string[]) => (urls.length ? html`<ol>${urls.map((u) => html`<li><small>${u}</small></li>`)}</ol>` : '—');
  return html`<tr><td>${matchText(r)}</td><td>${list(r.pin)}</td><td>${list(r.hide)}</td>
<td><form method="post" action="/console/rules/remove" class="inline-form"><input type="hidden" name="kind" value="query">
<input type="hidden" name="index" value="${i}"><button type="submit">Remove</button></form></td></tr>`;
}

function prefixRow(p: PrefixRule, i: number): Html {
  return html`<tr><td><small>${p.prefix}</small></td><td class="n">× ${p.factor}</td><td>${p.factor > 1 ? 'boosted' : 'buried'}</td>
<td><form method="post" action="/console/rules/remove" class="inline-form"><input type="hidden" name="kind" value="prefix">
<input type="hidden" name="index" value="${i}"><button type="submit">Remove</button></form></td></tr>`;
}

function historyRow(h: CurationChange): Html {
  const what =
    h.what === 'synonyms'
      ? `${(h.value as readonly string[]).length} synonym lines`
      : `${(h.value as SearchRules).queries.length} query rules, ${(h.value as SearchRules).prefixes.length} prefix rules`;
  return html`<tr><td>${new Date(h.at).toISOString().replace('T', ' ').slice(0, 19)}</td><td>${h.what}</td><td>${h.by}</td><td>${what}</td></tr>`;
}

export function leversSection(
  current: { readonly synonyms: readonly string[]; readonly rules: SearchRules },
  history: readonly CurationChange[],
  error?: string,
): Html {
  const { rules } = current;
  return html`<section id="levers"><h2>Synonyms and rules</h2>
${error ? html`<p class="error" role="alert">${error}</p>` : ''}
<h3>Synonyms</h3>
<p>One a line: a group (<code>k8s, kubernetes</code>), a one-way rule (<code>kill =&gt; terminate, cancel</code>), words together in quotes
(<code>"long running" =&gt; statement_timeout</code>). A synonym finds pages below the word itself; the next search uses them.</p>
<form method="post" action="/console/synonyms" class="admin-form">
<label for="synonyms">Synonyms</label>
<textarea id="synonyms" name="synonyms" rows="${Math.min(20, Math.max(4, current.synonyms.length + 2))}" cols="70">${current.synonyms.join('\n')}</textarea>
<button type="submit">Save the synonyms</button></form>
<h3>Pinned and hidden results</h3>
${
  rules.queries.length
    ? html`<table id="query-rules"><thead><tr><th>For</th><th>Pinned first</th><th>Hidden</th><th></th></tr></thead>
<tbody>${rules.queries.map(queryRuleRow)}</tbody></table>`
    : html`<p class="empty">No pins or hides.</p>`
}
<form method="post" action="/console/rules/add" class="admin-form"><input type="hidden" name="kind" value="query">
<label for="rule-query">Query</label> <input id="rule-query" name="query" required size="30">
<label><input type="checkbox" name="contains" value="1"> every query holding these words</label>
<label for="rule-pin">Pin (URLs, one a line, in order)</label> <textarea id="rule-pin" name="pin" rows="2" cols="60"></textarea>
<label for="rule-hide">Hide (URLs, one a line)</label> <textarea id="rule-hide" name="hide" rows="2" cols="60"></textarea>
<button type="submit">Add the rule</button></form>
<h3>Sections boosted or buried</h3>
${
  rules.prefixes.length
    ? html`<table id="prefix-rules"><thead><tr><th>URLs starting with</th><th>Weight</th><th></th><th></th></tr></thead>
<tbody>${rules.prefixes.map(prefixRow)}</tbody></table>`
    : html`<p class="empty">Every section weighs the same.</p>`
}
<form method="post" action="/console/rules/add" class="admin-form"><input type="hidden" name="kind" value="prefix">
<label for="rule-prefix">URL prefix</label> <input id="rule-prefix" name="prefix" required size="40" placeholder="https://example.org/blog/">
<label for="rule-factor">Weight (0.1 buries, 10 boosts)</label>
<input id="rule-factor" name="factor" type="number" min="0.1" max="10" step="0.1" value="2" required>
<button type="submit">Add the section rule</button></form>
<h3>History</h3>
${
  history.length
    ? html`<table id="history"><thead><tr><th>When (UTC)</th><th>What</th><th>By</th><th>Became</th></tr></thead>
<tbody>${history.map(historyRow)}</tbody></table>`
    : html`<p class="empty">No change yet.</p>`
}
<p><a href="/api/synonyms">Synonyms as JSON</a> · <a href="/api/rules">Rules as JSON</a> · <a href="/api/curation/history">History as JSON</a>
(<code>PUT /api/synonyms</code> and <code>PUT /api/rules</code> change them from a script)</p></section>`;
}

/** A query rule from the console's form fields, or why not. */
export function queryRuleOf(f: Readonly<Record<string, string>>): QueryRule | string {
  const query = (f.query ?? '').trim();
  if (!query) return 'a rule needs a query';
  const lines = (s: string | undefined) =>
    (s ?? '')
      .split(/\r?\n/)
      .map((l) => l.trim())
      .filter(Boolean);
  const match = f.contains ? { contains: query.split(/\s+/) } : { query };
  return { match, pin: lines(f.pin), hide: lines(f.hide) };
}

/** A prefix rule from the console's form fields, or why not. */
export function prefixRuleOf(f: Readonly<Record<string, string>>): PrefixRule | string {
  const factor = Number(f.factor);
  if (!f.prefix?.trim()) return 'a section rule needs a URL prefix';
  if (!Number.isFinite(factor)) return 'a section rule needs a weight (a number)';
  return { prefix: f.prefix.trim(), factor };
}
