/**
 * HTML → what the index needs: title, headings, meta description, readable body text without
 * navigation, scripts or boilerplate, and every link with its anchor text (links are taken from the
 * whole page, navigation included).
 *
 * cheerio parses (with htmlparser2 rather than parse5: about three times faster on real
 * documentation, and forgiving of broken markup); then ONE walk over the tree collects everything.
 * A CSS selector per field walked the whole tree a dozen times and was a quarter of the crawl's
 * CPU time (bench/crawl).
 */
import * as cheerio from 'cheerio/slim';
import type { DocumentFacts, PageContent } from '../../model/index.ts';
import { bodyOf, inTemplate, LineBuilder } from './blocks.ts';
import { textOf, type DomNode } from './dom.ts';

export type Link = { readonly url: string; readonly text: string; readonly nofollow: boolean };

export type ParsedPage = PageContent & {
  readonly links: readonly Link[];
  /** `<meta name="robots" content="noindex">` (or none): do not put this page in the index. */
  readonly noindex: boolean;
  /** `<meta name="robots" content="nofollow">` (or none): do not follow this page's links. */
  readonly nofollow: boolean;
  readonly canonical?: string;
  /** `<meta http-equiv="refresh" content="N; url=…">` with N ≤ 10 s: the page forwards there (absolute). */
  readonly refresh?: string;
  readonly lang?: string;
  /** `<meta name="keywords">`: not indexed (search engines learned to ignore it), read by a topic filter. */
  readonly keywords?: string;
  /** Links the page had beyond the cap (limits.maxLinksPerPage): counted, not kept. Absent when none were cut. */
  readonly linksCut?: number;
  /** A document that is not an HTML page (crawler/documents): its format and facts. */
  readonly document?: DocumentFacts;
  /** Signs that the page is built by its scripts (crawler/render/detect.ts reads them); absent without scripts. */
  readonly spa?: SpaSigns;
  /** The hashes of its text blocks, for the host's template learner (blocks.ts); absent for documents. */
  readonly blocks?: Uint32Array;
  /** The SimHash of its text (lib/simhash.ts), when it has enough words for one. */
  readonly simhash?: string;
};

/** What a page's host tells the parser beyond the markup: blocks to leave out of the text. */
export type Extraction = {
  /** CSS selectors (a list, comma-separated): the text of matching elements is not body text (config extract.exclude). */
  readonly exclude?: string;
  /** Sorted hashes of the host's template blocks (crawler/template): not body text either. */
  readonly template?: Uint32Array;
};

/** What the walk saw of a page's scripts and app shell: the renderer's detector decides from it. */
export type SpaSigns = {
  /** `<script>` elements, inline or not. */
  readonly scripts: number;
  /** The first app root (`#root`, `#app`, `#__next`, `[ng-app]`, …), as a selector, and the characters of text inside it. */
  readonly appRoot?: string;
  readonly appRootText: number;
  /** A `<noscript>` that asks for JavaScript. */
  readonly noscriptAsksJs: boolean;
  /** Elements that act as links without being `<a href>`: onclick, router and click-binding attributes. */
  readonly clickables: number;
};

/** The ids of the mount points the usual front-end frameworks render into. */
const APP_ROOT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'react-root', 'main-app', 'application']);
/** Attributes that mark an app root by themselves. */
const APP_ROOT_ATTRIBUTES = ['ng-app', 'data-reactroot', 'data-v-app', 'ng-version'];
/** Attributes that make an element act as a link when a script runs. */
const CLICK_ATTRIBUTES = ['onclick', 'ng-click', 'v-on:click', '@click', 'routerlink', 'data-href', 'data-link', '(click)'];
const ASKS_FOR_JS = /(enable|requires?|needs?|turn on|activate)\b[^.]{0,40}\bjavascript|javascript\b[^.]{0,30}\b(required|disabled|needed|must be enabled)/i;

/** A refresh slower than this is a page that reloads itself now and then, not a redirect. */
const MAX_REFRESH_SECONDS = 10;

const LOAD_OPTIONS = { xml: { xmlMode: false, decodeEntities: true } } as const;

