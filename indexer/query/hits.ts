/** A result as shown: a stored document with its snippet, score and facts (search-index.ts, and a shard's answer: indexer/shards). */
import { missingWords, type ScoreExplained, wordsInBody } from './explain.ts';
import type { Adjusted } from './adjust.ts';
import { sectionFinder, type Section } from './section.ts';
import type { StoredDocument } from '../../model/index.ts';
import { stemmerFor } from '../ingest/tokenize.ts';
import type { Occurrences } from './locate.ts';
import { BODY_CHARS } from './proximity.ts';
import { snippetOfStart } from './snippet.ts';
import { type QueryDocuments, textCut } from './documents.ts';

/** One result. `similar` and `moreSimilar` are set where near-duplicates fold (query/fold.ts). */
export type SearchHit = {
  readonly id: number;
  readonly url: string;
  /** Plain text: escape it before putting it in HTML. */
  readonly title: string;
  /** HTML: escaped text with the query terms in <mark>. */
  readonly snippet: string;
  readonly score: number;
  readonly fetchedAt: number;
  /** A focused crawl's classes of the page, best first. */
  readonly topics?: readonly string[];
  /** A document that is not an HTML page: its format (`pdf`, `docx`, `text`…). */
  readonly type?: string;
  /** Its pages (slides, sheets), when it has them. */
  readonly pages?: number;
  /** The page (slide, sheet; from 1) the snippet is on. */
  readonly page?: number;
  /** Near-duplicates of it (mirrors, print views, other versions) folded under it, best first (query/fold.ts). */
  readonly similar?: readonly { readonly url: string; readonly title: string }[];
  /** Near-duplicates folded under it beyond those listed (MAX_SIMILAR). */
  readonly moreSimilar?: number;
  /** The section the query found (query/section.ts): the result links there. */
  readonly section?: Section;
  /** The query's words it holds nothing for, as typed (a long query's results may miss a word: query/coverage.ts). */
  readonly missing?: readonly string[];
  /** Its score taken apart (asked for with `explain`: query/explain.ts). */
  readonly explain?: ScoreExplained;
  /** What the console's levers did to it: pinned, a section's factor, the clicks' (query/adjust.ts). */
  readonly adjusted?: Adjusted;
};

/**
 * The hit of document `d` at `score`, its snippet marking `terms` (`body`: the occurrences in its
 * body's start, proximity.ts bodyStart, when already located; `words`: the query's, wordsOf — a
 * passage near the start that holds that many terms is taken without reading the page on).
 */
export function hitOf(d: StoredDocument, score: number, terms: readonly string[], body: Occurrences | undefined, words?: number): SearchHit {
  return hitOfStart(d, score, terms, body, words, false)!;
}

/** hitOf a document whose text may be only its start (`cut`: QueryDocuments.start, textCut): undefined when its snippet needs the whole. */
function hitOfStart(
  d: StoredDocument,
  score: number,
  terms: readonly string[],
  body: Occurrences | undefined,
  words: number | undefined,
  cut: boolean,
): SearchHit | undefined {
  const snippet = snippetOfStart(d.text, terms, {
    fallback: d.description,
    found: body,
    foundChars: BODY_CHARS,
    stem: stemmerFor(d.lang).stem,
    enough: words ?? Infinity,
    textCut: cut,
  });
  if (!snippet) return undefined;
  const facts = d.document;
  const page = facts?.pageOffsets && snippet.at !== undefined ? pageAt(facts.pageOffsets, snippet.at) : undefined;
  return {
    id: d.id,
    url: d.url,
    title: d.title,
    snippet: snippet.html,
    score: Math.round(score * 1000) / 1000,
    fetchedAt: d.fetchedAt,
    ...(d.topic?.classes.length ? { topics: d.topic.classes.map((c) => c.name) } : {}),
    ...(facts ? { type: facts.format } : {}),
    ...(facts?.pages ? { pages: facts.pages } : {}),
    ...(page ? { page } : {}),
  };
}

/**
 * The hits of a query `r.plan` ranked over `r.lens`, by one function made for the query: each with
 * its snippet (hitOf), the section it links (section.ts) and the query's words its page holds
 * nothing for (explain.ts `missingWords`), when there are. Each is made from the document's start
 * read through `docs` (undefined: no longer stored), the whole read only when needed.
 */
export function hitMaker(r: {
  readonly plan: Parameters<typeof missingWords>[0] & { readonly forgiven: { readonly marked: readonly string[] } };
  readonly lens: Parameters<typeof missingWords>[1];
}): (docs: QueryDocuments, id: number, score: number, body: Occurrences | undefined) => Promise<SearchHit | undefined> {
  const sectionOf = sectionFinder(r.plan.weights, r.lens.stats);
  const words = wordsOf(r.plan.forgiven.slots);
  return async (docs, id, score, body) => {
    const missing = missingWords(r.plan, r.lens, id);
    // (A passage holding the words the page's text has is as good as any: the snippet is not read
    // on for the ones it lacks, or has only in its title, URL or anchors — up to 200,000
    // characters of it. None: the page's start or description is shown.)
    const enough = Math.min(words - missing.length, wordsInBody(r.plan, r.lens, id));
    // Its start first: the whole page is read only when the snippet may be further on.
    let d = await docs.start(id);
    if (!d) return undefined;
    let hit: SearchHit | undefined = hitOfStart(d, score, r.plan.forgiven.marked, body, enough, textCut(d));
    if (!hit) {
      d = (await docs.get(id))!;
      hit = hitOf(d, score, r.plan.forgiven.marked, body, enough);
    }
    const section = sectionOf(d);
    return missing.length || section ? { ...hit, ...(section ? { section } : {}), ...(missing.length ? { missing } : {}) } : hit;
  };
}

/** How many words a query has (its slots' distinct terms: a word being typed is one, whatever its completions). */
export function wordsOf(slots: readonly { readonly term: string }[]): number {
  return new Set(slots.map((s) => s.term)).size;
}

/** The page (from 1) that the character at `offset` is on, given where each page begins. */
export function pageAt(offsets: readonly number[], offset: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
