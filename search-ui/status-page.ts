/**
 * The crawl dashboard (/status): the figures, a chart of the crawl's history, the sites' broken
 * links and the crawl's own failures, the hosts, the latest fetches and why URLs were turned away;
 * a URL lookup ("why is this page not in the index?") and the admin actions. The live part is one fragment, rendered here both for the page
 * and for each server-sent event, so that the browser swaps it in and nothing is drawn twice.
 */
import { html } from 'hono/html';
import type { ApplianceStatus, CrawlSample, UrlExplanation } from '../model/index.ts';
import { chart } from './status-chart.ts';
import { failurePanels } from './status-failures.ts';
import {
  authPanel,
  figuresPanel,
  focusPanel,
  hostsPanel,
  recentPanel,
  recrawlPanel,
  rejectionsPanel,
  renderPanel,
  seedsPanel,
  shardsPanel,
  workersPanel,
} from './status-panels.ts';
import { type Html, n, when } from './status-html.ts';

export { History } from './status-chart.ts';

/**
 * The live fragment: swapped in whole at each event — a panel a concern (status-panels.ts), those
 * with nothing to show left out. The chart draws the crawl's history when the status brings one,
 * else `samples` (what the server saw: History).
 */
export function liveStatus(s: ApplianceStatus, samples: readonly CrawlSample[], now = Date.now()): Html {
  return html`${figuresPanel(s, chart(s.history ?? samples))}${failurePanels(s.crawl)}
${recrawlPanel(s.recrawl)}
${s.focus ? focusPanel(s.focus) : ''}
${s.seeds?.length ? seedsPanel(s.seeds) : ''}
${s.render ? renderPanel(s.render) : ''}
${s.auth?.length ? authPanel(s.auth) : ''}
${s.workers?.length ? workersPanel(s.workers) : ''}
${s.shards?.length ? shardsPanel(s.shards) : ''}
${hostsPanel(s.crawl.hosts, now)}
${recentPanel(s.recent)}
${rejectionsPanel(s.crawl.rejections)}`;
}

/** The answer to "why is this URL not in the index?". */
function explanation(e: UrlExplanation): Html {
  if (!e.known) return html`<div class="explain" role="status"><p><strong>${e.url}</strong>: Trawl has no record of it — ${e.reason}.</p></div>`;
  const at = (t: string | null) => (t === null ? null : when(t));
  // In the order shown; a fact with no value (null or empty) is left out.
  const facts: [string, string | number | null][] = [
    ['State', e.state],
    ['Reason', e.reason],
    ['Error', e.error],
    ['HTTP status', e.httpStatus],
    ['Attempts', e.attempts],
    ['Depth', e.depth],
    ['Discovered', when(e.discoveredAt)],
    ['Last fetch', at(e.fetchedAt)],
    ['Next attempt', at(e.nextAttemptAt)],
    ['Next revisit', at(e.revisitAt)],
    ['Last change', at(e.changedAt)],
    ['Content type', e.contentType],
    ['Language', e.lang],
    ['Topic score', e.topicScore === null ? null : `${e.topicScore} (${e.relevant ? 'relevant' : 'not relevant'})`],
    ['Topics', e.classes.length ? e.classes.map((c) => `${c.name} ${c.score}`).join(', ') : null],
    ['Links not followed', e.linksCut ? `${n(e.linksCut)} beyond limits.maxLinksPerPage` : null],
    ['Rendered in a browser', e.rendered ?? null],
  ];
  const rows = facts.map(([k, v]) => (v === null || v === '' ? '' : html`<div><dt>${k}</dt><dd>${v}</dd></div>`));
  return html`<div class="explain" role="status"><p><strong>${e.url}</strong> is <strong>${e.indexed ? 'in the index' : 'not in the index'}</strong>.</p>
<dl>${rows}</dl></div>`;
}

/** The recrawl and remove forms' example of what they take. */
const URL_OR_HOST = 'https://example.org/page or example.org';

/** An admin form: its label, its control (whose id is `admin-<action>`), and a submit button when it has one. */
function adminForm(action: string, label: string, control: Html, submit?: string): Html {
  const button = submit ? html`<button type="submit">${submit}</button>` : '';
  return html`<form class="admin-form" data-admin="${action}"><label for="admin-${action}">${label}</label>${control}${button}</form>`;
}

/** The admin actions (app.js sends them to the admin API with the token the page keeps in its tab). */
function adminActions(): Html {
  const endpoints = html`They need JavaScript; the same actions are JSON endpoints (<a href="/api/openapi.json">API description</a>).`;
  const token = html`<input id="admin-token" type="password" autocomplete="off" required>`;
  const seeds = html`<textarea id="admin-seeds" rows="3" required></textarea>`;
  const recrawl = html`<input id="admin-recrawl" type="text" placeholder="${URL_OR_HOST}">`;
  const remove = html`<input id="admin-remove" type="text" required placeholder="${URL_OR_HOST}">`;
  return html`<p>These actions need the admin token (<code>server.adminToken</code>). It is kept in this tab only. ${endpoints}</p>
${adminForm('token', 'Admin token', token)}
<div class="admin-actions">
<button type="button" data-admin="pause">Pause crawl</button>
<button type="button" data-admin="resume">Resume crawl</button>
</div>
${adminForm('seeds', 'Add seeds (one URL per line)', seeds, 'Add seeds')}
${adminForm('recrawl', 'Recrawl a URL or a host (empty: everything)', recrawl, 'Recrawl')}
${adminForm('remove', 'Remove a URL or a host from the index', remove, 'Remove')}
<p id="admin-result" role="status" aria-live="polite"></p>`;
}

export function statusBody(opts: { live: Html; lookup?: { url: string; answer: UrlExplanation }; admin: boolean }): Html {
  return html`<h1>Crawl status</h1>
<div id="live" aria-live="off">${opts.live}</div>
<section aria-labelledby="lookup-h">
<h2 id="lookup-h">Why is a URL not in the index?</h2>
<form method="get" action="/status" class="inline-form">
<label for="lookup-url">URL to look up</label>
<input id="lookup-url" name="url" type="url" required maxlength="2048" value="${opts.lookup?.url ?? ''}" placeholder="https://example.org/page">
<button type="submit">Look up</button>
</form>
${opts.lookup ? explanation(opts.lookup.answer) : ''}
</section>
<section aria-labelledby="admin-h" id="admin">
<h2 id="admin-h">Admin</h2>
${
  opts.admin
    ? adminActions()
    : html`<p>Admin actions are off: set <code>server.adminToken</code> (or the environment variable <code>TRAWL_ADMIN_TOKEN</code>) to turn them on.</p>`
}
</section>`;
}
