/**
 * The entry point: a document's bytes and format → a DocumentPage, or a DocumentRefusal that says
 * why not (encrypted, zip-bomb, damaged, empty, unsupported). Pure library code: no file system, no
 * network, nothing in a document is evaluated. Runs in the caller's worker threads, whose time and
 * heap limits end a document that spins or swells.
 */
import { extractDocx } from './docx.ts';
import { extractMarkdown } from './markdown.ts';
import { extractOdf } from './odf.ts';
import { extractPdf } from './pdf.ts';
import { extractPptx } from './pptx.ts';
import { identifyZip } from './sniff.ts';
import { DocumentRefusal, type DocumentFormat, type DocumentPage, type ExtractOptions } from './types.ts';
import { extractXlsx } from './xlsx.ts';
import { ZipArchive } from './zip.ts';

export async function extractDocument(body: Uint8Array, format: DocumentFormat, options: ExtractOptions): Promise<DocumentPage> {
  if (body.byteLength === 0) throw new DocumentRefusal('empty', `the ${format} file is empty (0 bytes)`);
  try {
    if (format === 'pdf') return await extractPdf(body, options);
    if (format === 'markdown') return extractMarkdown(body, options);
    return extractZipped(body, format, options);
  } catch (e) {
    if (e instanceof DocumentRefusal) throw e;
    // Whatever else a hostile file makes a parser throw is the file's damage, said with the cause.
    throw new DocumentRefusal('damaged', `the ${format} file could not be read: ${(e as Error)?.message ?? String(e)}`);
  }
}

function extractZipped(body: Uint8Array, format: Exclude<DocumentFormat, 'pdf' | 'markdown'>, options: ExtractOptions): DocumentPage {
  const zip = ZipArchive.open(body, { maxEntries: options.maxZipEntries, maxTotalBytes: options.maxZipBytes, maxRatio: options.maxZipRatio });
  // The content decides: a spreadsheet served as a DOCX is read as the spreadsheet it is.
  const kind = identifyZip(zip);
  if (!kind) throw new DocumentRefusal('unsupported', `the zip is not a ${format} (nor another supported format)`);
  switch (kind) {
    case 'docx':
      return extractDocx(zip, options);
    case 'pptx':
      return extractPptx(zip, options);
    case 'xlsx':
      return extractXlsx(zip, options);
    default:
      return extractOdf(zip, kind, options);
  }
}
