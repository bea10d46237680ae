/**
 * The rules of HTML extraction, whichever way a page is walked: what entering an element, a run of
 * text and leaving an element add to what is known of the page, and the page that comes of it —
 * title, headings, description, body text by blocks without boilerplate, links with anchor text
 * from the whole page, meta robots, refresh, canonical, `<html lang>`, the render detector's signs.
 *
 * Two walks feed it, in document order: stream.ts from htmlparser2's events, building no tree (the
 * usual way), and tree.ts over a cheerio DOM when the host's extract.exclude selectors need one
 * (selectors.ts). A run of text is what one DOM text node holds: the pieces htmlparser2 reports
 * between two other events, joined.
 */
import { bodyOf, inTemplate, LineBuilder } from './blocks.ts';
import { FIELD_CAPS, type Extraction, type Link, type ParsedPage } from './types.ts';
import { squash, trimmedLength } from './whitespace.ts';

/** What is inherited below an element, and what leaving it does. One per open element. */
export type Frame = {
  /** Text here is boilerplate (not body text; links still count). */
  boiler: boolean;
  /** Nothing here is text (scripts, styles, `<head>`…), not even anchor text — except an anchor's own. */
  noText: boolean;
  main: boolean;
  anchor: RawLink | undefined;
  /** The heading whose text this is (h1–h4: rustdoc's items are h4), if any. */
  heading: string[] | undefined;
  /** What leaving the element does: end a block, end a heading, or nothing. */
  exit: number;
  /** The page's text characters when this element, the app root, was entered; -1 for any other. */
  rootStart: number;
};

/** What a walk does with an element (`PageCollector.open`). */
export const Enter = {
  /** Walk its content with the frame given. */
  Walk: 0,
  /** Leave its whole subtree unwalked. */
  Skip: 1,
  /** Leave its subtree unwalked; all the text in it is the page's title (`title()`). */
  SkipTitle: 2,
  /** Walk its content, and hand all the text in it, whatever it is inside, to `noscript()`. */
  WalkNoscript: 3,
} as const;

const Exit = { None: 0, Block: 1, Heading: 2 } as const;

type RawLink = { href: string; text: string[]; alt: string; title: string; nofollow: boolean };

/** The ids of the mount points the usual front-end frameworks render into. */
const APP_ROOT_IDS = new Set(['root', 'app', '__next', '__nuxt', '___gatsby', 'svelte', 'react-root', 'main-app', 'application']);
/** Attributes that mark an app root by themselves. */
const APP_ROOT_ATTRIBUTES = ['ng-app', 'data-reactroot', 'data-v-app', 'ng-version'];
/** Attributes that make an element act as a link when a script runs. */
const CLICK_ATTRIBUTES = ['onclick', 'ng-click', 'v-on:click', '@click', 'routerlink', 'data-href', 'data-link', '(click)'];
/** Every attribute the rules read beyond the element's own (href, lang, content…): most elements have none, and are spared a dozen lookups. */
const MARKS = new Set(['id', 'hidden', 'aria-hidden', 'role', 'data-trawl-ignore', ...APP_ROOT_ATTRIBUTES, ...CLICK_ATTRIBUTES]);
const ASKS_FOR_JS = /(enable|requires?|needs?|turn on|activate)\b[^.]{0,40}\bjavascript|javascript\b[^.]{0,30}\b(required|disabled|needed|must be enabled)/i;

/** A refresh slower than this is a page that reloads itself now and then, not a redirect. */
const MAX_REFRESH_SECONDS = 10;

/** Elements whose content is never text (not even anchor text). */
const NOT_TEXT = new Set(['script', 'style', 'template', 'noscript', 'svg', 'canvas', 'object', 'iframe', 'head']);
/** Elements whose text is not the page's content; links inside them still count. */
const BOILERPLATE = new Set(['nav', 'header', 'footer', 'aside', 'form', 'button', 'select']);
const BOILERPLATE_ROLES = new Set(['navigation', 'banner', 'contentinfo', 'search']);
const BLOCK = new Set([
  'address',
  'article',
  'blockquote',
  'br',
  'dd',
  'details',
  'div',
  'dl',
  'dt',
  'figcaption',
  'figure',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'li',
  'main',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
  'caption',
  'body',
  'option',
]);
const HEADING = new Set(['h1', 'h2', 'h3', 'h4']);

