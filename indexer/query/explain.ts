/**
 * Why a hit scored what it did (`/api/search?explain=1`, `trawl search --explain`): its score taken
 * apart the way it was computed — bm25f.ts `slotScorer`, then the exact-form bonus
 * (exact-forms.ts) and the phrase evidence (proximity.ts) — so that a ranking change can be
 * reasoned about. The parts give the hit's score:
 *
 *   score = (Σ words' scores + titleBonus + links) × alternativesOnly × coverage × exactForms × proximity
 *
 * Worked out again for the hits of one page only, from the same view and weights the query ranked
 * with: the explanation is of the score shown, not of a later index.
 */
import { FIELDS, type Field } from '../ingest/fields.ts';
import { coverageFactor, LINK_PRIOR, linkScale, titleBonus } from '../structures/bm25f.ts';
import { holdsAll, indexOf, inTitle } from '../structures/vector.ts';
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexedDocuments } from '../structures/index-view.ts';
import type { Slot, SlotWeights } from './weights.ts';

/** What one query word adds to a page's score: the term that stood for it there, its weight and each field's part. */
export type WordExplained = {
  /** The query word (as the index spells it: stemmed, folded). */
  readonly word: string;
  /** The term found in the page for it: the word itself, or a completion, correction or synonym. */
  readonly term: string;
  /** Whether `term` is the word itself (in some language), not an alternative. */
  readonly own: boolean;
  /** When `term` is a synonym (query/synonyms.ts): of what, as the rules write it — "kill", "long running". */
  readonly synonymOf?: string;
  /** The term's weight in this query: its IDF, times what an alternative counts. */
  readonly weight: number;
  /** Whether the term is in the page's title (the title bonus counts it). */
  readonly inTitle: boolean;
  /** The word's score: its fields' parts added up. */
  readonly score: number;
  /** Each field's part of it (BM25F's part shared out by field, and the field's own): the fields that hold the term. */
  readonly fields: Readonly<Partial<Record<Field, number>>>;
};

export type ScoreExplained = {
  /** The words the page holds (itself or an alternative), in the query's order. */
  readonly words: readonly WordExplained[];
  /** The query's words the page does not hold, nor any alternative of them. */
  readonly missing: readonly string[];
  /** The title bonus: how much of the query the title holds and how much of the title the query holds (bm25f.ts). */
  readonly titleBonus: number;
  /** The link prior: pages linking to this one, and what that adds. */
  readonly links: { readonly inlinks: number; readonly score: number };
  /** Below 1 when the page holds only alternatives of a word typed whole (a correction, not the word): the factor. */
  readonly alternativesOnly: number;
  /** Below 1 when the page misses some of the query's words (`missing`): the share of the query's IDF it holds, weighed (bm25f.ts `coverageFactor`). */
  readonly coverage: number;
  /** The exact-form bonus (the query's diacritics written as typed): the factor, 1 when none applies. */
  readonly exactForms: number;
  /** Phrase evidence (the query's words together, in order): the factor; 1 for one word, or beyond the pages re-scored. */
  readonly proximity: number;
  /** The product of all the above: the hit's score. */
  readonly score: number;
};

const TITLE = FIELDS.indexOf('title');

/** What a query was ranked with (search-types.ts `Plan`): its words, their weights, and its exact scores. */
export type Scored = {
  readonly forgiven: { readonly slots: readonly Slot[] };
  readonly weights: SlotWeights;
  readonly exactScores: (ids: ArrayLike<number>) => Float64Array;
};

/** Where it read its figures (search-types.ts `Lens`): the statistics, and the documents' vectors as the query began. */
export type ScoredOver = { readonly stats: CorpusStatistics; readonly documents: IndexedDocuments };

/**
 * The query's words document `id` holds nothing for — neither the word nor an alternative — as
 * typed (a long query's candidates may miss a word: coverage.ts); none when the view lacks it.
 * What a result says under it ("Missing: second"), as search engines do.
 */
export function missingWords(
  plan: Scored & { readonly typed: { readonly loose: readonly { term: string; word: string }[] } },
  lens: ScoredOver,
  id: number,
): string[] {
  const v = lens.documents.vector(id);
  if (!v) return [];
  const { termIds, slotOf, slots, words, together } = plan.weights;
  const held = new Uint8Array(slots);
  for (let k = 0; k < termIds.length; k++) if (indexOf(v.termIds, termIds[k]!) >= 0 && holdsAll(v, together?.[k])) held[slotOf[k]!] = 1;
  const missing = words.filter((_, s) => !held[s]);
  // (A word the index does not know had no slot: no page holds it.)
  for (const slot of plan.forgiven.slots) if (!words.includes(slot.term) && !missing.includes(slot.term)) missing.push(slot.term);
  const typed = new Map(plan.typed.loose.map((w) => [w.term, w.word]));
  return missing.map((t) => typed.get(t) ?? t);
}

