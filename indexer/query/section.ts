/**
 * The section of a page a query found: the heading (one with a fragment id, model/documents.ts
 * `headingIds`) that holds more of the query than the page's title does — at least half its IDF
 * mass —, so that the result links `page#id` (rustdoc's error index at #E0382 for "E0382", as a
 * PDF's result opens at its page). A page whose title already says what was asked is linked whole.
 */
import type { StoredDocument } from '../../model/index.ts';
import { stemmerFor } from '../ingest/tokenize.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import { locate, sparseLocator, type SparseOccurrences } from './locate.ts';
import type { SlotWeights } from './weights.ts';

/** The section a result links: its heading and the page's address with its fragment. */
export type Section = { readonly heading: string; readonly url: string };

/** A heading must hold at least this share of the query's IDF mass to be linked. */
export const SECTION_SHARE = 0.5;

/**
 * The query's section finder: what depends on the query alone (its terms, the slots each stands
 * for, what each weighs) made once, for the hits of a page. For a page `d`, the section the query
 * found, if one holds more of it than the title.
 */
export function sectionFinder(
  weights: SlotWeights,
  stats: CorpusStatistics,
): (d: Pick<StoredDocument, 'url' | 'title' | 'lang' | 'headingIds'>) => Section | undefined {
  // Each term's slots (a term may stand for several words).
  const slotsOf = new Map<string, number[]>();
  for (let k = 0; k < weights.termIds.length; k++) {
    const t = stats.term(weights.termIds[k]!);
    slotsOf.set(t, [...(slotsOf.get(t) ?? []), weights.slotOf[k]!]);
  }
  const terms = [...slotsOf.keys()];
  /** The IDF of the slots some occurrences cover. */
  const coverOf = (found: readonly string[]) => {
    const covered = new Set<number>();
    for (const t of found) for (const s of slotsOf.get(t)!) covered.add(s);
    let x = 0;
    for (const s of covered) x += weights.slotIdf[s]!;
    return x;
  };
  // Where the terms start in a page's headings: by their characters (a page may have a thousand
  // headings, each a signature), token by token where a heading has words outside ASCII.
  const finders = new Map<(word: string) => string, ReturnType<typeof sparseLocator>>();
  const occurrencesIn = (text: string, stem: (word: string) => string): SparseOccurrences => {
    let find = finders.get(stem);
    if (!find) finders.set(stem, (find = sparseLocator(terms, stem)));
    const sparse = find(text, 0, text.length);
    if (sparse) return sparse;
    const o = locate(text, terms, true, stem);
    return { starts: [...o.at].map((i) => o.starts[i]!), terms: o.terms };
  };
  return (d) => {
    if (!d.headingIds?.length || !Array.isArray(d.headingIds) || weights.idfSum <= 0) return undefined;
    const { stem } = stemmerFor(d.lang);
    // The headings with ids read in one pass (a page may have a thousand): each occurrence counted
    // to the heading it starts in.
    const headings = d.headingIds.map(([h]) => h);
    const o = occurrencesIn(headings.join('\n'), stem);
    if (!o.starts.length) return undefined;
    const foundIn = new Map<number, string[]>();
    for (let k = 0, h = 0, next = headings[0]!.length + 1; k < o.starts.length; k++) {
      const start = o.starts[k]!;
      while (h + 1 < headings.length && next <= start) next += headings[++h]!.length + 1;
      const found = foundIn.get(h);
      if (found) found.push(o.terms[k]!);
      else foundIn.set(h, [o.terms[k]!]);
    }
    let best: { at: number; covered: number } | undefined;
    for (const [h, found] of foundIn) {
      const covered = coverOf(found);
      // (The first of the best: occurrences come in order.)
      if (covered > (best?.covered ?? 0)) best = { at: h, covered };
    }
    if (!best || best.covered < SECTION_SHARE * weights.idfSum || best.covered <= coverOf(locate(d.title, terms, false, stem).terms)) return undefined;
    const [heading, id] = d.headingIds[best.at]!;
    return { heading, url: `${d.url.replace(/#.*$/, '')}#${encodeURIComponent(id)}` };
  };
}
