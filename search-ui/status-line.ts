/** The one-line crawl summary shown on the search page, in the CLI and in /api/status. */
import type { ApplianceStatus } from '../model/index.ts';

export function statusLine(s: Pick<ApplianceStatus, 'crawl' | 'index'>): string {
  const c = s.crawl;
  const docs = `${s.index.documents.toLocaleString('en')} documents indexed`;
  if (!c.running) return `Crawl idle · ${c.fetched.toLocaleString('en')} pages fetched · ${docs}`;
  return `Crawling: ${c.fetched.toLocaleString('en')} pages fetched, ${c.queued.toLocaleString('en')} queued, ${c.failed.toLocaleString('en')} failed · ${c.pagesPerSecond} pages/s · ${docs}`;
}
