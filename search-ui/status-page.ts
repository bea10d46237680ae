/**
 * The crawl dashboard (/status): the figures, a chart of the counts over time, the hosts, the
 * latest fetches and why URLs were turned away; a URL lookup ("why is this page not in the
 * index?") and the admin actions. The live part is one fragment, rendered here both for the page
 * and for each server-sent event, so that the browser swaps it in and nothing is drawn twice.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { ApplianceStatus, RenderStatus, UrlExplanation } from '../model/index.ts';
import { seedCause } from './status-line.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

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

const when = (t: number | string | null) =>
  t === null
    ? '—'
    : new Date(t)
        .toISOString()
        .replace('T', ' ')
        .replace(/\.\d+Z$/, ' UTC');
const n = (x: number) => x.toLocaleString('en');

/** The live fragment: swapped in whole at each event. */
export function liveStatus(s: ApplianceStatus, samples: readonly Sample[], now = Date.now()): Html {
  const c = s.crawl;
  const state = c.paused ? 'paused' : c.running ? 'crawling' : 'idle';
  return html`<section aria-labelledby="figures-h">
<h2 id="figures-h">Crawl <span class="state" data-state="${state}">${state}</span></h2>
<dl class="figures">
<div><dt>Pages/s</dt><dd data-figure="pages-per-second">${c.pagesPerSecond}</dd></div>
<div><dt>Fetched</dt><dd data-figure="fetched">${n(c.fetched)}</dd></div>
<div><dt>Queued</dt><dd data-figure="queued">${n(c.queued)}</dd></div>
<div><dt>In flight</dt><dd data-figure="in-flight">${n(c.inFlight)}</dd></div>
<div><dt>Failed</dt><dd data-figure="failed">${n(c.failed)}</dd></div>
<div><dt>Excluded</dt><dd data-figure="excluded">${n(c.excluded)}</dd></div>
${c.linksCut?.pages ? html`<div><dt>Pages with links cut</dt><dd data-figure="links-cut" title="${n(c.linksCut.links)} links beyond limits.maxLinksPerPage not followed">${n(c.linksCut.pages)} <span class="why">(${n(c.linksCut.links)} links)</span></dd></div>` : ''}
<div><dt>Documents indexed</dt><dd data-figure="documents">${n(s.index.documents)}</dd></div>
${s.index.byType && s.index.byType.length > 1 ? html`<div><dt>By type</dt><dd data-figure="by-type">${s.index.byType.map((t, i) => html`${i ? ' · ' : ''}<span data-type="${t.type}">${t.type} ${n(t.count)}</span>`)}</dd></div>` : ''}
${s.index.nearDuplicates ? html`<div><dt>Near-duplicates</dt><dd data-figure="near-duplicates" title="Documents with another within ${s.index.nearDuplicates.maxDistance} bits of SimHash (counted ${when(s.index.nearDuplicates.countedAt)}): they fold under one another in results">${n(s.index.nearDuplicates.documents)} <span class="why">in ${n(s.index.nearDuplicates.clusters)} cluster${s.index.nearDuplicates.clusters === 1 ? '' : 's'}</span></dd></div>` : ''}
${c.templates ? html`<div><dt>Templates learned</dt><dd data-figure="templates" title="Blocks of text on many of a host's pages, kept out of body text and snippets${c.templates.hostsForgotten ? `; ${n(c.templates.hostsForgotten)} hosts forgotten` : ''}">${n(c.templates.hosts)} host${c.templates.hosts === 1 ? '' : 's'} <span class="why">(${n(c.templates.blocks)} blocks, ${n(c.templates.pagesCleaned)} pages cleaned)</span></dd></div>` : ''}
<div><dt>Terms</dt><dd>${n(s.index.terms)}</dd></div>
<div><dt>Last flush</dt><dd>${when(s.index.lastFlushAt)}${s.index.lastFlushBytes !== null ? ` · ${(s.index.lastFlushBytes / 1e6).toFixed(1)} MB` : ''}</dd></div>
</dl>
${chart(samples)}
</section>
<section aria-labelledby="recrawl-h">
<h2 id="recrawl-h">Recrawl</h2>
<p>${s.recrawl.continuous ? 'Pages are fetched again as they fall due, between new ones.' : 'Pages are fetched again only when a recrawl is asked for.'} Next page due: ${when(s.recrawl.nextDueAt)}.</p>
<dl class="figures">
<div><dt>Due now</dt><dd data-figure="due">${n(s.recrawl.due)}</dd></div>
<div><dt>Revisited</dt><dd data-figure="revisited">${n(s.recrawl.revisited)}</dd></div>
<div><dt>Changed</dt><dd data-figure="changed">${n(s.recrawl.changed)}</dd></div>
<div><dt>Unchanged</dt><dd data-figure="unchanged">${n(s.recrawl.unchanged)}</dd></div>
<div><dt>Removed</dt><dd data-figure="removed">${n(s.recrawl.removed)}</dd></div>
</dl>
</section>
${
  s.focus
    ? html`<section aria-labelledby="focus-h">
<h2 id="focus-h">Focus</h2>
<p>Pages are judged by ${s.focus.classifier}: relevant ones are indexed and their links followed; the others are recorded, not indexed.</p>
<dl class="figures">
<div><dt>Relevant</dt><dd data-figure="relevant">${n(s.focus.relevant)}</dd></div>
<div><dt>Not relevant</dt><dd data-figure="not-relevant">${n(s.focus.notRelevant)}</dd></div>
</dl>
</section>`
    : ''
}
${
  s.seeds?.length
    ? html`<section aria-labelledby="seeds-h">
<h2 id="seeds-h">Seeds</h2>
<div class="scroll"><table><thead><tr><th scope="col">Seed</th><th scope="col">State</th><th scope="col">Fetched</th><th scope="col">Problem</th></tr></thead>
<tbody>${s.seeds.map((x) => html`<tr${x.fetched ? '' : raw(' class="trouble"')}><td class="url">${x.url}</td><td>${x.state}</td><td>${x.fetched ? 'yes' : 'no'}</td><td>${x.fetched || !(x.error || x.reason) ? '—' : seedCause(x)}</td></tr>`)}</tbody></table></div>
</section>`
    : ''
}
${s.render ? renderSection(s.render) : ''}
${
  s.auth?.length
    ? html`<section aria-labelledby="auth-h">
<h2 id="auth-h">Logins</h2>
<div class="scroll"><table><thead><tr><th scope="col">Scope</th><th scope="col">Credentials</th><th scope="col">Logins</th><th scope="col">Failed logins</th><th scope="col">Sessions renewed</th><th scope="col">Refused</th><th scope="col">Last problem</th></tr></thead>
<tbody>${s.auth.map((a) => html`<tr${a.loginFailures || a.refused ? raw(' class="trouble"') : ''}><td><code>${a.scope}</code></td><td>${a.kind}</td><td>${n(a.logins)}</td><td>${n(a.loginFailures)}</td><td>${n(a.renewals)}</td><td>${n(a.refused)}</td><td>${a.lastProblem ?? '—'}</td></tr>`)}</tbody></table></div>
</section>`
    : ''
}
${
  s.workers?.length
    ? html`<section aria-labelledby="workers-h">
<h2 id="workers-h">Workers</h2>
<div class="scroll"><table><thead><tr><th scope="col">Worker</th><th scope="col">Machine</th><th scope="col">State</th><th scope="col">Hosts held</th><th scope="col">Pages</th><th scope="col">Pages/s</th><th scope="col">Last heartbeat</th></tr></thead>
<tbody>${s.workers.map((w) => html`<tr${w.state === 'stale' || w.staleHosts ? raw(' class="trouble"') : ''}><td><code>${w.id}</code></td><td>${w.machine} (pid ${w.pid})</td><td>${w.state}</td><td>${n(w.hosts)}${w.staleHosts ? ` (+${n(w.staleHosts)} stale)` : ''}</td><td>${n(w.pages)}</td><td>${w.pagesPerSecond.toFixed(1)}</td><td><time datetime="${w.seenAt}">${w.seenAt}</time></td></tr>`)}</tbody></table></div>
</section>`
    : ''
}
${
  s.shards?.length
    ? html`<section aria-labelledby="shards-h">
<h2 id="shards-h">Shards</h2>
<div class="scroll"><table><thead><tr><th scope="col">Shard</th><th scope="col">Holds</th><th scope="col">State</th><th scope="col">Documents</th><th scope="col">Answered in</th><th scope="col">Problem</th></tr></thead>
<tbody>${s.shards.map((x) => html`<tr${x.up ? '' : raw(' class="trouble"')}><td><code>${x.url}</code></td><td>${x.shard ?? '—'}</td><td>${x.up ? 'up' : 'down'}</td><td>${n(x.documents)}</td><td>${x.ms} ms</td><td>${x.error ?? '—'}</td></tr>`)}</tbody></table></div>
</section>`
    : ''
}
<section aria-labelledby="hosts-h">
<h2 id="hosts-h">Hosts</h2>
${
  c.hosts.length
    ? html`<div class="scroll"><table>
<thead><tr><th scope="col">Host</th><th scope="col">Queued</th><th scope="col">In flight</th><th scope="col">Delay</th><th scope="col">Errors</th><th scope="col">robots.txt</th><th scope="col">Suspended</th></tr></thead>
<tbody>${c.hosts.map(
        (h) =>
          html`<tr><th scope="row">${h.host}</th><td>${n(h.queued)}</td><td>${h.inFlight}</td><td>${(h.delayMs / 1000).toFixed(1)} s</td><td>${h.errors}${h.lastError ? html` <span class="why">(${h.lastError})</span>` : ''}</td><td>${h.waitingForRobots ? 'loading' : 'loaded'}</td><td>${h.suspendedUntil !== null && Date.parse(h.suspendedUntil) > now ? html`until ${when(h.suspendedUntil)}${h.lastError ? html` <span class="why">— ${h.lastError}</span>` : ''}` : 'no'}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p>No host is being crawled.</p>`
}
</section>
<section aria-labelledby="recent-h">
<h2 id="recent-h">Latest fetches</h2>
${
  s.recent.length
    ? html`<div class="scroll"><table class="recent">
<thead><tr><th scope="col">URL</th><th scope="col">Status</th><th scope="col">Outcome</th><th scope="col">Time</th><th scope="col">Bytes</th></tr></thead>
<tbody>${s.recent.map((f) => html`<tr><td class="url">${f.url}</td><td>${f.status}</td><td>${f.outcome}</td><td>${f.ms} ms</td><td>${n(f.bytes)}</td></tr>`)}</tbody></table></div>`
    : html`<p>Nothing fetched yet.</p>`
}
</section>
<section aria-labelledby="rejections-h">
<h2 id="rejections-h">URLs turned away</h2>
${
  c.rejections.length
    ? html`<table><thead><tr><th scope="col">Reason</th><th scope="col">URLs</th></tr></thead>
<tbody>${c.rejections.map((r) => html`<tr><td>${r.reason}</td><td>${n(r.count)}</td></tr>`)}</tbody></table>`
    : html`<p>None so far.</p>`
}
</section>`;
}

/** Pages rendered in a browser: how many, how long, the browser's memory — or why there is no browser. */
function renderSection(r: RenderStatus): Html {
  return html`<section aria-labelledby="render-h">
<h2 id="render-h">Rendering</h2>
<p>${r.mode === 'auto' ? 'Pages that need JavaScript are rendered in a headless browser; the others are read as they come.' : r.mode === 'always' ? 'Every page is rendered in a headless browser.' : 'Only pages that a render rule names are rendered.'}${r.renderingHosts.length ? html` Rendered from the start: ${r.renderingHosts.join(', ')}.` : ''}</p>
${r.unavailable ? html`<p class="notice" role="alert">No browser: ${r.unavailable}. ${n(r.wouldRender)} page${r.wouldRender === 1 ? '' : 's'} that needed one ${r.wouldRender === 1 ? 'was' : 'were'} indexed from ${r.wouldRender === 1 ? 'its' : 'their'} plain HTML.</p>` : ''}
<dl class="figures">
<div><dt>Rendered</dt><dd data-figure="rendered">${n(r.rendered)}</dd></div>
<div><dt>Render failures</dt><dd data-figure="render-failed">${n(r.failed)}</dd></div>
<div><dt>Waiting for the browser</dt><dd data-figure="render-waiting">${n(r.waiting)}</dd></div>
<div><dt>Mean render time</dt><dd data-figure="render-ms">${n(r.meanMs)} ms</dd></div>
<div><dt>Browser memory</dt><dd data-figure="browser-memory">${(r.browserRssBytes / 1e6).toFixed(0)} MB</dd></div>
</dl>
</section>`;
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
