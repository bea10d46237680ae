/**
 * One fetched body → what it holds: an HTML or text page, a sitemap's URLs, or an unsupported
 * type. Pure (no I/O), so it runs the same inline or in a parse worker.
 */
import { decodeBody } from './decode.ts';
import { parseHtml, parsePlainText, type ParsedPage } from './html.ts';
import { looksLikeSitemap, parseSitemap } from './sitemap.ts';

export type ParseJob = {
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly url: string;
  /** The user agent's product token, lowercased: `<meta name="TOKEN">` counts like robots. */
  readonly robotsToken: string;
};

export type Extracted =
  | { readonly kind: 'page'; readonly page: ParsedPage; readonly encoding: string }
  | { readonly kind: 'sitemap'; readonly urls: readonly string[] }
  | { readonly kind: 'unsupported'; readonly type: string };

export function extract(job: ParseJob): Extracted {
  const type = job.contentType.split(';')[0]!.trim().toLowerCase();
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  if (looksLikeSitemap(type, job.url) && !/html/.test(type)) {
    const map = parseSitemap(decodeBody(body, job.contentType).text);
    return map ? { kind: 'sitemap', urls: [...map.pages, ...map.sitemaps] } : { kind: 'unsupported', type: type || '(none)' };
  }
  if (type === 'text/html' || type === 'application/xhtml+xml' || type === '') {
    const { text, encoding } = decodeBody(body, job.contentType);
    return { kind: 'page', page: parseHtml(text, job.url, job.robotsToken), encoding };
  }
  if (type === 'text/plain') {
    const { text, encoding } = decodeBody(body, job.contentType);
    return { kind: 'page', page: parsePlainText(text, job.url), encoding };
  }
  return { kind: 'unsupported', type };
}
