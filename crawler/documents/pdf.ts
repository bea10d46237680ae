/**
 * PDF → page: the text page by page (where each page starts), the outline's titles as headings,
 * URI links with the text under them, the Info dictionary (else XMP) and the catalog's /Lang.
 *
 * PDF.js (Mozilla's, the legacy build for Node) reads the file: it is the most forgiving parser in
 * JavaScript (it rebuilds a broken cross-reference table) and evaluates nothing when told not to.
 * unpdf is a wrapper around the same PDF.js (a serverless build of an older version) and adds
 * nothing that text extraction needs. PDF.js is given no URL for CMaps, standard fonts or WASM, so it
 * never reads a file or the network: a CJK PDF whose fonts rely on a predefined CMap that is not
 * embedded loses that font's text (a recorded limit).
 */
import { afterDocument, afterPage } from './gc.ts';
import { loadPdfJs, type PdfJs } from './pdfjs.ts';
import { finishPage, newParts, type DocumentMeta, type HeadingList, type LinkSink, type TextSink } from './page.ts';
import { joinTextItems, textInRect, type PdfTextItem } from './pdf-text.ts';
import { DocumentRefusal, type DocumentPage, type ExtractOptions } from './types.ts';

type PdfDocument = Awaited<ReturnType<PdfJs['getDocument']>['promise']>;
type PdfPage = Awaited<ReturnType<PdfDocument['getPage']>>;
type OutlineNode = { title: string; items: OutlineNode[] };

/** PDF.js's VerbosityLevel.ERRORS: no warnings on the console. */
const ERRORS_ONLY = 0;
/** PDF.js's AnnotationType.LINK. */
const LINK = 2;

/**
 * PDF.js keeps every page it has read, with its parsed annotations, until the document is
 * destroyed (page.cleanup() and doc.cleanup() free the display side only). The document is opened
 * again every this many pages, which bounds that to a chunk's worth, for one more parse of its
 * cross-reference table and fonts per chunk (~0.2 s on source3.pdf; 25 pages a chunk cost a third
 * more CPU over the TeX Live corpus's two largest files).
 */
export const PAGES_PER_OPEN = 100;

/**
 * …and sooner once it has read this many annotations since it was opened. PDF.js keeps each page's
 * parsed annotations (~1 KB each) as long as the document is open, and an index or a
 * cross-referenced listing has hundreds of links a page: source3.pdf's last 170 pages (400–750
 * internal links each) took its live heap from ~35 MB to ~115 MB. Reading them in chunks of this
 * many keeps that to a few MB, for a reopen every ten pages or so of such pages only.
 */
export const ANNOTATIONS_PER_OPEN = 5000;

/** Whether the document is to be opened again before its next page (PAGES_PER_OPEN, ANNOTATIONS_PER_OPEN). */
export function reopenDue(pagesOpen: number, annotationsOpen: number): boolean {
  return pagesOpen >= PAGES_PER_OPEN || annotationsOpen >= ANNOTATIONS_PER_OPEN;
}

export async function extractPdf(body: Uint8Array, options: ExtractOptions): Promise<DocumentPage> {
  if (body.byteLength === 0) throw new DocumentRefusal('empty', 'the PDF is empty (0 bytes)');
  const pdfjs = await loadPdfJs();
  const open = () =>
    pdfjs.getDocument({
      // A copy, as a plain Uint8Array (PDF.js refuses a Buffer): PDF.js transfers (detaches) the
      // buffer it is given, and the caller's must stay whole.
      data: new Uint8Array(body),
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      useWasm: false,
      enableXfa: false,
      isOffscreenCanvasSupported: false,
      isImageDecoderSupported: false,
      disableAutoFetch: true,
      disableStream: true,
      disableRange: true,
      // Best effort: a damaged content stream loses its own text, not the document's.
      stopAtErrors: false,
      verbosity: ERRORS_ONLY,
    });
  let task = open();
  try {
    let doc: PdfDocument;
    try {
      doc = await task.promise;
    } catch (e) {
      throw refusalOf(e);
    }
    const reopen = async () => {
      await task.destroy();
      task = open();
      return task.promise;
    };
    return await extractFrom(doc, options, reopen);
  } finally {
    await task.destroy();
    afterDocument(body.byteLength);
  }
}

