/**
 * The dashboard's panels, one function each: what the live fragment (status-page.ts `liveStatus`)
 * puts in a row. Each renders its part of ApplianceStatus as a section; a panel with nothing to
 * show is left out by the caller.
 */
import { html } from 'hono/html';
import type {
  ApplianceStatus,
  AuthScopeStatus,
  CrawlStatus,
  FetchEvent,
  FocusStatus,
  IndexStatus,
  RecrawlStatus,
  RenderStatus,
  SeedStatus,
  ShardStatus,
  WorkerStatus,
} from '../model/index.ts';
import { failureFigures } from './status-failures.ts';
import { head, type Html, n, td, trouble, when } from './status-html.ts';
import { seedCause } from './status-line.ts';

/** The crawl's figures and the index's, with the chart below them. */
export function figuresPanel(s: ApplianceStatus, chart: Html): Html {
  const c = s.crawl;
  const state = c.paused ? 'paused' : c.running ? 'crawling' : 'idle';
  return html`<section aria-labelledby="figures-h">
<h2 id="figures-h">Crawl <span class="state" data-state="${state}">${state}</span></h2>
<dl class="figures">
<div><dt>Pages/s</dt><dd data-figure="pages-per-second">${c.pagesPerSecond}</dd></div>
<div><dt>Fetched</dt><dd data-figure="fetched">${n(c.fetched)}</dd></div>
<div><dt>Queued</dt><dd data-figure="queued">${n(c.queued)}</dd></div>
<div><dt>In flight</dt><dd data-figure="in-flight">${n(c.inFlight)}</dd></div>
${failureFigures(c)}
<div><dt>Excluded</dt><dd data-figure="excluded">${n(c.excluded)}</dd></div>
${linksCutFigure(c)}
<div><dt>Documents indexed</dt><dd data-figure="documents">${n(s.index.documents)}</dd></div>
${byTypeFigure(s.index)}
${nearDuplicatesFigure(s.index)}
${templatesFigure(c)}
<div><dt>Terms</dt><dd>${n(s.index.terms)}</dd></div>
<div><dt>Last flush</dt><dd>${when(s.index.lastFlushAt)}${
    s.index.lastFlushBytes !== null ? ` · ${(s.index.lastFlushBytes / 1e6).toFixed(1)} MB` : ''
  }</dd></div>
</dl>
${chart}
</section>`;
}

function linksCutFigure(c: CrawlStatus): Html | string {
  if (!c.linksCut?.pages) return '';
  const { pages, links } = c.linksCut;
  return html`<div><dt>Pages with links cut</dt><dd data-figure="links-cut" title="${n(links)} links beyond limits.maxLinksPerPage not followed">${n(
    pages,
  )} <span class="why">(${n(links)} links)</span></dd></div>`;
}

function byTypeFigure(i: IndexStatus): Html | string {
  if (!i.byType || i.byType.length <= 1) return '';
  const types = i.byType.map((t, k) => html`${k ? ' · ' : ''}<span data-type="${t.type}">${t.type} ${n(t.count)}</span>`);
  return html`<div><dt>By type</dt><dd data-figure="by-type">${types}</dd></div>`;
}

function nearDuplicatesFigure(i: IndexStatus): Html | string {
  const d = i.nearDuplicates;
  if (!d) return '';
  const clusters = html`<span class="why">in ${n(d.clusters)} cluster${d.clusters === 1 ? '' : 's'}</span>`;
  const title = html`Documents with another within ${d.maxDistance} bits of SimHash (counted ${when(d.countedAt)}): they fold under one another in results`;
  return html`<div><dt>Near-duplicates</dt><dd data-figure="near-duplicates" title="${title}">${n(d.documents)} ${clusters}</dd></div>`;
}

function templatesFigure(c: CrawlStatus): Html | string {
  const t = c.templates;
  if (!t) return '';
  return html`<div><dt>Templates learned</dt><dd data-figure="templates" title="Blocks of text on many of a host's pages, kept out of body text and snippets${
    t.hostsForgotten ? `; ${n(t.hostsForgotten)} hosts forgotten` : ''
  }">${n(t.hosts)} host${t.hosts === 1 ? '' : 's'} <span class="why">(${n(t.blocks)} blocks, ${n(t.pagesCleaned)} pages cleaned)</span></dd></div>`;
}

