/**
 * One fetched body → what it holds: an HTML or text page, a sitemap's URLs, or an unsupported
 * type. Pure (no I/O), so it runs the same inline or in a parse worker.
 */
import { gunzipSync } from 'node:zlib';
import { decodeBody } from './decode.ts';
import { parseHtml, parsePlainText, type ParsedPage } from './html.ts';
import { looksLikeSitemap, parseSitemap, type SitemapPage } from './sitemap.ts';

/** The sitemap protocol's own limit on one uncompressed file. */
const MAX_SITEMAP_BYTES = 50 * 1024 * 1024;

export type ParseJob = {
  readonly body: Uint8Array;
  readonly contentType: string;
  readonly url: string;
  /** The user agent's product token, lowercased: `<meta name="TOKEN">` counts like robots. */
  readonly robotsToken: string;
  /** Links kept per page (limits.maxLinksPerPage; default DEFAULT_MAX_LINKS); beyond, counted as cut. */
  readonly maxLinks?: number;
};

export type Extracted =
  /** `analysis`: whatever the orchestrator's extractor adds for the index (opaque to the crawler). */
  | { readonly kind: 'page'; readonly page: ParsedPage; readonly encoding: string; readonly analysis?: unknown }
  | { readonly kind: 'sitemap'; readonly pages: readonly SitemapPage[]; readonly sitemaps: readonly string[] }
  | { readonly kind: 'unsupported'; readonly type: string };

export function extract(job: ParseJob): Extracted {
  const type = job.contentType.split(';')[0]!.trim().toLowerCase();
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  if (looksLikeSitemap(type, job.url) && !/html/.test(type)) {
    let xml = body;
    // A gzipped sitemap (sitemap.xml.gz) is a gzip file, not a gzip-encoded response.
    if (body[0] === 0x1f && body[1] === 0x8b) {
      try {
        xml = gunzipSync(body, { maxOutputLength: MAX_SITEMAP_BYTES });
      } catch {
        return { kind: 'unsupported', type: `${type || '(none)'} (gzip that does not unpack within ${MAX_SITEMAP_BYTES} bytes)` };
      }
    }
    const map = parseSitemap(decodeBody(xml, 'application/xml').text);
    return map ? { kind: 'sitemap', pages: map.pages, sitemaps: map.sitemaps } : { kind: 'unsupported', type: type || '(none)' };
  }
  if (type === 'text/html' || type === 'application/xhtml+xml' || type === '') {
    const { text, encoding } = decodeBody(body, job.contentType);
    return { kind: 'page', page: parseHtml(text, job.url, job.robotsToken, job.maxLinks), encoding };
  }
  if (type === 'text/plain') {
    const { text, encoding } = decodeBody(body, job.contentType);
    return { kind: 'page', page: parsePlainText(text, job.url), encoding };
  }
  return { kind: 'unsupported', type };
}