async function extractFrom(first: PdfDocument, options: ExtractOptions, reopen: () => Promise<PdfDocument>): Promise<DocumentPage> {
  let doc = first;
  const parts = newParts(options);
  const meta = await metadata(doc);
  const numPages = doc.numPages;
  const wanted = Math.min(numPages, Math.max(0, options.maxPages));
  let failed = 0;
  let display: string | undefined;
  let pagesOpen = 0;
  let annotationsOpen = 0;
  for (let n = 1; n <= wanted && !parts.text.full; n++) {
    if (reopenDue(pagesOpen, annotationsOpen)) {
      doc = await reopen();
      pagesOpen = annotationsOpen = 0;
    }
    const annotations = await readPage(doc, n, parts.text, parts.links, n === 1 ? (t) => (display = t) : undefined);
    if (annotations < 0) failed++;
    pagesOpen++;
    annotationsOpen += Math.max(0, annotations);
    afterPage();
  }
  const extracted = parts.text.pageCount;
  if (extracted > 0 && failed === extracted) throw new DocumentRefusal('damaged', `none of the PDF's ${extracted} pages could be read`);
  await outline(doc, parts.headings);
  // Without a title of its own, the largest words at the top of page 1 (what a reader sees as
  // the title) come before the first bookmark, which is often "Introduction" or "Contents".
  const title = meta.title ?? display;
  return finishPage(
    { format: 'pdf', meta: { ...meta, ...(title ? { title } : {}), pages: numPages }, paged: true, ...parts, pagesCut: numPages - extracted },
    options,
  );
}

/**
 * One page's text and links, and how many annotations PDF.js read on it; -1 when the page could
 * not be read (its text is then empty).
 */
async function readPage(doc: PdfDocument, n: number, text: TextSink, links: LinkSink, onDisplayTitle?: (title: string | undefined) => void): Promise<number> {
  try {
    const page = await doc.getPage(n);
    try {
      const content = await page.getTextContent({ includeMarkedContent: false });
      const items = content.items.filter((i) => 'str' in i) as PdfTextItem[];
      onDisplayTitle?.(displayTitle(items));
      text.push(joinTextItems(items));
      text.endPage();
      return await pageLinks(page, items, links);
    } finally {
      page.cleanup();
    }
  } catch {
    if (text.pageCount < n) text.endPage();
    return -1;
  }
}

/**
 * The page's URI links. PDF.js computes each link's overlaidText (the text under it) in a second
 * pass over the page, on pages with links only; the items in its rectangle are the fallback. Broken
 * annotations cost the links, not the page.
 */
async function pageLinks(page: PdfPage, items: readonly PdfTextItem[], links: LinkSink): Promise<number> {
  let annotations: Record<string, unknown>[];
  try {
    annotations = await page.getAnnotations({ intent: 'display' });
  } catch {
    return 0;
  }
  for (const a of annotations) {
    if (a.annotationType !== LINK) continue;
    const href = (a.url as string | undefined) ?? (a.unsafeUrl as string | undefined);
    if (typeof href === 'string') links.add(href, (a.overlaidText as string | undefined) || textInRect(items, (a.rect as number[] | undefined) ?? []));
  }
  return annotations.length;
}

/** The outline's (bookmarks') titles, depth first, as headings (HeadingList caps their number). */
async function outline(doc: PdfDocument, headings: HeadingList): Promise<void> {
  let roots: OutlineNode[] | null;
  try {
    roots = (await doc.getOutline()) as OutlineNode[] | null;
  } catch {
    return; // A broken outline costs the headings, not the document.
  }
  const stack = [...(roots ?? [])].reverse();
  while (stack.length && !headings.full) {
    const node = stack.pop()!;
    headings.add(node.title ?? '');
    for (let i = (node.items?.length ?? 0) - 1; i >= 0; i--) stack.push(node.items[i]!);
  }
}

