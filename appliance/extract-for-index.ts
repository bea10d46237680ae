/**
 * What the parse workers run: the crawler's extraction, then the indexer's analysis of the page
 * (tokens and term frequencies), so that tokenizing leaves the main thread as well. Only the
 * orchestrator knows both stages; the crawler passes the analysis through without reading it.
 *
 * A page's language decides its stemmer, so it is settled here, before the analysis: `<html lang>`,
 * else the Content-Language header, else detected from the page's text. A detected language is
 * written on the page (`fr-x-detected`), which the crawl records like a given one (outcome.ts).
 */
import { extract as extractPage, type Extracted, type ParseJob } from '../crawler/parse/extract.ts';
import { LeaveToWorker } from '../crawler/parse/jobs.ts';
import type { ParsedPage } from '../crawler/parse/html.ts';
import { analyze } from '../indexer/ingest/analyze.ts';
import { detectLanguage, detectorLoaded, loadDetector, SAMPLE_CHARS } from '../indexer/ingest/language/detect.ts';
import { setStemming, type Stemming } from '../indexer/ingest/tokenize.ts';

/**
 * Called in each page worker before its first page: the index's analysis settings. A worker will
 * meet pages that name no language: the detector loads at once, while its first pages wait (the
 * main thread parses meanwhile). (Document workers run the crawler's extraction alone; their pages
 * are analyzed here too: crawler/parse/route.ts.)
 */
export function configure(config: { stemming?: Stemming } | undefined): void {
  if (config?.stemming) setStemming(config.stemming);
  void loadDetector();
}

export function extract(job: ParseJob): Extracted | Promise<Extracted> {
  const e = extractPage(job);
  return e instanceof Promise ? e.then((x) => withAnalysis(x, job)) : withAnalysis(e, job);
}

function withAnalysis(e: Extracted, job: ParseJob): Extracted | Promise<Extracted> {
  if (e.kind !== 'page' || e.page.noindex) return e;
  const given = e.page.lang ?? job.contentLanguage;
  if (given || !hasText(e.page)) return analyzed(e, e.page, given);
  // (The first page of a thread without the detector waits for it, once. The main thread, parsing
  // while the workers start, leaves such a page to them: the detector is ~30 MB of heap and as
  // much again of memory that its load allocates, which the main thread would keep for good.)
  if (!detectorLoaded()) {
    if (job.whileWorkersStart) throw new LeaveToWorker('the language detector is loaded in the parse workers');
    return loadDetector().then(() => withAnalysis(e, job));
  }
  const detected = detectLanguage(e.page.text || e.page.title);
  const page = detected ? { ...e.page, lang: detected } : e.page;
  return analyzed(e, page, detected);
}

function analyzed(e: Extracted & { kind: 'page' }, page: ParsedPage, lang: string | undefined): Extracted {
  return { ...e, page, analysis: analyze(lang ? { ...page, lang } : page) };
}

/** A page with letters to detect a language from (an empty page loads no detector). */
function hasText(page: ParsedPage): boolean {
  return /\p{L}/u.test(page.text.slice(0, SAMPLE_CHARS)) || /\p{L}/u.test(page.title);
}
