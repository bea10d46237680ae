/**
 * Server-rendered pages. `html` escapes every interpolated value; the only raw HTML inserted is a
 * snippet, which makeSnippet builds from escaped text and <mark> tags alone.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { SearchResponse } from '../indexer/index.ts';
import type { SeedStatus } from '../model/index.ts';
import { staticUrl } from './static-files.ts';
import { seedCause, seedTrouble } from './status-line.ts';

type Html = HtmlEscapedString | Promise<HtmlEscapedString>;
type FacetValue = SearchResponse['facets']['host'][number];

export function layout(opts: { title: string; query?: string; status: string; version: string; body: Html; wide?: boolean; head?: Html }): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title}</title>
<link rel="icon" href="${staticUrl('favicon.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${staticUrl('style.css')}">
<link rel="search" type="application/opensearchdescription+xml" href="/opensearch.xml" title="Trawl">
<script src="${staticUrl('app.js')}" defer></script>
${opts.head ?? ''}
</head>
<body>
<header>
<a class="brand" href="/">Trawl</a>
<form role="search" action="/" method="get">
<label class="visually-hidden" for="q">Search</label>
<input id="q" name="q" type="search" value="${opts.query ?? ''}" placeholder="Search the crawl" autocomplete="off" maxlength="500">
<input type="hidden" name="session" id="q-session" disabled>
<button type="submit">Search</button>
</form>
<nav aria-label="Site"><a href="/status">Crawl status</a> <a href="/console">Search console</a></nav>
</header>
<p id="crawl-status" role="status" aria-live="polite">${opts.status}</p>
<main id="main"${opts.wide ? raw(' class="wide"') : ''}>
${opts.body}
</main>
<footer>Trawl ${opts.version}</footer>
</body>
</html>`;
}

/** Only http(s) URLs become links: a `javascript:` URL must never be clickable. */
function safeHref(url: string): string | undefined {
  return /^https?:\/\//i.test(url) ? url : undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '';
  }
}

/** When a page was crawled, as a person says it ("3 minutes ago"; a date after a week). */
export function crawledAgo(at: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - at) / 1000));
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'} ago`;
  if (s < 60) return 'just now';
  if (s < 3600) return unit(Math.floor(s / 60), 'minute');
  if (s < 86_400) return unit(Math.floor(s / 3600), 'hour');
  if (s < 7 * 86_400) return unit(Math.floor(s / 86_400), 'day');
  return new Date(at).toISOString().slice(0, 10);
}

/** How a result's type reads on its badge. */
const TYPE_NAMES: Readonly<Record<string, string>> = {
  pdf: 'PDF',
  docx: 'Word',
  pptx: 'PowerPoint',
  xlsx: 'Excel',
  odt: 'ODT',
  odp: 'ODP',
  ods: 'ODS',
  text: 'Text',
  markdown: 'Markdown',
};
/** What pages are called in a type of document. */
const PAGE_WORDS: Readonly<Record<string, [string, string]>> = {
  pptx: ['slide', 'slides'],
  odp: ['slide', 'slides'],
  xlsx: ['sheet', 'sheets'],
  ods: ['sheet', 'sheets'],
};

/** "PDF · 34 pages · p. 12": the type, its size in pages, and the page the snippet is on. */
export function documentLine(h: { readonly type?: string; readonly pages?: number; readonly page?: number }): string {
  const [one, many] = PAGE_WORDS[h.type ?? ''] ?? ['page', 'pages'];
  const parts = [TYPE_NAMES[h.type ?? ''] ?? (h.type ?? '').toUpperCase()];
  if (h.pages) parts.push(`${h.pages.toLocaleString('en')} ${h.pages === 1 ? one : many}`);
  if (h.page) parts.push(one === 'page' ? `p. ${h.page}` : `${one} ${h.page}`);
  return parts.join(' · ');
}

/** "Did you mean …?", linking to the corrected query. */
function suggestionLine(r: SearchResponse): Html | string {
  return r.suggestion ? html`<p class="suggestion">Did you mean <a href="/?q=${encodeURIComponent(r.suggestion)}">${r.suggestion}</a>?</p>` : '';
}

/**
 * The query as typed with the corrected words put in (the words the index folded them to: they
 * are found whatever their case), as parts: [text, corrected?].
 */
export function correctedParts(query: string, corrected: SearchResponse['corrected'] = []): [string, boolean][] {
  const parts: [string, boolean][] = [];
  let rest = query;
  for (const { from, to } of corrected) {
    const m = new RegExp(`(?<![\\p{L}\\p{N}])${from.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\p{L}\\p{N}])`, 'iu').exec(rest);
    if (!m) continue;
    parts.push([rest.slice(0, m.index), false], [to, true]);
    rest = rest.slice(m.index + m[0].length);
  }
  parts.push([rest, false]);
  return parts.filter(([t]) => t);
}

