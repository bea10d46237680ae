/**
 * What the main thread needs to know about a parse job without loading the parsers: whether it
 * goes to the document workers, and the signal an extractor gives to leave a job to a worker.
 * The parsers themselves (HTML, PDF, Office, Markdown…: extract.ts) are loaded on the main thread
 * only when it first parses a page itself — after a crawl's first requests are on their way.
 */
import { mayBeDocument, PDF_HEADER_WINDOW } from '../documents/sniff.ts';

/** Whether the job goes to the document workers: a document's type, extension or first bytes. */
export function isDocumentJob(job: { readonly contentType: string; readonly body: Uint8Array; readonly url: string }): boolean {
  // (Some PDFs have bytes before their %PDF- header: as much of the body as a PDF reader looks at.)
  return mayBeDocument(job.contentType, job.body.subarray(0, PDF_HEADER_WINDOW), job.url);
}

/** Thrown by an extractor for a job it leaves to a worker (ParseJob.whileWorkersStart). */
export class LeaveToWorker extends Error {
  override readonly name = 'LeaveToWorker';
}
