/**
 * One fetched body → what it holds: an HTML or text page, a document (PDF, Office, Markdown:
 * crawler/documents), a sitemap's URLs, an unsupported type, or a document refused with a reason.
 * No I/O, so it runs the same inline or in a parse worker. Pages and sitemaps are answered at once;
 * a document asynchronously (PDF.js is), and only ever in a document worker (route.ts), where a
 * heap and a time limit hold.
 */
import { gunzipSync } from 'node:zlib';
import { simhash } from '../../lib/simhash.ts';
import type { DocumentFormat } from '../../model/index.ts';
import { DocumentRefusal, extractDocument, sniffFormat } from '../documents/index.ts';
import { decodeBody } from './decode.ts';
import { isDocumentJob } from './jobs.ts';
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
  /** Links kept per page (limits.maxLinksPerPage); beyond, counted as cut. */
  readonly maxLinks: number;
  /** The body was cut at its cap: a page is read as it is, a document cut short is refused (too-large). */
  readonly truncated?: boolean;
  /** The documents read besides HTML (documents.types). */
  readonly documentTypes: readonly DocumentFormat[];
  /** Pages (slides, sheets) of a document extracted (documents.maxPages). */
  readonly maxPages: number;
  /** documents.maxBytes, to say why a document was too large. */
  readonly maxDocumentBytes: number;
  /** The host's selectors whose elements' text is not body text (extract.exclude), as one list. */
  readonly exclude?: string;
  /** The host's template blocks (sorted hashes; crawler/template): not body text. */
  readonly template?: Uint32Array;
  /** The response's Content-Language (its first tag): the page's language unless `<html lang>` says otherwise. */
  readonly contentLanguage?: string;
  /**
   * The page, already extracted by a document worker (route.ts): nothing is parsed, the page comes
   * back as it is — with what the pool's extractor adds (the orchestrator's analysis for the index).
   */
  readonly extracted?: Extracted & { readonly kind: 'page' };
  /**
   * Parsed on the main thread while the pool's workers start (pool.ts): an extractor may throw
   * LeaveToWorker rather than load something large here (the language detector), and the job
   * waits for a worker instead.
   */
  readonly whileWorkersStart?: boolean;
};

/** What a job carries from the config, the same for every page of a crawl (appliance/wiring.ts parseSettingsOf). */
export type ParseSettings = Pick<ParseJob, 'robotsToken' | 'maxLinks' | 'documentTypes' | 'maxPages' | 'maxDocumentBytes'>;

/** Why a document was not read: each is recorded on its URL (outcome.ts). */
export type Refusal = 'encrypted' | 'zip-bomb' | 'damaged' | 'empty' | 'too-large';

export type Extracted =
  /** `analysis`: whatever the orchestrator's extractor adds for the index (opaque to the crawler). */
  | { readonly kind: 'page'; readonly page: ParsedPage; readonly encoding: string; readonly analysis?: unknown }
  | { readonly kind: 'sitemap'; readonly pages: readonly SitemapPage[]; readonly sitemaps: readonly string[] }
  | { readonly kind: 'unsupported'; readonly type: string }
  | { readonly kind: 'refused'; readonly reason: Refusal; readonly detail: string; readonly format: string };

export function extract(job: ParseJob): Extracted | Promise<Extracted> {
  if (job.extracted) return job.extracted;
  const type = job.contentType.split(';')[0]!.trim().toLowerCase();
  const body = Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength);
  if (looksLikeSitemap(type, job.url) && !/html/.test(type) && !isDocumentJob(job)) return sitemap(body, type);
  if (isDocumentJob(job)) return document(job, body, type);
  if (type === 'text/html' || type === 'application/xhtml+xml' || type === '') return page(job, body, 'html');
  if (type === 'text/plain') return page(job, body, 'text');
  return { kind: 'unsupported', type };
}

function sitemap(body: Buffer, type: string): Extracted {
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

/** An HTML page, or plain text (a document of format `text`, unless documents.types leaves it out). */
function page(job: ParseJob, body: Buffer, as: 'html' | 'text'): Extracted {
  if (as === 'text' && !job.documentTypes.includes('text')) return { kind: 'unsupported', type: 'text/plain (not in documents.types)' };
  const contentType = as === 'html' && !/html/i.test(job.contentType) ? 'text/html' : job.contentType;
  const { text, encoding } = decodeBody(body, contentType);
  if (as === 'html') return { kind: 'page', page: fingerprinted(parseHtml(text, job.url, job.robotsToken, job.maxLinks, job)), encoding };
  return { kind: 'page', page: fingerprinted({ ...parsePlainText(text, job.url), document: { format: 'text' } } as ParsedPage), encoding };
}

/** The page with the SimHash of its text (near-duplicates fold under one another in results). */
function fingerprinted(page: ParsedPage): ParsedPage {
  const fingerprint = simhash(page.text);
  return fingerprint ? { ...page, simhash: fingerprint } : page;
}

/** A document: its real format (Content-Type checked against its bytes), then its extractor. */
async function document(job: ParseJob, body: Buffer, type: string): Promise<Extracted> {
  const format = await sniffFormat(job.contentType, body, job.url);
  // Not a document after all (an HTML page at a .pdf URL, text sent as a PDF…): read it as what it is.
  if (format === 'html' || format === 'text') return page(job, body, format);
  if (format === undefined) return { kind: 'unsupported', type: type || '(none)' };
  if (!job.documentTypes.includes(format)) return { kind: 'unsupported', type: `${format} (not in documents.types)` };
  if (job.truncated) {
    const cap = (job.maxDocumentBytes / 1024 / 1024).toLocaleString('en', { maximumFractionDigits: 1 });
    return { kind: 'refused', reason: 'too-large', detail: `larger than documents.maxBytes (${cap} MB)`, format };
  }
  try {
    const extracted = await extractDocument(body, format, {
      url: job.url,
      maxPages: job.maxPages,
      maxLinks: job.maxLinks,
      contentType: job.contentType,
    });
    return { kind: 'page', page: fingerprinted(extracted), encoding: '' };
  } catch (e) {
    if (e instanceof DocumentRefusal) {
      if (e.reason === 'unsupported') return { kind: 'unsupported', type: `${format}: ${e.message}` };
      return { kind: 'refused', reason: e.reason, detail: e.message, format };
    }
    // A file the extractor chokes on is that file's problem, not the crawl's.
    return { kind: 'refused', reason: 'damaged', detail: (e as Error).message || String(e), format };
  }
}
