/**
 * The section of a page a query found: the heading (one with a fragment id, model/documents.ts
 * `headingIds`) that holds more of the query than the page's title does — at least half its IDF
 * mass —, so that the result links `page#id` (rustdoc's error index at #E0382 for "E0382", as a
 * PDF's result opens at its page). A page whose title already says what was asked is linked whole.
 */
import type { StoredDocument } from '../../model/index.ts';
import { stemmerFor, tokenize } from '../ingest/tokenize.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { SlotWeights } from './weights.ts';

/** The section a result links: its heading and the page's address with its fragment. */
export type Section = { readonly heading: string; readonly url: string };

/** A heading must hold at least this share of the query's IDF mass to be linked. */
export const SECTION_SHARE = 0.5;

/** The section of `d` that the query of `weights` found, if one holds more of it than the title. */
export function sectionOf(
  d: Pick<StoredDocument, 'url' | 'title' | 'lang' | 'headingIds'>,
  weights: SlotWeights,
  stats: CorpusStatistics,
): Section | undefined {
  if (!d.headingIds || weights.idfSum <= 0) return undefined;
  const stemmer = stemmerFor(d.lang);
  // Each slot's terms (the word and its alternatives), and what the slot weighs.
  const slots: Set<string>[] = Array.from({ length: weights.slots }, () => new Set());
  for (let k = 0; k < weights.termIds.length; k++) slots[weights.slotOf[k]!]!.add(stats.term(weights.termIds[k]!));
  const covered = (text: string) => {
    const terms = new Set(tokenize(text, stemmer));
    let x = 0;
    slots.forEach((s, i) => {
      for (const t of s)
        if (terms.has(t)) {
          x += weights.slotIdf[i]!;
          return;
        }
    });
    return x;
  };
  let best: { heading: string; id: string; covered: number } | undefined;
  for (const [heading, id] of Object.entries(d.headingIds)) {
    const c = covered(heading);
    if (c > (best?.covered ?? 0)) best = { heading, id, covered: c };
  }
  if (!best || best.covered < SECTION_SHARE * weights.idfSum || best.covered <= covered(d.title)) return undefined;
  return { heading: best.heading, url: `${d.url.replace(/#.*$/, '')}#${encodeURIComponent(best.id)}` };
}