/** Elements whose content is never text (not even anchor text). */
const NOT_TEXT = new Set(['script', 'style', 'template', 'noscript', 'svg', 'canvas', 'object', 'iframe', 'head']);
/** Elements whose text is not the page's content; links inside them still count. */
const BOILERPLATE = new Set(['nav', 'header', 'footer', 'aside', 'form', 'button', 'select']);
const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);
const BLOCK = new Set(['address', 'article', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'li', 'main', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul', 'caption', 'body', 'option']);
const HEADING = new Set(['h1', 'h2', 'h3']);

/**
 * Links kept per page unless told otherwise (limits.maxLinksPerPage): high enough for real API
 * indexes (rust-doc's core::arch::x86 has 9,585), bounded so a hostile page cannot fill the memory.
 */
export const DEFAULT_MAX_LINKS = 100_000;
const MAX_HEADINGS = 200;
/** Field caps: what is stored and indexed (a page is never cut anywhere else). */
const MAX_TITLE = 1000;
const MAX_DESCRIPTION = 5000;
const MAX_HEADING = 500;

type RawLink = { href: string; text: string[]; alt: string; title: string; nofollow: boolean };

export function parseHtml(html: string, pageUrl: string, robotsToken = 'trawlbot', maxLinks = DEFAULT_MAX_LINKS, extraction: Extraction = {}): ParsedPage {
  const $ = cheerio.load(html, LOAD_OPTIONS);
  // Elements the host's selectors name are marked first (css-select walks the tree once for the
  // whole list); the walk below then treats them like <nav>.
  const excluded = extraction.exclude ? new Set<unknown>($(extraction.exclude).toArray()) : undefined;
  const token = robotsToken.toLowerCase();
  let baseHref: string | undefined;
  let title: string | undefined;
  let description = '';
  let keywords = '';
  let ogDescription = '';
  let canonical: string | undefined;
  let refresh: string | undefined;
  let lang: string | undefined;
  const robots: string[] = [];
  const headings: string[] = [];
  const raw: RawLink[] = [];
  /** Links past maxLinks: counted, so that the cut is recorded, not kept. */
  let cut = 0;
  const lines = new LineBuilder();
  let sawMain = false;
  // What the render detector reads: scripts, the app root and the text in it, clickable non-links.
  let scripts = 0;
  let textChars = 0;
  let appRoot: string | undefined;
  let appRootText = 0;
  let noscriptAsksJs = false;
  let clickables = 0;

  // Iterative depth-first walk (deep documents must not overflow the stack).
  type Frame = { node: DomNode; boiler: boolean; noText: boolean; main: boolean; anchor: RawLink | undefined; heading: string[] | undefined; exit?: string };
  const stack: Frame[] = [{ node: $.root()[0] as unknown as DomNode, boiler: false, noText: false, main: false, anchor: undefined, heading: undefined }];
  while (stack.length) {
    const f = stack.pop()!;
    const { node } = f;
    if (f.exit !== undefined) {
      // Leaving an element: close blocks and headings.
      if (f.exit === 'block') {
        if (!f.boiler && !f.noText) lines.end();
      } else if (f.exit.startsWith('root:')) {
        appRootText = textChars - Number(f.exit.slice(5));
      } else if (f.exit === 'heading' && f.heading) {
        const h = squash(f.heading.join('')).slice(0, MAX_HEADING);
        if (h && headings.length < MAX_HEADINGS) headings.push(h);
      }
      continue;
    }
    if (node.type === 'text') {
      const t = node.data ?? '';
      if (f.anchor) f.anchor.text.push(t);
      if (f.noText) continue;
      if (f.heading) f.heading.push(t);
      if (!f.boiler) lines.add(t, f.anchor !== undefined, f.main);
      textChars += t.trim().length;
      continue;
    }
    if (node.type === 'script') scripts++;
    if (node.type !== 'tag' && node.type !== 'root' && node.type !== 'script' && node.type !== 'style') continue;
    const name = node.name ?? '';
    const a = node.attribs ?? {};
    let { boiler, noText, main, anchor, heading } = f;
    switch (name) {
      case 'html':
        lang = a.lang?.trim() || undefined;
        break;
      case 'title':
        if (title === undefined) title = squash(textOf(node));
        continue;
      case 'base':
        if (baseHref === undefined && a.href) baseHref = a.href;
        continue;
      case 'meta': {
        const metaName = (a.name ?? '').toLowerCase();
        if (metaName === 'robots' || metaName === token) robots.push((a.content ?? '').toLowerCase());
        else if (metaName === 'description') description = a.content ?? '';
        else if (metaName === 'keywords') keywords = a.content ?? '';
        else if ((a.property ?? '').toLowerCase() === 'og:description') ogDescription = a.content ?? '';
        else if (refresh === undefined && (a['http-equiv'] ?? '').toLowerCase() === 'refresh') refresh = refreshTarget(a.content ?? '');
        continue;
      }
      case 'link':
        if (canonical === undefined && a.href && /(^|\s)canonical(\s|$)/i.test(a.rel ?? '')) canonical = a.href;
        continue;
      case 'a':
      case 'area':
        if (a.href !== undefined) {
          if (raw.length < maxLinks) {
            anchor = { href: a.href, text: [], alt: '', title: a.title ?? '', nofollow: /(^|\s)nofollow(\s|$)/i.test(a.rel ?? '') };
            raw.push(anchor);
          } else cut++;
        }
        break;
      case 'img':
        if (anchor && !anchor.alt && a.alt) anchor.alt = a.alt;
        continue;
      case 'main':
        main = true;
        sawMain = true;
        break;
      case 'noscript':
        if (!noscriptAsksJs) noscriptAsksJs = ASKS_FOR_JS.test(textOf(node));
        break;
    }
    if (node.type === 'tag') {
      if (appRoot === undefined) {
        const root = a.id !== undefined && APP_ROOT_IDS.has(a.id) ? `#${a.id}` : APP_ROOT_ATTRIBUTES.find((x) => a[x] !== undefined);
        // (Its text is counted on leaving it: the characters of text seen in between.)
        if (root !== undefined) {
          appRoot = root.startsWith('#') ? root : `[${root}]`;
          stack.push({ node, boiler, noText, main, anchor, heading, exit: `root:${textChars}` });
        }
      }
      if (name !== 'a' && CLICK_ATTRIBUTES.some((x) => a[x] !== undefined)) clickables++;
    }
    if (NOT_TEXT.has(name) || node.type === 'script' || node.type === 'style') noText = true;
    if (BOILERPLATE.has(name) || a.hidden !== undefined || a['aria-hidden'] === 'true' || BOILERPLATE_ROLES.has(a.role ?? '') || a['data-trawl-ignore'] !== undefined || excluded?.has(node)) boiler = true;
    const isHeading = HEADING.has(name) && !boiler && !noText;
    if (isHeading) heading = [];
    const block = BLOCK.has(name);
    if (block && !boiler && !noText) lines.end();
    if (block || isHeading) stack.push({ node, boiler, noText, main, anchor, heading, exit: isHeading ? 'heading' : 'block' });
    const children = node.children ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, boiler, noText, main, anchor, heading });
  }

  const base = resolve(baseHref ?? '', pageUrl) ?? pageUrl;
  const links: Link[] = [];
  for (const l of raw) {
    const url = resolve(l.href, base);
    if (!url) continue;
    const text = squash(l.text.join('')) || squash(l.alt) || squash(l.title);
    links.push({ url, text: text.slice(0, 300), nofollow: l.nofollow });
  }
  const body = bodyOf(lines, sawMain, extraction.template);
  // A heading that is one of the host's template blocks ("Table of Contents" in every sidebar) goes too.
  const kept = extraction.template ? headings.filter((h) => !inTemplate(extraction.template, h)) : headings;
  const canonicalUrl = canonical ? resolve(canonical, base) : undefined;
  const refreshUrl = refresh ? resolve(refresh, base) : undefined;
  const robotsAll = robots.join(',');
  return {
    url: pageUrl,
    title: (title || headings[0] || fallbackTitle(pageUrl)).slice(0, MAX_TITLE),
    description: squash(description || ogDescription).slice(0, MAX_DESCRIPTION),
    headings: kept,
    text: body.text,
    blocks: body.blocks,
    links,
    noindex: /\b(noindex|none)\b/.test(robotsAll),
    nofollow: /\b(nofollow|none)\b/.test(robotsAll),
    ...(canonicalUrl ? { canonical: canonicalUrl } : {}),
    ...(refreshUrl && refreshUrl !== pageUrl ? { refresh: refreshUrl } : {}),
    ...(lang ? { lang } : {}),
    ...(keywords.trim() ? { keywords: squash(keywords).slice(0, MAX_DESCRIPTION) } : {}),
    ...(cut ? { linksCut: cut } : {}),
    ...(scripts ? { spa: { scripts, ...(appRoot ? { appRoot } : {}), appRootText, noscriptAsksJs, clickables } } : {}),
  };
}