/** The revisit schedule and what revisits found. */
export function recrawlPanel(r: RecrawlStatus): Html {
  return html`<section aria-labelledby="recrawl-h">
<h2 id="recrawl-h">Recrawl</h2>
<p>${
    r.continuous ? 'Pages are fetched again as they fall due, between new ones.' : 'Pages are fetched again only when a recrawl is asked for.'
  } Next page due: ${when(r.nextDueAt)}.</p>
<dl class="figures">
<div><dt>Due now</dt><dd data-figure="due">${n(r.due)}</dd></div>
<div><dt>Revisited</dt><dd data-figure="revisited">${n(r.revisited)}</dd></div>
<div><dt>Changed</dt><dd data-figure="changed">${n(r.changed)}</dd></div>
<div><dt>Unchanged</dt><dd data-figure="unchanged">${n(r.unchanged)}</dd></div>
<div><dt>Removed</dt><dd data-figure="removed">${n(r.removed)}</dd></div>
</dl>
</section>`;
}

/** A focused crawl: what judges pages, and how many it found relevant. */
export function focusPanel(f: FocusStatus): Html {
  return html`<section aria-labelledby="focus-h">
<h2 id="focus-h">Focus</h2>
<p>Pages are judged by ${f.classifier}: relevant ones are indexed and their links followed; the others are recorded, not indexed.</p>
<dl class="figures">
<div><dt>Relevant</dt><dd data-figure="relevant">${n(f.relevant)}</dd></div>
<div><dt>Not relevant</dt><dd data-figure="not-relevant">${n(f.notRelevant)}</dd></div>
</dl>
</section>`;
}

/** The seeds and whether each could be fetched. */
export function seedsPanel(seeds: readonly SeedStatus[]): Html {
  return html`<section aria-labelledby="seeds-h">
<h2 id="seeds-h">Seeds</h2>
<div class="scroll"><table><thead>${head('Seed', 'State', 'Fetched', 'Problem')}</thead>
<tbody>${seeds.map(
    (x) =>
      html`<tr${trouble(!x.fetched)}><td class="url">${x.url}</td>${[
        td(x.state),
        td(x.fetched ? 'yes' : 'no'),
        td(x.fetched || !(x.error || x.reason) ? '—' : seedCause(x)),
      ]}</tr>`,
  )}</tbody></table></div>
</section>`;
}

/** Pages rendered in a browser: how many, how long, the browser's memory — or why there is no browser. */
export function renderPanel(r: RenderStatus): Html {
  return html`<section aria-labelledby="render-h">
<h2 id="render-h">Rendering</h2>
<p>${RENDER_MODES[r.mode]}${r.renderingHosts.length ? html` Rendered from the start: ${r.renderingHosts.join(', ')}.` : ''}</p>
${r.unavailable ? noBrowser(r.unavailable, r.wouldRender) : ''}
<dl class="figures">
<div><dt>Rendered</dt><dd data-figure="rendered">${n(r.rendered)}</dd></div>
<div><dt>Render failures</dt><dd data-figure="render-failed">${n(r.failed)}</dd></div>
<div><dt>Waiting for the browser</dt><dd data-figure="render-waiting">${n(r.waiting)}</dd></div>
<div><dt>Mean render time</dt><dd data-figure="render-ms">${n(r.meanMs)} ms</dd></div>
<div><dt>Browser memory</dt><dd data-figure="browser-memory">${(r.browserRssBytes / 1e6).toFixed(0)} MB</dd></div>
</dl>
</section>`;
}

const RENDER_MODES: Readonly<Record<RenderStatus['mode'], string>> = {
  auto: 'Pages that need JavaScript are rendered in a headless browser; the others are read as they come.',
  always: 'Every page is rendered in a headless browser.',
  never: 'Only pages that a render rule names are rendered.',
};

/** There is no browser: why, and how many pages that needed one were indexed without it. */
function noBrowser(why: string, pages: number): Html {
  const one = pages === 1;
  return html`<p class="notice" role="alert">No browser: ${why}. ${n(pages)} page${one ? '' : 's'} that needed one ${one ? 'was' : 'were'} indexed from ${
    one ? 'its' : 'their'
  } plain HTML.</p>`;
}

/** The scopes of `auth`: logins, sessions renewed, credentials refused. */
export function authPanel(scopes: readonly AuthScopeStatus[]): Html {
  return html`<section aria-labelledby="auth-h">
<h2 id="auth-h">Logins</h2>
<div class="scroll"><table><thead>${head('Scope', 'Credentials', 'Logins', 'Failed logins', 'Sessions renewed', 'Refused', 'Last problem')}</thead>
<tbody>${scopes.map(
    (a) =>
      html`<tr${trouble(a.loginFailures || a.refused || neverApplied(a))}><td><code>${a.scope}</code></td>${[
        td(a.kind),
        td(n(a.logins)),
        td(n(a.loginFailures)),
        td(n(a.renewals)),
        td(n(a.refused)),
        td(a.lastProblem ?? (neverApplied(a) || '—')),
      ]}</tr>`,
  )}</tbody></table></div>
</section>`;
}

/**
 * What to say of a scope that never applied while pages it does not cover were sent to its login
 * page (its `match` misses the site: the crawl met only the login page); '' when it is not so.
 */
