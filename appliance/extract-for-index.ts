/**
 * What the parse workers run: the crawler's extraction, then the indexer's analysis of the page
 * (tokens and term frequencies), so that tokenizing leaves the main thread as well. Only the
 * orchestrator knows both stages; the crawler passes the analysis through without reading it.
 */
import { extract as extractPage, type Extracted, type ParseJob } from '../crawler/parse/extract.ts';
import { analyze } from '../indexer/ingest/analyze.ts';
import { setStemming, type Stemming } from '../indexer/ingest/tokenize.ts';

/** Called in each parse worker before its first page: the index's analysis settings. */
export function configure(config: { stemming?: Stemming } | undefined): void {
  if (config?.stemming) setStemming(config.stemming);
}

export function extract(job: ParseJob): Extracted | Promise<Extracted> {
  const e = extractPage(job);
  return e instanceof Promise ? e.then(withAnalysis) : withAnalysis(e);
}

function withAnalysis(e: Extracted): Extracted {
  return e.kind === 'page' && !e.page.noindex ? { ...e, analysis: analyze(e.page) } : e;
}