/** Plain text pages: the text is the content, the file name the title. */
export function parsePlainText(text: string, pageUrl: string): ParsedPage {
  return { url: pageUrl, title: fallbackTitle(pageUrl).slice(0, MAX_TITLE), description: '', headings: [], text: text.replace(/\r\n?/g, '\n').trim(), links: [], noindex: false, nofollow: false };
}

/**
 * The URL of a meta refresh's content (`5; url='next.html'`, `0;URL=x`), per the HTML standard's
 * shared declarative refresh steps, when it comes within MAX_REFRESH_SECONDS.
 */
function refreshTarget(content: string): string | undefined {
  const m = /^\s*(\d+)(?:\.[\d.]*)?\s*(?:[;,]\s*(?:url\s*=\s*)?(.*))?$/is.exec(content);
  if (!m || Number(m[1]) > MAX_REFRESH_SECONDS || !m[2]) return undefined;
  let url = m[2].trim();
  const quote = url[0];
  if (quote === '"' || quote === "'") url = url.slice(1, url.indexOf(quote, 1) < 0 ? undefined : url.indexOf(quote, 1));
  return url.trim() || undefined;
}

function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function resolve(href: string, base: string): string | undefined {
  const h = href.trim();
  if (!h || h.startsWith('#')) return undefined;
  try {
    return new URL(h, base).href;
  } catch {
    return undefined;
  }
}

function fallbackTitle(pageUrl: string): string {
  const u = new URL(pageUrl);
  const segment = u.pathname.split('/').filter(Boolean).pop() ?? '';
  let last = segment;
  try {
    last = decodeURIComponent(segment);
  } catch {
    /* malformed escape: keep it as it is */
  }
  return last || u.host;
}