function neverApplied(a: AuthScopeStatus): string {
  if (a.requests || !a.loginRedirectsOutside) return '';
  const pages = `${n(a.loginRedirectsOutside)} page${a.loginRedirectsOutside === 1 ? '' : 's'}`;
  return `never applied: ${pages} of ${a.hostsOutside.join(', ')}, which its match does not cover, sent to its login page`;
}

/** The crawlers sharing the store, each as it last told it. */
export function workersPanel(workers: readonly WorkerStatus[]): Html {
  return html`<section aria-labelledby="workers-h">
<h2 id="workers-h">Workers</h2>
<div class="scroll"><table><thead>${head('Worker', 'Machine', 'State', 'Hosts held', 'Pages', 'Pages/s', 'Last heartbeat')}</thead>
<tbody>${workers.map(
    (w) =>
      html`<tr${trouble(w.state === 'stale' || w.staleHosts)}><td><code>${w.id}</code></td>${[
        td(`${w.machine} (pid ${w.pid})`),
        td(w.state),
        td(`${n(w.hosts)}${w.staleHosts ? ` (+${n(w.staleHosts)} stale)` : ''}`),
        td(n(w.pages)),
        td(w.pagesPerSecond.toFixed(1)),
      ]}<td><time datetime="${w.seenAt}">${w.seenAt}</time></td></tr>`,
  )}</tbody></table></div>
</section>`;
}

/** The shards a coordinator merges, as last checked. */
export function shardsPanel(shards: readonly ShardStatus[]): Html {
  return html`<section aria-labelledby="shards-h">
<h2 id="shards-h">Shards</h2>
<div class="scroll"><table><thead>${head('Shard', 'Holds', 'State', 'Documents', 'Answered in', 'Problem')}</thead>
<tbody>${shards.map(
    (x) =>
      html`<tr${trouble(!x.up)}><td><code>${x.url}</code></td>${[
        td(x.shard ?? '—'),
        td(x.up ? 'up' : 'down'),
        td(n(x.documents)),
        td(`${x.ms} ms`),
        td(x.error ?? '—'),
      ]}</tr>`,
  )}</tbody></table></div>
</section>`;
}

/** The hosts with their politeness state: the busiest first. */
export function hostsPanel(hosts: CrawlStatus['hosts'], now: number): Html {
  return html`<section aria-labelledby="hosts-h">
<h2 id="hosts-h">Hosts</h2>
${
  hosts.length
    ? html`<div class="scroll"><table>
<thead>${head('Host', 'Queued', 'In flight', 'Delay', 'Errors', 'robots.txt', 'Suspended')}</thead>
<tbody>${hosts.map(
        (h) =>
          html`<tr><th scope="row">${h.host}</th>${[
            td(n(h.queued)),
            td(h.inFlight),
            td(`${(h.delayMs / 1000).toFixed(1)} s`),
            td(html`${h.errors}${h.lastError ? html` <span class="why">(${h.lastError})</span>` : ''}`),
            td(h.waitingForRobots ? 'loading' : 'loaded'),
            td(suspension(h, now)),
          ]}</tr>`,
      )}</tbody></table></div>`
    : html`<p>No host is being crawled.</p>`
}
</section>`;
}

/** Until when a host is suspended, and why; or `no`. */
function suspension(h: CrawlStatus['hosts'][number], now: number): Html | string {
  if (h.suspendedUntil === null || Date.parse(h.suspendedUntil) <= now) return 'no';
  return html`until ${when(h.suspendedUntil)}${h.lastError ? html` <span class="why">— ${h.lastError}</span>` : ''}`;
}

/** The latest fetches, newest first. */
export function recentPanel(recent: readonly FetchEvent[]): Html {
  return html`<section aria-labelledby="recent-h">
<h2 id="recent-h">Latest fetches</h2>
${
  recent.length
    ? html`<div class="scroll"><table class="recent">
<thead>${head('URL', 'Status', 'Outcome', 'Time', 'Bytes')}</thead>
<tbody>${recent.map(
        (f) => html`<tr><td class="url">${f.url}</td>${[td(f.status), td(f.outcome), td(`${f.ms} ms`), td(n(f.bytes))]}</tr>`,
      )}</tbody></table></div>`
    : html`<p>Nothing fetched yet.</p>`
}
</section>`;
}

/** Why URLs were not queued, most first. */
export function rejectionsPanel(rejections: CrawlStatus['rejections']): Html {
  return html`<section aria-labelledby="rejections-h">
<h2 id="rejections-h">URLs turned away</h2>
${
  rejections.length
    ? html`<table><thead>${head('Reason', 'URLs')}</thead>
<tbody>${rejections.map((r) => html`<tr><td>${r.reason}</td><td>${n(r.count)}</td></tr>`)}</tbody></table>`
    : html`<p>None so far.</p>`
}
</section>`;
}