/** A frame for the top of the page (outside every element). */
export function topFrame(): Frame {
  return { boiler: false, noText: false, main: false, anchor: undefined, heading: undefined, exit: Exit.None, rootStart: -1 };
}

export class PageCollector {
  private readonly token: string;
  private baseHref: string | undefined;
  private titleText: string | undefined;
  private description = '';
  private keywords = '';
  private ogDescription = '';
  private canonical: string | undefined;
  private refresh: string | undefined;
  private lang: string | undefined;
  private readonly robots: string[] = [];
  private readonly headings: string[] = [];
  /** The fragment id of each heading that has one, by its text (headingIds). */
  private readonly headingIds = new Map<string, string>();
  /** An id met since the last text (`<section id>`, `<a id>`, `<span id>` before a heading): the next heading's, if it has none. */
  private pendingId: string | undefined;
  /** The id of the heading being read. */
  private headingId: string | undefined;
  private readonly raw: RawLink[] = [];
  /** Links past maxLinks: counted, so that the cut is recorded, not kept. */
  private cut = 0;
  private readonly lines = new LineBuilder();
  private sawMain = false;
  // What the render detector reads: scripts, the app root and the text in it, clickable non-links.
  private scripts = 0;
  private textChars = 0;
  private appRoot: string | undefined;
  private appRootText = 0;
  private noscriptAsksJs = false;
  private clickables = 0;

  constructor(
    robotsToken: string,
    private readonly maxLinks: number,
  ) {
    this.token = robotsToken.toLowerCase();
  }

  /**
   * Entering an element (`a`: its attributes; `excluded`: one of the host's extract.exclude
   * elements) below `parent`: fills `child`, the frame of its content, and says how to go on.
   */
  open(name: string, a: Record<string, string>, excluded: boolean, parent: Frame, child: Frame): number {
    let { boiler, noText, main, anchor, heading } = parent;
    let enter: number = Enter.Walk;
    if (name === 'script') this.scripts++;
    switch (name) {
      case 'html':
        this.lang = a.lang?.trim() || undefined;
        break;
      case 'title':
        return this.titleText === undefined ? Enter.SkipTitle : Enter.Skip;
      case 'base':
        if (this.baseHref === undefined && a.href) this.baseHref = a.href;
        return Enter.Skip;
      case 'meta':
        this.meta(a);
        return Enter.Skip;
      case 'link':
        if (this.canonical === undefined && a.href && /(^|\s)canonical(\s|$)/i.test(a.rel ?? '')) this.canonical = a.href;
        return Enter.Skip;
      case 'a':
      case 'area':
        if (a.href !== undefined) anchor = this.startLink(a) ?? anchor;
        break;
      case 'img':
        if (anchor && !anchor.alt && a.alt) anchor.alt = a.alt;
        return Enter.Skip;
      case 'main':
        main = true;
        this.sawMain = true;
        break;
      case 'noscript':
        if (!this.noscriptAsksJs) enter = Enter.WalkNoscript;
        break;
    }
    child.rootStart = -1;
    // (Scripts and styles are not elements of the page's own: no app root, nothing to click.)
    const script = name === 'script' || name === 'style';
    const marked = hasMarks(a);
    if (!script && marked) this.readMarks(name, a, child);
    if (NOT_TEXT.has(name) || script) noText = true;
    if (
      BOILERPLATE.has(name) ||
      excluded ||
      (marked && (a.hidden !== undefined || a['aria-hidden'] === 'true' || BOILERPLATE_ROLES.has(a.role ?? '') || a['data-trawl-ignore'] !== undefined))
    )
      boiler = true;
    const isHeading = HEADING.has(name) && !boiler && !noText;
    // Its fragment id: its own, an anchor's in it, or an element's just before it (Sphinx's and
    // DocBook's sections carry the id, the heading inside them).
    const id = marked || name === 'a' ? fragmentId(name, a) : undefined;
    if (isHeading) {
      heading = [];
      this.headingId = id ?? this.pendingId;
    } else if (id !== undefined && !boiler && !noText) {
      // (Not a button's or a sidebar's: a heading's place is in the content.)
      if (parent.heading) this.headingId ??= id;
      else this.pendingId = id;
    }
    const block = BLOCK.has(name);
    if (block && !boiler && !noText) this.lines.end();
    child.boiler = boiler;
    child.noText = noText;
    child.main = main;
    child.anchor = anchor;
    child.heading = heading;
    child.exit = isHeading ? Exit.Heading : block ? Exit.Block : Exit.None;
    return enter;
  }

