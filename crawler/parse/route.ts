/**
 * Two pools behind one parser: pages go to the page parsers, documents (PDF, Office…) to workers
 * of their own, with a heap and a time limit and never on the main thread — so that a 40 MB PDF,
 * or a hostile one, never holds up the HTML pages of the crawl.
 */
import { isDocumentJob, type Extracted, type ParseJob } from './extract.ts';
import type { PageParser } from './pool.ts';

export class RoutedParser implements PageParser {
  constructor(
    readonly pages: PageParser,
    readonly documents: PageParser,
  ) {}

  parse(job: ParseJob): Promise<Extracted> {
    return isDocumentJob(job) ? this.documents.parse(job) : this.pages.parse(job);
  }

  async close(): Promise<void> {
    await Promise.all([this.pages.close(), this.documents.close()]);
  }
}
