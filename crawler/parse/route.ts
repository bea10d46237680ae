/**
 * Two pools behind one parser: pages go to the page parsers, documents (PDF, Office…) to workers
 * of their own, with a heap and a time limit and never on the main thread — so that a 40 MB PDF,
 * or a hostile one, never holds up the HTML pages of the crawl.
 *
 * A document's page comes back from its worker extracted only; the page parsers finish it like any
 * page (their extractor adds what the orchestrator adds: the index's analysis, the language
 * detection it needs). So the document workers hold nothing but the extractors: no language
 * detector (~30 MB of heap and as much again of malloc'd memory per thread) and no analysis code,
 * which every document worker would otherwise keep for the few milliseconds a document uses them.
 */
import type { Extracted, ParseJob } from './extract.ts';
import { isDocumentJob } from './jobs.ts';
import type { PageParser } from './pool.ts';

const NO_BODY = new Uint8Array(0);

export class RoutedParser implements PageParser {
  constructor(
    readonly pages: PageParser,
    readonly documents: PageParser,
  ) {}

  parse(job: ParseJob): Promise<Extracted> {
    if (!isDocumentJob(job)) return this.pages.parse(job);
    return this.documents.parse(job).then((e) => (e.kind === 'page' ? this.pages.parse({ ...job, body: NO_BODY, extracted: e }) : e));
  }

  async close(): Promise<void> {
    await Promise.all([this.pages.close(), this.documents.close()]);
  }
}
