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
  const row = (k: string, v: string | number | null) => (v === null || v === '' ? '' : html`<div><dt>${k}</dt><dd>${v}</dd></div>`);
  return html`<div class="explain" role="status"><p><strong>${e.url}</strong> is <strong>${e.indexed ? 'in the index' : 'not in the index'}</strong>.</p>
<dl>${row('State', e.state)}${row('Reason', e.reason)}${row('Error', e.error)}${row('HTTP status', e.httpStatus)}${row('Attempts', e.attempts)}${row('Depth', e.depth)}${row('Discovered', when(e.discoveredAt))}${row('Last fetch', e.fetchedAt === null ? null : when(e.fetchedAt))}${row('Next attempt', e.nextAttemptAt === null ? null : when(e.nextAttemptAt))}${row('Next revisit', e.revisitAt === null ? null : when(e.revisitAt))}${row('Last change', e.changedAt === null ? null : when(e.changedAt))}${row('Content type', e.contentType)}${row('Language', e.lang)}${row('Topic score', e.topicScore === null ? null : `${e.topicScore} (${e.relevant ? 'relevant' : 'not relevant'})`)}${row('Topics', e.classes.length ? e.classes.map((c) => `${c.name} ${c.score}`).join(', ') : null)}${row('Links not followed', e.linksCut ? `${n(e.linksCut)} beyond limits.maxLinksPerPage` : null)}${row('Rendered in a browser', e.rendered ?? null)}</dl></div>`;
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
    ? html`<p>These actions need the admin token (<code>server.adminToken</code>). It is kept in this tab only. They need JavaScript; the same actions are JSON endpoints (<a href="/api/openapi.json">API description</a>).</p>
<form class="admin-form" data-admin="token"><label for="admin-token">Admin token</label><input id="admin-token" type="password" autocomplete="off" required></form>
<div class="admin-actions">
<button type="button" data-admin="pause">Pause crawl</button>
<button type="button" data-admin="resume">Resume crawl</button>
</div>
<form class="admin-form" data-admin="seeds"><label for="admin-seeds">Add seeds (one URL per line)</label><textarea id="admin-seeds" rows="3" required></textarea><button type="submit">Add seeds</button></form>
<form class="admin-form" data-admin="recrawl"><label for="admin-recrawl">Recrawl a URL or a host (empty: everything)</label><input id="admin-recrawl" type="text" placeholder="https://example.org/page or example.org"><button type="submit">Recrawl</button></form>
<form class="admin-form" data-admin="remove"><label for="admin-remove">Remove a URL or a host from the index</label><input id="admin-remove" type="text" required placeholder="https://example.org/page or example.org"><button type="submit">Remove</button></form>
<p id="admin-result" role="status" aria-live="polite"></p>`
    : html`<p>Admin actions are off: set <code>server.adminToken</code> (or the environment variable <code>TRAWL_ADMIN_TOKEN</code>) to turn them on.</p>`
}
</section>`;
}
