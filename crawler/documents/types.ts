/**
 * The contract of the document extractors: what a PDF, Office or OpenDocument file, or a Markdown
 * page, comes to (a page like any HTML page, plus the facts only a document has), the limits that
 * bound the work, and the one error that says why a document was refused.
 */
import type { DocumentFacts as StoredFacts } from '../../model/index.ts';
import type { ParsedPage } from '../parse/types.ts';

/** The formats these extractors read (the model's DocumentFormat also names plain text). */
export type DocumentFormat = 'pdf' | 'docx' | 'pptx' | 'xlsx' | 'odt' | 'odp' | 'ods' | 'markdown';

/**
 * The model's facts of a document (author, subject, keywords, created, modified as ISO 8601, pages,
 * pageOffsets, pagesCut: model/documents.ts), and the cuts only extraction knows of. `pageOffsets`
 * holds one offset per page extracted, absent for flowing documents (docx, odt, markdown);
 * `pagesCut` counts the pages not extracted: beyond maxPages, or after maxTextChars or maxCells
 * was reached.
 */
export type DocumentFacts = StoredFacts & {
  readonly format: DocumentFormat;
  /** Spreadsheet cells beyond maxCells, counted, not extracted. */
  readonly cellsCut?: number;
  /** Characters beyond maxTextChars, dropped (for a PDF: of the last page kept; later pages count in pagesCut). */
  readonly textCut?: number;
};

/**
 * A document as a page: title (document metadata, else the first heading, else the file name from
 * the URL, decoded), description (the subject), headings (PDF outline titles; DOCX/ODT headings;
 * slide titles; sheet names), text, absolute http(s) links with anchor text (nofollow false), lang
 * when the file declares it, keywords when it has them, noindex false.
 */
export type DocumentPage = ParsedPage & { readonly document: DocumentFacts };

export type ExtractOptions = {
  /** The document's URL: links resolve against it, the title falls back to its file name. */
  readonly url: string;
  /** Pages (slides, sheets) extracted; the rest are counted in `pagesCut`. */
  readonly maxPages: number;
  /** Links kept (limits.maxLinksPerPage, as for an HTML page); the rest are counted in `linksCut`. */
  readonly maxLinks: number;
  /** Characters of text kept (default DOCUMENT_LIMITS.maxTextChars). */
  readonly maxTextChars?: number;
  /** Spreadsheet cells extracted over all sheets (default DOCUMENT_LIMITS.maxCells). */
  readonly maxCells?: number;
  /** A zip with more entries is refused as a zip bomb (default DOCUMENT_LIMITS.maxZipEntries). */
  readonly maxZipEntries?: number;
  /** A zip whose entries declare more bytes in all is refused as a zip bomb (default DOCUMENT_LIMITS.maxZipBytes). */
  readonly maxZipBytes?: number;
  /** An entry over 1 MB that declares more than this many bytes per compressed byte is a zip bomb (default DOCUMENT_LIMITS.maxZipRatio). */
  readonly maxZipRatio?: number;
  /** The Content-Type the document came with (Markdown reads its charset). */
  readonly contentType?: string;
};

/**
 * The limits of ExtractOptions that are not settings, in one place: bounds against a hostile file
 * that no real document comes near (tests lower them).
 */
export const DOCUMENT_LIMITS = {
  /** About 20 MB of UTF-16: far more than any real document's text, bounded against a hostile one. */
  maxTextChars: 10_000_000,
  maxCells: 1_000_000,
  maxZipEntries: 10_000,
  maxZipBytes: 200 * 1024 * 1024,
  maxZipRatio: 200,
} as const;

/** Field caps, the same as an HTML page's. */
export { FIELD_CAPS } from '../parse/types.ts';

export type RefusalReason = 'encrypted' | 'zip-bomb' | 'damaged' | 'empty' | 'unsupported';

/** Why a document is refused: each reason is recorded on its URL. */
export class DocumentRefusal extends Error {
  override readonly name = 'DocumentRefusal';
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
  }
}
