/**
 * The crawl dashboard (/status): the figures, a chart of the counts over time, the hosts, the
 * latest fetches and why URLs were turned away; a URL lookup ("why is this page not in the
 * index?") and the admin actions. The live part is one fragment, rendered here both for the page
 * and for each server-sent event, so that the browser swaps it in and nothing is drawn twice.
 */
import { html } from 'hono/html';
import type { ApplianceStatus, UrlExplanation } from '../model/index.ts';
import {
  authPanel,
  figuresPanel,
  focusPanel,
  hostsPanel,
  type Html,
  n,
  recentPanel,
  recrawlPanel,
  rejectionsPanel,
  renderPanel,
  seedsPanel,
  shardsPanel,
  when,
  workersPanel,
} from './status-panels.ts';

/** One sample of the counts, for the chart. */
export type Sample = { readonly t: number; readonly fetched: number; readonly queued: number; readonly failed: number; readonly excluded: number };

/** The last SAMPLES seconds of counts, one sample a second at most. */
export class History {
  private readonly samples: Sample[] = [];
  add(s: ApplianceStatus, now = Date.now()): void {
    const last = this.samples.at(-1);
    if (last && now - last.t < 1000) return;
    this.samples.push({ t: now, fetched: s.crawl.fetched, queued: s.crawl.queued, failed: s.crawl.failed, excluded: s.crawl.excluded });
    if (this.samples.length > SAMPLES) this.samples.shift();
  }
  get all(): readonly Sample[] {
    return this.samples;
  }
}
const SAMPLES = 300;

const SERIES = [
  { key: 'fetched', label: 'fetched', color: '#0b57d0' },
  { key: 'queued', label: 'queued', color: '#8250df' },
  { key: 'failed', label: 'failed', color: '#cf222e' },
  { key: 'excluded', label: 'excluded', color: '#9a6700' },
] as const;

/** The counts over time as lines, each scaled to the largest count (the legend gives the last values). */
function chart(samples: readonly Sample[]): Html {
  const w = 600;
  const h = 120;
  const max = Math.max(1, ...samples.flatMap((s) => SERIES.map((x) => s[x.key])));
  const t0 = samples[0]?.t ?? 0;
  const span = Math.max(1000, (samples.at(-1)?.t ?? 0) - t0);
  const points = (key: (typeof SERIES)[number]['key']) =>
    samples.map((s) => `${(((s.t - t0) / span) * w).toFixed(1)},${(h - (s[key] / max) * (h - 4) - 2).toFixed(1)}`).join(' ');
  const last = samples.at(-1);
  return html`<figure class="chart">
<svg viewBox="0 0 ${w} ${h}" preserveAspectRatio="none" role="img" aria-label="URL counts over the last ${Math.round(span / 1000)} seconds">
${SERIES.map((x) => html`<polyline fill="none" stroke="${x.color}" stroke-width="2" vector-effect="non-scaling-stroke" points="${points(x.key)}"/>`)}
</svg>
<figcaption>${SERIES.map((x) => html`<span class="key"><span class="swatch swatch-${x.key}"></span>${x.label} ${(last?.[x.key] ?? 0).toLocaleString('en')}</span>`)}</figcaption>
</figure>`;
}

/** The live fragment: swapped in whole at each event — a panel a concern (status-panels.ts), those with nothing to show left out. */
export function liveStatus(s: ApplianceStatus, samples: readonly Sample[], now = Date.now()): Html {
  return html`${figuresPanel(s, chart(samples))}
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
