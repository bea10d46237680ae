/**
 * BM25F, the ranking function, over document vectors (vector.ts). Titles and headings say what a
 * page is about, so a match there counts for more than one in the body.
 *
 * Per term, field frequencies are length-normalized and weighted into one pseudo-frequency,
 * saturated once with k1, and multiplied by the term's IDF. Saturating all fields together means
 * a term in the title adds almost nothing to the same term all over the body, so a small per-field
 * part (each field saturated on its own and weighted, as Lucene's multi-field queries and
 * MiniSearch score) gives credit for every field a term is found in. Plus a title bonus: BM25
 * saturates a title match as fast as a body match, so a page titled exactly what was asked
 * ("CREATE TABLE") ranks no higher than pages that mention those words in a longer title ("CREATE
 * TABLE AS") or all over. The bonus is the query's IDF mass times how much of the query the title
 * holds and how much of the title the query holds. And a link prior: a page many pages link to is
 * more often the one meant — in full for a query that says enough, in part for one whose words
 * are on most pages (`linkScale`).
 */
import { FIELDS, type Field } from '../ingest/fields.ts';
import { freqIn, holdsAll, indexOf, inTitle, recordOf, type DocVector } from './vector.ts';

/** `anchor`: the text of links to the page from other pages (store/anchors.ts). */
export const FIELD_WEIGHT: Readonly<Record<Field, number>> = { title: 3, headings: 2, description: 1.5, url: 1.5, anchor: 2, body: 1 };
/** BM25's b per field: short fields are normalized less. */
export const FIELD_B: Readonly<Record<Field, number>> = { title: 0.5, headings: 0.6, description: 0.5, url: 0.4, anchor: 0.6, body: 0.75 };
export const K1 = 1.2;
/** Weight of the title bonus (`titleBonus`), relative to the query's IDF mass. */
export const TITLE_BONUS = 0.5;
/** Weight of the link prior: log(1 + pages linking in), added to the score. */
export const LINK_PRIOR = 0.3;
/**
 * The query's IDF mass from which the link prior counts in full (about two informative words);
 * below it, in proportion (`linkScale`). A query whose words are on most pages says little about
 * them, and a fixed prior then decides alone: on rust-doc, "Arc" (on 80 % of the pages, in their
 * sidebars: IDF 0.22) ranked core::arch's pages (17,000 links in) first by their links, and the
 * page of Arc 69th (bench/relevance; chosen on the tuning halves: README "figures").
 */
export const LINK_PRIOR_FULL_AT = 6;

/** How much of the link prior a query of IDF mass `idfSum` gives. */
export function linkScale(idfSum: number): number {
  return Math.min(1, idfSum / LINK_PRIOR_FULL_AT);
}
/**
 * A page that misses some of the query's words (query/coverage.ts lets a long query's candidates
 * miss a bare word) scores × (share of the query's IDF mass it holds)^COVERAGE_POWER: the
 * words it misses add nothing to its sum, and it also loses in proportion to what they said — so
 * a page holding every word in passing still ranks below one that holds the important words
 * strongly only when those are strong enough (Lucene's coordination factor, weighted by IDF).
 */
export const COVERAGE_POWER = 1.5;

/** The coverage factor of a page holding `covered` of the query's IDF mass `idfSum`. */
export function coverageFactor(covered: number, idfSum: number): number {
  return covered >= idfSum || idfSum <= 0 ? 1 : (covered / idfSum) ** COVERAGE_POWER;
}
/** Weight of the per-field part of a term's score next to its BM25F part (`impactFunction`). */
export const FIELD_MATCH = 0.1;

const F = FIELDS.length;
const TITLE = FIELDS.indexOf('title');

/**
 * What a term adds to a document's score before its IDF: `row` is the term's index in the vector
 * (`impactFunction`). `byField` gives the same by field, for an explanation (query/explain.ts).
 */
export type ImpactFunction = ((v: DocVector, row: number) => number) & { readonly byField: (v: DocVector, row: number) => Float64Array };

/** Per field: norm = 1 − b + b · length / average length = base + slope · length; and its weight. */
export type FieldNorms = { readonly base: Float64Array; readonly slope: Float64Array; readonly weight: Float64Array };

