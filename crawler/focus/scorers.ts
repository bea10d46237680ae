/**
 * The two built-in ways to score a page against a topic (after Combine's algorithms):
 *
 * - plain: Σ over terms and locations of weight × location weight × hits. The locations are the
 *   title, the meta data (description and keywords), the headings and the text (which includes
 *   the headings' words too). An `@and` term hits a location as often as its rarest part does
 *   there (0 if a part is missing).
 * - position: title, meta data and text read as one stream of words; an occurrence at word p
 *   counts weight × H / (H + p), H = `halfWeightAt` (a match H words in counts half). An `@and`
 *   term counts once per occurrence of its first part, taken with the nearest occurrence of each
 *   other part: weight × H / (H + s) × G / (G + gap), s the window's first word, gap the words in
 *   the window that belong to no part, G = `andHalfWeightGap`.
 *
 * With `normalize`, a score is per 100 words of the page (title, meta data and text; a page of
 * fewer than 100 words counts as 100), so long pages do not win by length alone.
 */
import { joinWordTexts, occurrences, wordText, type Occurrence, type WordText } from './match.ts';
import type { Term, Topic } from './topic.ts';

export type Location = 'title' | 'meta' | 'headings' | 'text';
export const LOCATIONS: readonly Location[] = ['title', 'meta', 'headings', 'text'];

/** What a scorer reads of a page. */
export type TopicPage = {
  readonly title: string;
  readonly description: string;
  readonly keywords?: string | undefined;
  readonly headings: readonly string[];
  readonly text: string;
};

export type ScoringOptions = {
  readonly scorer: 'plain' | 'position';
  readonly locationWeights: Readonly<Record<Location, number>>;
  readonly normalize: boolean;
  readonly halfWeightAt: number;
  readonly andHalfWeightGap: number;
};

export const DEFAULT_SCORING: ScoringOptions = {
  scorer: 'plain',
  locationWeights: { title: 4, meta: 3, headings: 2, text: 1 },
  normalize: false,
  halfWeightAt: 100,
  andHalfWeightGap: 10,
};

/** How one term matched: its contribution to the score, and its hits by location. */
export type TermMatch = {
  readonly term: string;
  readonly line: number;
  readonly weight: number;
  readonly classes: readonly string[];
  readonly score: number;
  readonly where: readonly { readonly location: Location; readonly hits: number }[];
};

export type ClassScore = { readonly name: string; readonly score: number };

export type TopicScore = {
  readonly score: number;
  /** Classes with a positive score, best first. */
  readonly classes: readonly ClassScore[];
  /** The terms that matched, in the order of the topic file. */
  readonly matches: readonly TermMatch[];
  /** Words of the page (title, meta data and text): what `normalize` divides by. */
  readonly words: number;
};

export function scorePage(topic: Topic, page: TopicPage, options: ScoringOptions = DEFAULT_SCORING): TopicScore {
  const meta = page.keywords ? `${page.description}\n${page.keywords}` : page.description;
  const [title, metaText, text] = [wordText(page.title), wordText(meta), wordText(page.text)];
  const words = title.words.length + metaText.words.length + text.words.length;
  let raw: Raw[];
  if (options.scorer === 'plain') {
    const texts = { title, meta: metaText, headings: wordText(page.headings.join('\n')), text };
    raw = topic.terms.map((t) => plainTerm(t, texts, options));
  } else raw = positionTerms(topic, title, metaText, text, options);
  const scale = options.normalize ? 100 / Math.max(100, words) : 1;
  const matches: TermMatch[] = [];
  const byClass = new Map<string, number>();
  let score = 0;
  topic.terms.forEach((term, i) => {
    const m = raw[i]!;
    if (!m.where.length) return;
    const s = m.score * scale;
    score += s;
    for (const c of term.classes) byClass.set(c, (byClass.get(c) ?? 0) + s);
    matches.push({ term: term.text, line: term.line, weight: term.weight, classes: term.classes, score: round(s), where: m.where });
  });
  const classes = [...byClass]
    .filter(([, s]) => s > 0)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([name, s]) => ({ name, score: round(s) }));
  return { score: round(score), classes, matches, words };
}

type Raw = { score: number; where: { location: Location; hits: number }[] };

function plainTerm(term: Term, texts: Record<Location, WordText>, o: ScoringOptions): Raw {
  const where: Raw['where'] = [];
  let score = 0;
  for (const location of LOCATIONS) {
    // An @and term hits as often as its rarest part (0 when one is missing).
    const hits = Math.min(...term.parts.map((p) => occurrences(p, texts[location]).length));
    if (!hits) continue;
    where.push({ location, hits });
    score += term.weight * o.locationWeights[location] * hits;
  }
  return { score, where };
}

function positionTerms(topic: Topic, title: WordText, meta: WordText, text: WordText, o: ScoringOptions): Raw[] {
  const stream = joinWordTexts([title, meta, text]);
  // Where each location's words end in the stream.
  const titleEnd = title.words.length;
  const metaEnd = titleEnd + meta.words.length;
  const locationOf = (p: number): Location => (p < titleEnd ? 'title' : p < metaEnd ? 'meta' : 'text');
  const near = (p: number) => o.halfWeightAt / (o.halfWeightAt + p);
  return topic.terms.map((term) => {
    const hits = new Map<Location, number>();
    let score = 0;
    const count = (start: number, factor: number) => {
      score += term.weight * near(start) * factor;
      const loc = locationOf(start);
      hits.set(loc, (hits.get(loc) ?? 0) + 1);
    };
    const lists = term.parts.map((p) => occurrences(p, stream));
    if (lists.length === 1) for (const occ of lists[0]!) count(occ.at, 1);
    else if (lists.every((l) => l.length)) {
      for (const first of lists[0]!) {
        const chosen = [first, ...lists.slice(1).map((l) => nearest(l, first.at))];
        const start = Math.min(...chosen.map((c) => c.at));
        const end = Math.max(...chosen.map((c) => c.at + c.length));
        const gap = Math.max(0, end - start - chosen.reduce((n, c) => n + c.length, 0));
        count(start, o.andHalfWeightGap / (o.andHalfWeightGap + gap));
      }
    }
    return { score, where: LOCATIONS.filter((l) => hits.has(l)).map((location) => ({ location, hits: hits.get(location)! })) };
  });
}

/** The occurrence nearest to word `at` (the earlier one on a tie); `list` is in order, not empty. */
function nearest(list: readonly Occurrence[], at: number): Occurrence {
  let best = list[0]!;
  for (const occ of list) if (Math.abs(occ.at - at) < Math.abs(best.at - at)) best = occ;
  return best;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