/**
 * "Including results for …" (forgiving search took some words for others): the corrected query,
 * the words taken in bold, and the search for the words as typed only (exact=1).
 */
function correctionLine(r: SearchResponse): Html | string {
  if (!r.corrected?.length) return '';
  const parts = correctedParts(r.query, r.corrected);
  const fixed = parts.map(([t]) => t).join('');
  const taken = parts.map(([t, c]) => (c ? html`<strong>${t}</strong>` : t));
  const asTyped = html`<a href="/?q=${encodeURIComponent(r.query)}&amp;exact=1" rel="nofollow">Search only for ${r.query}</a>`;
  return html`<p class="corrected" id="corrected">Including results for <a href="/?q=${encodeURIComponent(fixed)}">${taken}</a>. ${asTyped}</p>`;
}

/** The facets shown, each with the filter its values add to the query. */
const FACETS = [
  { key: 'host', filter: 'site', label: 'Sites', name: 'site' },
  { key: 'lang', filter: 'lang', label: 'Languages', name: 'language' },
  { key: 'type', filter: 'type', label: 'Types', name: 'type' },
  { key: 'topic', filter: 'topic', label: 'Topics', name: 'topic' },
] as const;

/**
 * Result counts by host, language, type and topic, when there is a choice: two values or more (a
 * page has one of each), or a topic that not every result has (a page may have several or none).
 * Each narrows the query with its filter.
 */
function facetLists(r: SearchResponse): Html[] {
  const choice = (f: (typeof FACETS)[number]) => (f.key === 'topic' ? r.facets.topic.some((v) => v.count < r.total) : r.facets[f.key].length > 1);
  return FACETS.filter(choice).map((f) => {
    const item = (v: FacetValue) => {
      const count = html`<span class="count">${v.count.toLocaleString('en')}</span>`;
      return html`<li><a href="/?q=${encodeURIComponent(`${r.query} ${f.filter}:${v.value}`)}">${v.value}</a> ${count}</li>`;
    };
    return html`<nav class="facets" aria-label="Filter by ${f.name}"><h2>${f.label}</h2><ul>
${r.facets[f.key].map(item)}
</ul></nav>`;
  });
}

/**
 * The near-duplicates folded under a result ("3 similar pages"), in a <details> that opens without
 * JavaScript; each a link (when it is http(s)) with its address.
 */
function similarPages(h: SearchResponse['hits'][number]): Html | string {
  if (!h.similar?.length) return '';
  const count = h.similar.length + (h.moreSimilar ?? 0);
  return html`<details class="similar"><summary>${count.toLocaleString('en')} similar page${count === 1 ? '' : 's'}</summary><ul>
${h.similar.map((x) => {
  const href = safeHref(x.url);
  return html`<li>${href ? html`<a href="${href}">${x.title}</a>` : x.title} <span class="result-url">${x.url}</span></li>`;
})}${h.moreSimilar ? html`<li>and ${h.moreSimilar.toLocaleString('en')} more</li>` : ''}
</ul></details>`;
}

/**
 * A result's line under its address: the document's format and pages (when it is not an HTML
 * page), the host, when it was crawled, and the topics a focused crawl filed it under, each a
 * search for `query` within that topic.
 */
function resultMeta(h: SearchResponse['hits'][number], query: string): Html {
  const doc = h.type ? html`<span class="result-doc">${documentLine(h)}</span> · ` : '';
  const crawled = html`<time datetime="${new Date(h.fetchedAt).toISOString()}">${crawledAgo(h.fetchedAt)}</time>`;
  const topicLinks = h.topics?.map((t, i) => html`${i ? ', ' : ''}<a href="/?q=${encodeURIComponent(`${query} topic:${t}`)}">${t}</a>`);
  const topics = h.topics?.length ? html` · <span class="result-topics">topics: ${topicLinks}</span>` : '';
  return html`${doc}<span class="result-host">${hostOf(h.url)}</span> · crawled ${crawled}${topics}`;
}

/** A coordinator's answer without some shards (down or slow): results from their pages are missing. */
function missingShards(r: SearchResponse): Html | string {
  if (!r.shards?.partial) return '';
  const { asked, answered, missing } = r.shards;
  const what = answered ? `${asked - answered} of ${asked} parts of the index did not answer` : 'no part of the index answered';
  const which = missing.map((m, i) => html`${i ? '; ' : ''}<code>${m.shard}</code>: ${m.error}`);
  return html`<p class="notice trouble" id="missing-shards" role="status">Results may be missing: ${what} (${which}).</p>`;
}

