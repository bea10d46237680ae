/**
 * Markdown → page: decoded like any page (the charset from the Content-Type, a BOM, else UTF-8),
 * rendered to HTML by marked and read by the HTML parser, so headings, links and text come out as
 * for any HTML page. A YAML front matter block's `title` (and `description`) is the title; the
 * block itself is not text. Markup in the file cannot make it noindex, nofollow, a redirect or a
 * canonical of another page: those are an HTML page's own statements, not a document's.
 */
import { Marked } from 'marked';
import { decodeBody } from '../parse/decode.ts';
import { parseHtml } from '../parse/html.ts';
import { DOCUMENT_LIMITS, FIELD_CAPS, type DocumentPage, type ExtractOptions } from './types.ts';

/** Our own instance: options set on the shared `marked` elsewhere cannot change what we index. */
const marked = new Marked({ gfm: true, async: false });
/**
 * The robots token the HTML parser reads a Markdown file's HTML with. Its meta tags never make it
 * noindex or nofollow (see above), so no setting applies: this is the token it was always read
 * with, so that a meta tag of that name is still taken for a robots tag, not a description.
 */
const ROBOTS_TOKEN = 'trawlbot';
/** A YAML front matter block (`---` … `---` or `...`) of up to 10,000 characters: a longer one is read as text. */
const FRONT_MATTER = /^---[^\S\n]*\r?\n([\s\S]{0,10000}?)\r?\n(?:---|\.\.\.)[^\S\n]*(?:\r?\n|$)/;

export function extractMarkdown(body: Uint8Array, options: ExtractOptions): DocumentPage {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let { text: source } = decodeBody(bytes, options.contentType ?? 'text/markdown');
  const front = FRONT_MATTER.exec(source);
  if (front) source = source.slice(front[0].length);
  const html = marked.parse(source, { async: false });
  const page = parseHtml(html, options.url, ROBOTS_TOKEN, options.maxLinks);
  const title = front && field(front[1]!, 'title');
  const description = front && field(front[1]!, 'description');
  const max = options.maxTextChars ?? DOCUMENT_LIMITS.maxTextChars;
  const textCut = Math.max(0, page.text.length - max);
  return {
    url: page.url,
    title: (title || page.title).slice(0, FIELD_CAPS.title),
    description: (description || page.description).slice(0, FIELD_CAPS.description),
    headings: page.headings,
    text: textCut ? page.text.slice(0, max) : page.text,
    links: page.links,
    noindex: false,
    nofollow: false,
    ...(page.lang ? { lang: page.lang } : {}),
    ...(page.linksCut ? { linksCut: page.linksCut } : {}),
    document: { format: 'markdown', ...(textCut ? { textCut } : {}) },
  };
}

/** A plain `key: value` line of the front matter, quotes removed. */
function field(yaml: string, key: string): string | undefined {
  const m = new RegExp(`^${key}:[^\\S\\n]*(.+)$`, 'm').exec(yaml);
  const v = m?.[1]
    ?.trim()
    .replace(/^(["'])(.*)\1$/, '$2')
    .trim();
  return v || undefined;
}