/**
 * How many of the query's words page `id`'s text (its body field) holds — a snippet's passage can
 * hold no more of them, so it is not searched for further (query/hits.ts); Infinity when the view
 * does not hold the page.
 */
export function wordsInBody(plan: Scored, lens: ScoredOver, id: number): number {
  const v = lens.documents.vector(id);
  if (!v) return Infinity;
  const { termIds, slotOf, slots, together } = plan.weights;
  const held = new Uint8Array(slots);
  let n = 0;
  for (let k = 0; k < termIds.length; k++) {
    const row = indexOf(v.termIds, termIds[k]!);
    // (The body's frequencies come first in a vector's: vector.ts.)
    if (row >= 0 && v.freqs[row]! > 0 && !held[slotOf[k]!] && holdsAll(v, together?.[k])) {
      held[slotOf[k]!] = 1;
      n++;
    }
  }
  return n;
}

/** The score of document `id` for the query `plan` ranked over `lens`, taken apart; undefined when the view holds no such document. */
export function explainScore(plan: Scored, lens: ScoredOver, id: number, evidence: number | undefined): ScoreExplained | undefined {
  const v = lens.documents.vector(id);
  if (!v) return undefined;
  const { termIds, weights, factors, slotOf, slots, words: slotWords, idfSum, slotIdf, own, alone, together } = plan.weights;
  const impact = lens.stats.impactFunction();
  // Per slot, its best alternative in the page (as slotScorer: alternatives of one word are never added up).
  const best = new Float64Array(slots);
  const bestAt = new Int32Array(slots).fill(-1);
  const titled = new Float64Array(slots);
  const holdsOwn = new Uint8Array(slots);
  for (let k = 0; k < termIds.length; k++) {
    const row = indexOf(v.termIds, termIds[k]!);
    if (row < 0 || !holdsAll(v, together?.[k])) continue;
    const s = slotOf[k]!;
    const x = weights[k]! * impact(v, row);
    if (x > best[s]!) {
      best[s] = x;
      bestAt[s] = k;
    }
    if (inTitle(v, row) && factors[k]! > titled[s]!) titled[s] = factors[k]!;
    holdsOwn[s]! |= own[k]!;
  }
  const words: WordExplained[] = [];
  const missing: string[] = [];
  let sum = 0;
  let inTitleCount = 0;
  let alternativesOnly = 1;
  let covered = 0;
  for (let s = 0; s < slots; s++) {
    inTitleCount += titled[s]!;
    const k = bestAt[s]!;
    if (k < 0) {
      missing.push(slotWords[s]!);
      continue;
    }
    if (!holdsOwn[s]) alternativesOnly *= alone[s]!;
    covered += slotIdf[s]!;
    sum += best[s]!;
    const row = indexOf(v.termIds, termIds[k]!);
    const parts = impact.byField(v, row);
    const fields: Partial<Record<Field, number>> = {};
    FIELDS.forEach((f, i) => {
      if (parts[i]! > 0) fields[f] = weights[k]! * parts[i]!;
    });
    const term = lens.stats.term(termIds[k]!);
    const synonymOf = own[k] ? undefined : synonymIn(plan.forgiven.slots, slotWords[s]!, term);
    words.push({
      word: slotWords[s]!,
      term,
      own: own[k] === 1,
      ...(synonymOf !== undefined ? { synonymOf } : {}),
      weight: weights[k]!,
      inTitle: inTitle(v, row),
      score: best[s]!,
      fields,
    });
  }
  // Words the index does not know at all had no slot: the page holds none of them either.
  for (const slot of plan.forgiven.slots) if (!slotWords.includes(slot.term) && !missing.includes(slot.term)) missing.push(slot.term);
  const bonus = titleBonus(idfSum, inTitleCount, slots, v.lengths[TITLE]!);
  const links = linkScale(idfSum) * LINK_PRIOR * Math.log1p(v.inlinks);
  const coverage = coverageFactor(covered, idfSum);
  const scored = (sum + bonus + links) * alternativesOnly * coverage;
  // (The exact-form bonus is a factor on the scorer's score: asked of it for this page alone.)
  const exact = plan.exactScores([id])[0]!;
  const exactForms = scored > 0 ? exact / scored : 1;
  const proximity = evidence ?? 1;
  return {
    words,
    missing,
    titleBonus: bonus,
    links: { inlinks: v.inlinks, score: links },
    alternativesOnly,
    coverage,
    exactForms,
    proximity,
    score: scored * exactForms * proximity,
  };
}

/** What `term` is a synonym of in the slot of `word` (query/synonyms.ts), if it stands for it as one. */
function synonymIn(slots: readonly Slot[], word: string, term: string): string | undefined {
  return slots.find((s) => s.term === word)?.alternatives.find((a) => a.term === term && a.synonym !== undefined)?.synonym;
}