/** `exact`: the search was for the words as typed only (exact=1), which its page links keep. */
/** `searchId`: the search in the search log (the page's script reports a click on a result with it). */
export function resultsBody(r: SearchResponse, opts: { readonly exact?: boolean; readonly searchId?: string | undefined } = {}): Html {
  if (!r.total) {
    return html`<section class="empty" aria-labelledby="empty-h">
<h2 id="empty-h">No results for “${r.query}”</h2>
${missingShards(r)}
${suggestionLine(r)}
<p>Try fewer or different words. Every word must appear in a page (in a query of three words or more, all but one;
of six or more, all but two); <code>-word</code> excludes pages with that word,
<code>"two words"</code> asks for a phrase, <code>a OR b</code> for either word, <code>site:host</code> for one site,
<code>lang:en</code> for one language, <code>type:pdf</code>, <code>type:slides</code> or <code>type:html</code> for one kind of document,
<code>topic:name</code> for the pages a focused crawl filed under a topic.
The crawl may also not have reached the page yet: the index grows while it runs.</p>
</section>`;
  }
  const pages = Math.ceil(r.total / r.size);
  const link = (page: number) => `/?q=${encodeURIComponent(r.query)}${page > 1 ? `&page=${page}` : ''}${opts.exact ? '&exact=1' : ''}`;
  const first = (r.page - 1) * r.size + 1;
  const atLeast = r.totalIsLowerBound ? 'At least ' : '';
  const pageOf = r.page > 1 ? ` — page ${r.page} of ${pages}` : '';
  return html`<p class="summary" id="summary">${atLeast}${r.total.toLocaleString('en')} result${r.total === 1 ? '' : 's'} (${r.tookMs} ms)${pageOf}</p>
${missingShards(r)}
${correctionLine(r)}
${suggestionLine(r)}
${r.partial ? html`<p class="notice">No page contains all of your words; these pages contain some of them.</p>` : ''}
${facetLists(r)}
<ol class="results" start="${first}" aria-label="Search results"${opts.searchId ? html` data-search-id="${opts.searchId}"` : ''}>
${r.hits.map((h, i) => {
  const href = safeHref(h.url);
  // A PDF opens at the page the snippet is on (PDF viewers read #page=N).
  // The section the query found opens at its heading (query/section.ts).
  const section = h.section ? safeHref(h.section.url) : undefined;
  const at = section ?? (href && h.type === 'pdf' && h.page ? `${href.replace(/#.*$/, '')}#page=${h.page}` : href);
  const badge = h.type ? html`<span class="badge" data-type="${h.type}">${TYPE_NAMES[h.type] ?? h.type.toUpperCase()}</span> ` : '';
  const title = at ? html`<a class="result-title" href="${at}">${h.title}</a>` : html`<span class="result-title">${h.title}</span>`;
  return html`<li data-position="${i + 1}" data-url="${h.url}">
<h2 class="result-h">${badge}${title}</h2>
<div class="result-url">${h.url}${h.section && section ? html` › <a class="result-section" href="${section}">${h.section.heading}</a>` : ''}</div>
<div class="result-meta">${resultMeta(h, r.query)}</div>
<p class="snippet">${raw(h.snippet)}</p>
${h.missing?.length ? html`<p class="missing">Missing: ${h.missing.map((w, i) => html`${i ? ', ' : ''}<s>${w}</s>`)}</p>` : ''}
${similarPages(h)}
</li>`;
})}
</ol>
${
  pages > 1
    ? html`<nav class="pages" aria-label="Result pages">
${r.page > 1 ? html`<a href="${link(r.page - 1)}" rel="prev">‹ Previous</a>` : ''}
<span>Page ${r.page} of ${pages}</span>
${r.page < pages ? html`<a href="${link(r.page + 1)}" rel="next">Next ›</a>` : ''}
</nav>`
    : ''
}`;
}

export function homeBody(documents: number, seeds?: readonly SeedStatus[]): Html {
  const trouble = seedTrouble(seeds);
  return html`<section aria-labelledby="home-h">
<h1 id="home-h" class="visually-hidden">Search</h1>
${
  trouble
    ? html`<div class="notice" role="alert"><p><strong>No seed could be fetched</strong>, so there is nothing to search yet:</p>
<ul>${seeds!.map((s) => html`<li><span class="url">${s.url}</span>: ${seedCause(s)}</li>`)}</ul>
<p>Check the address, or the network between Trawl and the site; <a href="/status">the crawl status</a> shows each seed.</p></div>`
    : ''
}
<p class="summary">${documents.toLocaleString('en')} documents in the index. Type a few words above.</p>
</section>`;
}

export function errorBody(message: string): Html {
  return html`<section class="empty" aria-labelledby="err-h"><h2 id="err-h">That search could not be run</h2><p>${message}</p></section>`;
}