  /** A link (`a`, `area` with an href) while maxLinks allows; past it, counted as cut. */
  private startLink(a: Record<string, string>): RawLink | undefined {
    if (this.raw.length >= this.maxLinks) {
      this.cut++;
      return undefined;
    }
    const link: RawLink = { href: a.href!, text: [], alt: '', title: a.title ?? '', nofollow: /(^|\s)nofollow(\s|$)/i.test(a.rel ?? '') };
    this.raw.push(link);
    return link;
  }

  /**
   * What an element's marks (MARKS) tell the render detector: the page's first app root, whose
   * text is counted from here (`child.rootStart`), and an element that acts as a link.
   */
  private readMarks(name: string, a: Record<string, string>, child: Frame): void {
    if (this.appRoot === undefined) {
      const root = a.id !== undefined && APP_ROOT_IDS.has(a.id) ? `#${a.id}` : APP_ROOT_ATTRIBUTES.find((x) => a[x] !== undefined);
      // (Its text is counted on leaving it: the characters of text seen in between.)
      if (root !== undefined) {
        this.appRoot = root.startsWith('#') ? root : `[${root}]`;
        child.rootStart = this.textChars;
      }
    }
    if (name !== 'a' && CLICK_ATTRIBUTES.some((x) => a[x] !== undefined)) this.clickables++;
  }

  /** A run of text inside the element whose frame is `f`. */
  text(f: Frame, t: string): void {
    if (f.anchor) f.anchor.text.push(t);
    if (f.noText) return;
    // (A link's text — rustdoc's "source" before an item's heading — is no content between an id and its heading.)
    if (this.pendingId !== undefined && !f.anchor && trimmedLength(t) > 0) this.pendingId = undefined;
    if (f.heading) f.heading.push(t);
    if (!f.boiler) this.lines.add(t, f.anchor !== undefined, f.main);
    this.textChars += trimmedLength(t);
  }

  /** Leaving the element whose content's frame was `f`: close its block or heading. */
  close(f: Frame): void {
    if (f.exit === Exit.Block) {
      if (!f.boiler && !f.noText) this.lines.end();
    } else if (f.exit === Exit.Heading) {
      const h = squash(f.heading!.join('')).slice(0, FIELD_CAPS.heading);
      if (h && this.headings.length < FIELD_CAPS.headings) {
        this.headings.push(h);
        if (this.headingId !== undefined && !this.headingIds.has(h)) this.headingIds.set(h, this.headingId);
      }
      this.headingId = undefined;
    }
    if (f.rootStart >= 0) this.appRootText = this.textChars - f.rootStart;
  }

  /** The text of the first `<title>` (Enter.SkipTitle). */
  title(text: string): void {
    this.titleText = squash(text);
  }

  /** The text of a `<noscript>` (Enter.WalkNoscript). */
  noscript(text: string): void {
    if (!this.noscriptAsksJs) this.noscriptAsksJs = ASKS_FOR_JS.test(text);
  }

