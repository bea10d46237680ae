/**
 * HTML → what the index needs: title, headings, meta description, readable body text without
 * navigation, scripts or boilerplate, and every link with its anchor text (links are taken from the
 * whole page, navigation included, before the boilerplate is cut from the text).
 */
import * as cheerio from 'cheerio';
import type { PageContent } from '../../store/types.ts';

export type Link = { readonly url: string; readonly text: string; readonly nofollow: boolean };

export type ParsedPage = PageContent & {
  readonly links: readonly Link[];
  /** `<meta name="robots" content="noindex">` (or none): do not put this page in the index. */
  readonly noindex: boolean;
  /** `<meta name="robots" content="nofollow">` (or none): do not follow this page's links. */
  readonly nofollow: boolean;
  readonly canonical?: string;
  readonly lang?: string;
};

/** Elements whose text is not the page's content. */
const BOILERPLATE = 'script, style, noscript, template, svg, canvas, iframe, object, nav, header, footer, aside, form, [hidden], [aria-hidden="true"], [role="navigation"], [role="banner"], [role="contentinfo"]';

const BLOCK = new Set(['address', 'article', 'blockquote', 'br', 'dd', 'details', 'div', 'dl', 'dt', 'figcaption', 'figure', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'li', 'main', 'ol', 'p', 'pre', 'section', 'summary', 'table', 'td', 'th', 'tr', 'ul', 'caption', 'title']);

const MAX_LINKS = 5000;
const MAX_HEADINGS = 200;

export function parseHtml(html: string, pageUrl: string, robotsToken = 'trawlbot'): ParsedPage {
  const $ = cheerio.load(html);
  const baseHref = $('base[href]').first().attr('href');
  const base = resolve(baseHref ?? '', pageUrl) ?? pageUrl;

  const robots = [$('meta[name="robots" i]'), $(`meta[name="${robotsToken.toLowerCase()}" i]`)]
    .flatMap((m) => m.toArray().map((e) => ($(e).attr('content') ?? '').toLowerCase()))
    .join(',');
  const noindex = /\b(noindex|none)\b/.test(robots);
  const nofollow = /\b(nofollow|none)\b/.test(robots);

  const links: Link[] = [];
  $('a[href], area[href]').each((_, el) => {
    if (links.length >= MAX_LINKS) return false;
    const url = resolve($(el).attr('href') ?? '', base);
    if (!url) return;
    const text = squash($(el).text()) || squash($(el).find('img[alt]').attr('alt') ?? '') || squash($(el).attr('title') ?? '');
    links.push({ url, text: text.slice(0, 300), nofollow: /\bnofollow\b/i.test($(el).attr('rel') ?? '') });
    return;
  });

  const canonical = resolve($('link[rel~="canonical" i]').first().attr('href') ?? '', base);
  const lang = $('html').attr('lang')?.trim();
  const description = squash($('meta[name="description" i]').attr('content') ?? $('meta[property="og:description" i]').attr('content') ?? '');
  const titleText = squash($('head title').first().text() || $('title').first().text());

  $(BOILERPLATE).remove();
  const headings = $('h1, h2, h3')
    .toArray()
    .slice(0, MAX_HEADINGS)
    .map((h) => squash($(h).text()))
    .filter(Boolean);
  const main = $('main').first();
  const body = $('body').first();
  const text = blockText(main.length ? main.toArray() : body.length ? body.toArray() : $.root().toArray());
  const title = titleText || headings[0] || fallbackTitle(pageUrl);

  return {
    url: pageUrl,
    title,
    description,
    headings,
    text,
    links,
    noindex,
    nofollow,
    ...(canonical ? { canonical } : {}),
    ...(lang ? { lang } : {}),
  };
}

/** Plain text pages: the text is the content, the file name the title. */
export function parsePlainText(text: string, pageUrl: string): ParsedPage {
  return { url: pageUrl, title: fallbackTitle(pageUrl), description: '', headings: [], text: text.replace(/\r\n?/g, '\n').trim(), links: [], noindex: false, nofollow: false };
}

/** Text with a line break at every block boundary, so words of adjacent blocks never glue together. */
/** The few fields of a DOM node (cheerio's domhandler) that the walk reads. */
type DomNode = { type: string; name?: string; data?: string; children?: DomNode[] };

function blockText(nodes: readonly unknown[]): string {
  const out: string[] = [];
  const walk = (node: DomNode) => {
    if (node.type === 'text') out.push(node.data ?? '');
    else if (node.type === 'tag' || node.type === 'root') {
      const block = node.name !== undefined && BLOCK.has(node.name);
      if (block) out.push('\n');
      for (const child of node.children ?? []) walk(child);
      if (block) out.push('\n');
    }
  };
  (nodes as DomNode[]).forEach(walk);
  return out
    .join('')
    .split('\n')
    .map(squash)
    .filter(Boolean)
    .join('\n');
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
