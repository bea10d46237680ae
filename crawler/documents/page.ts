/**
 * What every extractor fills in, bounded as it goes: the text (page by page, with where each page
 * starts), the headings, the links (resolved, http(s) only), and the document's facts; and the
 * one place where those parts become a DocumentPage, with the same field caps as an HTML page.
 */
import { DOCUMENT_LIMITS, FIELD_CAPS, type DocumentFacts, type DocumentFormat, type DocumentPage, type ExtractOptions } from './types.ts';
import type { Link } from '../parse/html.ts';

/** Metadata as the file declares it; the strings are cleaned and capped by `finishPage`. */
export type DocumentMeta = {
  title?: string;
  author?: string;
  subject?: string;
  keywords?: string;
  created?: string;
  modified?: string;
  lang?: string;
  pages?: number;
};

/**
 * The text, page by page. Pieces are pushed raw; each page is squashed (runs of spaces → one,
 * blank lines dropped) when it ends, so that its offset in the final text is exact. The budget
 * (maxTextChars) counts raw characters: what passes it is counted in `cut`, not kept.
 */
export class TextSink {
  private current: string[] = [];
  private readonly pages: string[] = [];
  private used = 0;
  /** Characters dropped past the budget. */
  cut = 0;

  constructor(private readonly max: number) {}

  push(s: string): void {
    if (!s) return;
    const room = this.max - this.used;
    if (s.length > room) {
      this.cut += s.length - Math.max(room, 0);
      if (room <= 0) return;
      s = s.slice(0, room);
    }
    this.used += s.length;
    this.current.push(s);
  }

  /** The budget is spent: a paged extractor stops here and counts the pages left as cut. */
  get full(): boolean {
    return this.used >= this.max;
  }

  /** Pages ended so far. */
  get pageCount(): number {
    return this.pages.length;
  }

  endPage(): void {
    this.pages.push(squashLines(this.current.join('')));
    this.current = [];
  }

  /** The text and, when `paged`, where each page starts (an empty page starts where the next one would). */
  finish(paged: boolean): { text: string; pageOffsets?: number[] } {
    if (this.current.length || (!paged && this.pages.length === 0)) this.endPage();
    const out: string[] = [];
    const offsets: number[] = [];
    let length = 0;
    for (const page of this.pages) {
      if (page && length > 0) {
        out.push('\n');
        length += 1;
      }
      offsets.push(length);
      out.push(page);
      length += page.length;
    }
    return paged ? { text: out.join(''), pageOffsets: offsets } : { text: out.join('') };
  }
}

/** Links in document order, resolved against the document's URL; only http(s), at most `max`. */
export class LinkSink {
  readonly links: Link[] = [];
  cut = 0;

  constructor(
    private readonly base: string,
    private readonly max: number,
  ) {}

  add(href: string | undefined, text: string): void {
    const url = resolveHttp(href, this.base);
    if (!url) return;
    if (this.links.length >= this.max) {
      this.cut++;
      return;
    }
    this.links.push({ url, text: squash(text).slice(0, FIELD_CAPS.anchor), nofollow: false });
  }
}

/** Headings in order: squashed, empty ones skipped, each and their number capped. */
export class HeadingList {
  readonly headings: string[] = [];

  add(text: string): void {
    const h = squash(text).slice(0, FIELD_CAPS.heading);
    if (h && this.headings.length < FIELD_CAPS.headings) this.headings.push(h);
  }

  get full(): boolean {
    return this.headings.length >= FIELD_CAPS.headings;
  }
}

export type PageParts = {
  readonly format: DocumentFormat;
  readonly meta: DocumentMeta;
  readonly text: TextSink;
  /** Whether pageOffsets are reported (PDF pages, slides, sheets). */
  readonly paged: boolean;
  readonly headings: HeadingList;
  readonly links: LinkSink;
  readonly pagesCut?: number;
  readonly cellsCut?: number;
};

/**
 * A declared language longer than this is not a language tag: BCP 47 asks implementations to take
 * tags of up to 35 characters (RFC 5646 §4.4.1), which no real tag comes near.
 */
const MAX_LANG_TAG = 35;