  private meta(a: Record<string, string>): void {
    const metaName = (a.name ?? '').toLowerCase();
    if (metaName === 'robots' || metaName === this.token) this.robots.push((a.content ?? '').toLowerCase());
    else if (metaName === 'description') this.description = a.content ?? '';
    else if (metaName === 'keywords') this.keywords = a.content ?? '';
    else if ((a.property ?? '').toLowerCase() === 'og:description') this.ogDescription = a.content ?? '';
    else if (this.refresh === undefined && (a['http-equiv'] ?? '').toLowerCase() === 'refresh') this.refresh = refreshTarget(a.content ?? '');
  }

  /** The page, once the walk is over. */
  page(pageUrl: string, extraction: Extraction): ParsedPage {
    const base = resolve(this.baseHref ?? '', pageUrl) ?? pageUrl;
    const links: Link[] = [];
    for (const l of this.raw) {
      const url = resolve(l.href, base);
      if (!url) continue;
      const text = squash(l.text.join('')) || squash(l.alt) || squash(l.title);
      links.push({ url, text: text.slice(0, FIELD_CAPS.anchor), nofollow: l.nofollow });
    }
    const body = bodyOf(this.lines, this.sawMain, extraction.template);
    const { headings } = this;
    // A heading that is one of the host's template blocks ("Table of Contents" in every sidebar) goes too.
    const kept = extraction.template ? headings.filter((h) => !inTemplate(extraction.template, h)) : headings;
    // (A text that heads several sections links the first: each once.)
    const once = new Set<string>();
    const ids = kept.flatMap((h) => (this.headingIds.has(h) && !once.has(h) && once.add(h) ? [[h, this.headingIds.get(h)!] as const] : []));
    const canonicalUrl = this.canonical ? resolve(this.canonical, base) : undefined;
    const refreshUrl = this.refresh ? resolve(this.refresh, base) : undefined;
    const robotsAll = this.robots.join(',');
    const { scripts, appRoot, appRootText, noscriptAsksJs, clickables, lang, keywords, cut } = this;
    return {
      url: pageUrl,
      title: (this.titleText || headings[0] || fallbackTitle(pageUrl)).slice(0, FIELD_CAPS.title),
      ...(this.titleText ? {} : { untitled: true as const }),
      description: squash(this.description || this.ogDescription).slice(0, FIELD_CAPS.description),
      headings: kept,
      ...(ids.length ? { headingIds: ids } : {}),
      text: body.text,
      blocks: body.blocks,
      links,
      noindex: /\b(noindex|none)\b/.test(robotsAll),
      nofollow: /\b(nofollow|none)\b/.test(robotsAll),
      ...(canonicalUrl ? { canonical: canonicalUrl } : {}),
      ...(refreshUrl && refreshUrl !== pageUrl ? { refresh: refreshUrl } : {}),
      ...(lang ? { lang } : {}),
      ...(keywords.trim() ? { keywords: squash(keywords).slice(0, FIELD_CAPS.description) } : {}),
      ...(cut ? { linksCut: cut } : {}),
      ...(scripts ? { spa: { scripts, ...(appRoot ? { appRoot } : {}), appRootText, noscriptAsksJs, clickables } } : {}),
    };
  }
}

/** Fragment ids longer than this are no one's link target. */
const MAX_ID_LENGTH = 200;

/** The fragment id an element gives its place (`id`, or an anchor's `name`), if any. */
function fragmentId(name: string, a: Record<string, string>): string | undefined {
  const id = (a.id ?? (name === 'a' ? a.name : undefined))?.trim();
  return id && id.length <= MAX_ID_LENGTH && !/\s/.test(id) ? id : undefined;
}

/** Whether the element has any of the attributes in MARKS. */
function hasMarks(a: Record<string, string>): boolean {
  for (const k in a) if (MARKS.has(k)) return true;
  return false;
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

function resolve(href: string, base: string): string | undefined {
  const h = href.trim();
  if (!h || h.startsWith('#')) return undefined;
  try {
    return new URL(h, base).href;
  } catch {
    return undefined;
  }
}

/** A page without a title is called by the last segment of its URL's path (or its host). */
export function fallbackTitle(pageUrl: string): string {
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