/** The fields' norms for `documents` documents whose field lengths sum to `lengthSum`. */
export function fieldNorms(lengthSum: Float64Array, documents: number): FieldNorms {
  const base = new Float64Array(F);
  const slope = new Float64Array(F);
  const weight = new Float64Array(F);
  FIELDS.forEach((field, f) => {
    base[f] = 1 - FIELD_B[field];
    slope[f] = FIELD_B[field] / (lengthSum[f]! / documents || 1);
    weight[f] = FIELD_WEIGHT[field];
  });
  return { base, slope, weight };
}

/** A term's inverse document frequency, as BM25 weighs it. */
export function idf(df: number, documents: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/**
 * What a term adds to a document's score before it is multiplied by the term's IDF, apart from
 * the title bonus (which depends on the whole query): its BM25F and per-field parts. `row` is the
 * term's index in the vector. With these, whether the term is in the title, the title's length and
 * the link prior, a query's score is computed as `scorer` does — from lists read in sequence
 * instead of vectors all over the heap (impacts.ts). Made once per query, used for many rows.
 */
export function impactFunction(norms: FieldNorms): ImpactFunction {
  const { base, slope, weight } = norms;
  // (Constants copied into locals: an imported binding may be read through a getter.)
  const k1 = K1;
  const fieldMatch = FIELD_MATCH;
  const impact = (v: DocVector, row: number) => {
    const { freqs, lengths } = v;
    let pseudo = 0;
    let perField = 0;
    const record = recordOf(freqs, v.termIds.length, row);
    for (let f = 0; f < F; f++) {
      const t = freqIn(freqs, row, record, f);
      if (t === 0) continue;
      const norm = base[f]! + slope[f]! * lengths[f]!;
      const wt = weight[f]! * t;
      pseudo += wt / norm;
      perField += (wt * (k1 + 1)) / (t + k1 * norm);
    }
    return pseudo / (k1 + pseudo) + fieldMatch * perField;
  };
  return Object.assign(impact, { byField: (v: DocVector, row: number) => impactByField(norms, v, row) });
}

/**
 * `impactFunction`'s value shared out by field: each field's per-field part, and its share of the
 * BM25F part (saturated once over all fields) by its share of the pseudo-frequency. The parts add
 * up to the whole. Made for an explanation of a few hits: it allocates. (The loop of
 * `impactFunction` again, not shared with it: that one runs for every candidate of every query and
 * allocates nothing; query/explain.test.ts checks that these parts add up to its value.)
 */
export function impactByField({ base, slope, weight }: FieldNorms, v: DocVector, row: number): Float64Array {
  const { freqs, lengths } = v;
  const pseudoOf = new Float64Array(F);
  const parts = new Float64Array(F);
  let pseudo = 0;
  const record = recordOf(freqs, v.termIds.length, row);
  for (let f = 0; f < F; f++) {
    const t = freqIn(freqs, row, record, f);
    if (t === 0) continue;
    const norm = base[f]! + slope[f]! * lengths[f]!;
    const wt = weight[f]! * t;
    pseudoOf[f] = wt / norm;
    pseudo += pseudoOf[f]!;
    parts[f] = (FIELD_MATCH * (wt * (K1 + 1))) / (t + K1 * norm);
  }
  const saturated = pseudo / (K1 + pseudo);
  for (let f = 0; f < F; f++) if (pseudoOf[f]! > 0) parts[f]! += (saturated * pseudoOf[f]!) / pseudo;
  return parts;
}

/** The title bonus: `inTitleCount` of the query's `q` terms are in a title of `titleLength` tokens. */
export function titleBonus(idfSum: number, inTitleCount: number, q: number, titleLength: number): number {
  return inTitleCount ? TITLE_BONUS * idfSum * (inTitleCount / q) * Math.min(1, inTitleCount / titleLength) : 0;
}

/**
 * A query's scorer over vectors: what depends only on the query (IDFs, length norms, weights) is
 * computed once, not once per candidate. A term's part is `impactFunction`'s, the same the impact
 * lists hold.
 */
export function scorer(idfs: readonly number[], termIds: Uint32Array, impact: ImpactFunction): (v: DocVector) => number {
  const q = termIds.length;
  const idfSum = idfs.reduce((a, b) => a + b, 0);
  const scale = linkScale(idfSum);
  return (v) => {
    let score = 0;
    let inTitleCount = 0;
    let covered = 0;
    for (let k = 0; k < q; k++) {
      const row = indexOf(v.termIds, termIds[k]!);
      if (row < 0) continue;
      if (inTitle(v, row)) inTitleCount++;
      score += idfs[k]! * impact(v, row);
      covered += idfs[k]!;
    }
    score += titleBonus(idfSum, inTitleCount, q, v.lengths[TITLE]!);
    return (score + scale * LINK_PRIOR * Math.log1p(v.inlinks)) * coverageFactor(covered, idfSum);
  };
}

/**
 * What a query weighs (query/weights.ts): each of its words is a slot that any of its alternatives
 * fills — the word itself and, in a forgiving search, its completions or its correction, weighted
 * below it. Per alternative: its term, weight (IDF × how much it counts), factor (how much it
 * counts: 1 for the word itself) and slot.
 */
export type SlotWeights = {
  readonly termIds: Uint32Array;
  readonly weights: Float64Array;
  readonly factors: Float64Array;
  readonly slotOf: Uint16Array;
  /** Slots that some alternative can fill (the `q` of the title bonus). */
  readonly slots: number;
  /** Per slot: the query word it stands for (what an explanation names). */
  readonly words: readonly string[];
  /** The slots' IDF mass (the title bonus's, and the coverage factor's): the sum of `slotIdf`. */
  readonly idfSum: number;
  /** Per slot: its IDF as the title bonus and the coverage factor count it (`coverageFactor`). */
  readonly slotIdf: Float64Array;
  /** Per alternative: 1 when it is the word itself (in some language). */
  readonly own: Uint8Array;
  /**
   * Per slot: what a document's score is multiplied by when it holds only alternatives of the
   * word, not the word itself (1: nothing; below 1 for a word typed whole, forgive.ts).
   */
  readonly alone: Float64Array;
  /** Per alternative, when some has them: the terms a document must also hold for it to count (a synonym of several words, query/together.ts). */
  readonly together?: readonly (Uint32Array | undefined)[];
};

/**
 * `scorer` over slots: a slot scores its best alternative in the document (alternatives of one
 * word are never added up), and counts toward the title bonus by the factor of its best
 * alternative in the title. A page holding no alternative of some slot is scored × its coverage
 * (`coverageFactor`). With one alternative per slot, of factor 1, held by the page, it is `scorer` exactly.
 */
export function slotScorer(w: SlotWeights, impact: ImpactFunction): (v: DocVector) => number {
  const { termIds, weights, factors, slotOf, slots, idfSum, slotIdf, own, alone, together } = w;
  const n = termIds.length;
  const best = new Float64Array(slots);
  const titled = new Float64Array(slots);
  const holdsOwn = new Uint8Array(slots);
  const scale = linkScale(idfSum);
  return (v) => {
    best.fill(0);
    titled.fill(0);
    holdsOwn.fill(0);
    for (let k = 0; k < n; k++) {
      const row = indexOf(v.termIds, termIds[k]!);
      if (row < 0 || (together && !holdsAll(v, together[k]))) continue;
      const s = slotOf[k]!;
      const x = weights[k]! * impact(v, row);
      if (x > best[s]!) best[s] = x;
      if (inTitle(v, row) && factors[k]! > titled[s]!) titled[s] = factors[k]!;
      holdsOwn[s]! |= own[k]!;
    }
    let score = 0;
    let inTitleCount = 0;
    let times = 1;
    let covered = 0;
    for (let s = 0; s < slots; s++) {
      score += best[s]!;
      inTitleCount += titled[s]!;
      if (best[s]! > 0) covered += slotIdf[s]!;
      if (best[s]! > 0 && !holdsOwn[s]) times *= alone[s]!;
    }
    score += titleBonus(idfSum, inTitleCount, slots, v.lengths[TITLE]!);
    return (score + scale * LINK_PRIOR * Math.log1p(v.inlinks)) * times * coverageFactor(covered, idfSum);
  };
}