/** The parts as a page: title by metadata, else first heading, else file name; caps applied. */
export function finishPage(parts: PageParts, options: ExtractOptions): DocumentPage {
  const { meta } = parts;
  const { text, pageOffsets } = parts.text.finish(parts.paged);
  const headings = parts.headings.headings;
  const title = clean(meta.title) || headings[0] || fileName(options.url);
  const keywords = clean(meta.keywords);
  const document: DocumentFacts = {
    format: parts.format,
    ...optional('author', clean(meta.author)),
    ...optional('subject', clean(meta.subject)),
    ...optional('keywords', keywords),
    ...optional('created', isoDate(meta.created)),
    ...optional('modified', isoDate(meta.modified)),
    ...(meta.pages !== undefined && Number.isSafeInteger(meta.pages) && meta.pages >= 0 ? { pages: meta.pages } : {}),
    ...(pageOffsets ? { pageOffsets } : {}),
    ...(parts.pagesCut ? { pagesCut: parts.pagesCut } : {}),
    ...(parts.cellsCut ? { cellsCut: parts.cellsCut } : {}),
    ...(parts.text.cut ? { textCut: parts.text.cut } : {}),
  };
  const lang = clean(meta.lang);
  return {
    url: options.url,
    title: title.slice(0, FIELD_CAPS.title),
    description: clean(meta.subject),
    headings,
    text,
    links: parts.links.links,
    noindex: false,
    nofollow: false,
    ...(lang && lang.length <= MAX_LANG_TAG ? { lang } : {}),
    ...(keywords ? { keywords } : {}),
    ...(parts.links.cut ? { linksCut: parts.links.cut } : {}),
    document,
  };
}

/**
 * A spreadsheet cell's text is kept up to this many characters, a little over Excel's own limit on
 * a cell (32,767): a sheet's text is its cells, and one cell of a hostile file could otherwise hold
 * the whole text budget.
 */
export const MAX_CELL_CHARS = 32_768;

/** What an extractor fills as it walks a document: the text, the headings, the links. */
export type PageSinks = { readonly text: TextSink; readonly headings: HeadingList; readonly links: LinkSink };

/** The sinks an extractor fills, with the options' limits. */
export function newParts(options: ExtractOptions): PageSinks {
  return {
    text: new TextSink(options.maxTextChars ?? DOCUMENT_LIMITS.maxTextChars),
    headings: new HeadingList(),
    links: new LinkSink(options.url, options.maxLinks),
  };
}

/** A date as ISO 8601 (UTC), or undefined when it is not one. Dates without a zone are taken as UTC. */
export function isoDate(s: string | undefined): string | undefined {
  if (!s) return undefined;
  const t = s.trim();
  if (!/^\d{4}(-\d\d(-\d\d([T ]\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:?\d\d)?)?)?)?$/.test(t)) return undefined;
  // A zone without its colon (+0100) is ISO 8601 but not what Date.parse reads.
  const withColon = t.replace(/([+-]\d\d)(\d\d)$/, '$1:$2').replace(' ', 'T');
  const zoned = /T.*(Z|[+-]\d\d:\d\d)$|^[^T]*$/.test(withColon) ? withColon : `${withColon}Z`;
  const ms = Date.parse(zoned);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : undefined;
}

export function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

function clean(s: string | undefined): string {
  return s ? squash(s).slice(0, FIELD_CAPS.description) : '';
}

function optional<K extends string>(key: K, value: string | undefined): { [P in K]?: string } {
  return (value ? { [key]: value } : {}) as { [P in K]?: string };
}

/** Squash runs of non-newline whitespace, then collapse each run of line breaks into one. */
function squashLines(s: string): string {
  return s
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n\s*/g, '\n')
    .trim();
}

function resolveHttp(href: string | undefined, base: string): string | undefined {
  const h = href?.trim();
  if (!h || h.startsWith('#')) return undefined;
  try {
    const u = new URL(h, base);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : undefined;
  } catch {
    return undefined;
  }
}

/** The last path segment, decoded; the host when there is none. */
export function fileName(pageUrl: string): string {
  let u: URL;
  try {
    u = new URL(pageUrl);
  } catch {
    return pageUrl;
  }
  const segment = u.pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment) || u.host;
  } catch {
    return segment || u.host;
  }
}
