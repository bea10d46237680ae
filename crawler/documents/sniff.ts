/**
 * What a response is: a document format, HTML, plain text, or none of these (undefined).
 *
 * The bytes outrank the Content-Type: a PDF sent as application/octet-stream or text/html is a PDF,
 * and a zip is told apart by what it holds — ODF's stored `mimetype` entry, or OOXML's main part
 * as _rels/.rels names it — read from the same central directory the extractor reads, after the
 * bomb checks, each entry bounded by its declared size (a sniffer that read the zip's local headers
 * instead, as file-type does, could be shown other entries than the extractor sees). The
 * Content-Type (else the URL's extension) decides what has no magic, and a document type whose
 * body is plainly HTML (a login or error page) is HTML.
 */
import { DocumentRefusal, type DocumentFormat } from './types.ts';
import { ZipArchive } from './zip.ts';

export type SniffedFormat = DocumentFormat | 'html' | 'text';
type ZipFormat = Exclude<DocumentFormat, 'pdf' | 'markdown'>;

const TYPES: Readonly<Record<string, DocumentFormat>> = {
  'application/pdf': 'pdf',
  'application/x-pdf': 'pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-word.document.macroenabled.12': 'docx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/vnd.ms-powerpoint.presentation.macroenabled.12': 'pptx',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.ms-excel.sheet.macroenabled.12': 'xlsx',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'text/markdown': 'markdown',
  'text/x-markdown': 'markdown',
};

const EXTENSIONS: Readonly<Record<string, DocumentFormat>> = {
  pdf: 'pdf',
  docx: 'docx',
  docm: 'docx',
  pptx: 'pptx',
  pptm: 'pptx',
  xlsx: 'xlsx',
  xlsm: 'xlsx',
  odt: 'odt',
  odp: 'odp',
  ods: 'ods',
  md: 'markdown',
  markdown: 'markdown',
};

/** Types that say nothing about the content: the extension decides. */
const GENERIC = new Set(['application/octet-stream', 'binary/octet-stream', 'application/x-download', 'application/force-download', 'application/download']);

/** ODF's mimetype entry → format (templates too: their text is the same kind). */
const ODF_TYPES: Readonly<Record<string, ZipFormat>> = {
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.oasis.opendocument.text-template': 'odt',
  'application/vnd.oasis.opendocument.presentation': 'odp',
  'application/vnd.oasis.opendocument.presentation-template': 'odp',
  'application/vnd.oasis.opendocument.spreadsheet': 'ods',
  'application/vnd.oasis.opendocument.spreadsheet-template': 'ods',
};
/** OOXML's main part folder → format. */
const OOXML_FOLDERS: Readonly<Record<string, ZipFormat>> = { word: 'docx', ppt: 'pptx', xl: 'xlsx' };
/** Small parts read to identify a zip: anything bigger is not what it claims. */
const MAX_ID_PART_BYTES = 64 * 1024;
/** PDF readers accept a header anywhere in the first KB (after junk some servers prepend). */
export const PDF_HEADER_WINDOW = 1024;
/** An HTML page says so in its first bytes (a doctype, `<html>`, a comment), after a BOM and some white space. */
const HTML_SNIFF_BYTES = 512;

export async function sniffFormat(contentType: string, body: Uint8Array, url: string): Promise<SniffedFormat | undefined> {
  const type = mediaType(contentType);
  const byExtension = extensionFormat(url);
  // A generic type leaves it to the extension; text/plain only to a Markdown one.
  const declared = TYPES[type] ?? (GENERIC.has(type) || (type === 'text/plain' && byExtension === 'markdown') ? byExtension : undefined);
  if (hasPdfHeader(body)) return 'pdf';
  if (hasZipMagic(body)) {
    const kind = zipKind(body);
    if (kind !== 'refused') return kind;
    // A zip too hostile to look into: the declared zip format, so that its refusal is recorded.
    return declared && declared !== 'pdf' && declared !== 'markdown' ? declared : undefined;
  }
  if (declared === 'markdown') return 'markdown';
  if (declared) return looksLikeHtml(body) ? 'html' : declared;
  if (type === 'text/html' || type === 'application/xhtml+xml' || type === '') return 'html';
  if (type === 'text/plain') return 'text';
  return undefined;
}

/**
 * A cheap synchronous test on the main thread: could this response be a document (route it to
 * the document workers)? True for %PDF- or PK\x03\x04 magic, or a Content-Type or extension of a
 * supported document format.
 */
export function mayBeDocument(contentType: string, head: Uint8Array, url: string): boolean {
  return hasPdfHeader(head) || hasZipMagic(head) || TYPES[mediaType(contentType)] !== undefined || extensionFormat(url) !== undefined;
}

/** Which supported format a zip holds (undefined: none), or 'refused' when it cannot be looked into. */
export function zipKind(body: Uint8Array): ZipFormat | undefined | 'refused' {
  let zip: ZipArchive;
  try {
    zip = ZipArchive.open(body);
    return identifyZip(zip);
  } catch (e) {
    if (e instanceof DocumentRefusal) return 'refused';
    throw e;
  }
}

/** The format of an opened zip, from its `mimetype` entry (ODF) or its main part's folder (OOXML). */
export function identifyZip(zip: ZipArchive): ZipFormat | undefined {
  const small = (name: string): string | undefined => {
    const e = zip.entries.get(name);
    return e && e.size <= MAX_ID_PART_BYTES ? zip.text(name) : undefined;
  };
  const odf = ODF_TYPES[small('mimetype')?.trim() ?? ''];
  if (odf) return odf;
  const rels = small('_rels/.rels') ?? '';
  // The officeDocument relationship's target: /word/document.xml, word/document.xml, …
  const m = /<(?:\w+:)?Relationship\b(?=[^>]*\bType="[^"]*\/officeDocument")[^>]*\bTarget="\/?([^"/]+)\//.exec(rels);
  const folder = m?.[1] ?? ['word', 'ppt', 'xl'].find((f) => zip.has(`${f}/${f === 'word' ? 'document' : f === 'ppt' ? 'presentation' : 'workbook'}.xml`));
  return folder ? OOXML_FOLDERS[folder] : undefined;
}

function hasPdfHeader(body: Uint8Array): boolean {
  return Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, PDF_HEADER_WINDOW)).includes('%PDF-');
}

function hasZipMagic(body: Uint8Array): boolean {
  return body[0] === 0x50 && body[1] === 0x4b && body[2] === 0x03 && body[3] === 0x04;
}

/** A body that opens like an HTML page (after a BOM and white space). */
function looksLikeHtml(body: Uint8Array): boolean {
  const head = Buffer.from(body.buffer, body.byteOffset, Math.min(body.byteLength, HTML_SNIFF_BYTES)).toString('latin1');
  return /^(\xef\xbb\xbf)?\s*<(!doctype\s+html|html|head|body|!--)/i.test(head);
}

function mediaType(contentType: string): string {
  return contentType.split(';')[0]!.trim().toLowerCase();
}

function extensionFormat(url: string): DocumentFormat | undefined {
  let path: string;
  try {
    path = new URL(url).pathname;
  } catch {
    return undefined;
  }
  const m = /\.([a-z0-9]+)$/i.exec(path);
  return m ? EXTENSIONS[m[1]!.toLowerCase()] : undefined;
}