/** The Info dictionary's fields, each from XMP where Info lacks it; /Lang from the catalog. */
async function metadata(doc: PdfDocument): Promise<DocumentMeta> {
  let info: Record<string, unknown> = {};
  let xmp: { get(name: string): unknown } | null | undefined;
  try {
    const m = await doc.getMetadata();
    info = (m.info ?? {}) as Record<string, unknown>;
    xmp = m.metadata as { get(name: string): unknown } | null;
  } catch {
    return {};
  }
  const pdfjs = await loadPdfJs();
  const str = (v: unknown): string | undefined =>
    typeof v === 'string' && v.trim() ? v : Array.isArray(v) ? v.filter((x) => typeof x === 'string').join(', ') || undefined : undefined;
  const fromXmp = (name: string): string | undefined => str(xmp?.get(name));
  const date = (v: unknown): string | undefined => {
    const d = typeof v === 'string' ? pdfjs.PDFDateString.toDateObject(v) : null;
    return d && Number.isFinite(d.getTime()) ? d.toISOString() : undefined;
  };
  return {
    title: str(info.Title) ?? fromXmp('dc:title'),
    author: str(info.Author) ?? fromXmp('dc:creator'),
    subject: str(info.Subject) ?? fromXmp('dc:description'),
    keywords: str(info.Keywords) ?? fromXmp('pdf:keywords'),
    created: date(info.CreationDate) ?? fromXmp('xmp:createdate'),
    modified: date(info.ModDate) ?? fromXmp('xmp:modifydate'),
    lang: str(info.Language) ?? fromXmp('dc:language'),
  };
}

/** Display type stands out: at least this many times the page's most common size. */
const DISPLAY_TYPE_RATIO = 1.3;
/** Words within this share of the largest size are in it too (a title set in two sizes, rounding). */
const DISPLAY_TYPE_SLACK = 0.9;
/** What reads like a title, in characters: a word or two, not a paragraph set large. */
const DISPLAY_TITLE_CHARS = { min: 2, max: 200 } as const;

/**
 * The lines set in the largest type on a page, when they stand out (DISPLAY_TYPE_RATIO) and read
 * like a title (DISPLAY_TITLE_CHARS): a title page's title.
 */
export function displayTitle(items: readonly PdfTextItem[]): string | undefined {
  const size = (i: PdfTextItem) => Math.round(Math.hypot(i.transform[2] ?? 0, i.transform[3] ?? 0) * 10) / 10;
  const words = items.filter((i) => i.str.trim());
  if (!words.length) return undefined;
  const bySize = new Map<number, number>();
  for (const i of words) bySize.set(size(i), (bySize.get(size(i)) ?? 0) + i.str.length);
  const body = [...bySize].sort((a, b) => b[1] - a[1])[0]![0];
  const largest = Math.max(...bySize.keys());
  if (largest < body * DISPLAY_TYPE_RATIO) return undefined;
  const title = words
    .filter((i) => size(i) >= largest * DISPLAY_TYPE_SLACK)
    .map((i) => i.str.trim())
    .join(' ')
    .replace(/\s+/g, ' ')
    .trim();
  return title.length >= DISPLAY_TITLE_CHARS.min && title.length <= DISPLAY_TITLE_CHARS.max ? title : undefined;
}

/** Why PDF.js could not open the file. */
function refusalOf(e: unknown): DocumentRefusal {
  const name = (e as Error | undefined)?.name;
  const message = (e as Error | undefined)?.message ?? String(e);
  if (name === 'PasswordException') return new DocumentRefusal('encrypted', `the PDF needs a password (${message})`);
  return new DocumentRefusal('damaged', `PDF.js cannot read it: ${message}`);
}
