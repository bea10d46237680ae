/**
 * Typos: the word a mistyped one was meant to be, for forgiving search and "did you mean".
 *
 * Candidates come from the typo index (structures/typo-index.ts): terms within one edit of a word
 * of 4 characters or more, two of one of 8 or more. The index holds stems, so the word's stem is
 * looked up, and the word as typed (its stem may be the word). A typo can hide a word's stem from
 * both ("replicatoin" does not stem to "replic"): then the strings one edit from the word are
 * stemmed and looked up (and, for a word allowed two edits, the terms one edit from those stems).
 * Two edits are otherwise counted between stems: two typos that both change how a word stems
 * ("replcatoin") are not found.
 *
 * The choice weighs frequency against distance, like a noisy channel: a candidate one edit
 * further must be DISTANCE_COST times as frequent to win, and one that changes the first letter
 * (people seldom mistype it) FIRST_LETTER_COST times.
 */
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { Near, TypoLookup } from '../structures/typo-index.ts';
import { oneEditAway } from '../../lib/edit-distance.ts';
import { tokenize } from '../ingest/tokenize.ts';
import type { LooseWord } from './parse.ts';

/** A known word is corrected when it is in at most RARE_DF documents and a candidate in FREQUENT_RATIO × as many. */
export const RARE_DF = 2;
export const FREQUENT_RATIO = 20;
const DISTANCE_COST = Math.log(20);
const FIRST_LETTER_COST = Math.log(8);
/** Candidates a word is also taken for, at most, and how much less likely than the best (log-odds). */
export const MAX_CORRECTIONS = 3;
const ALSO_LIKELY = DISTANCE_COST;

export type Correction = { readonly id: number; readonly distance: number };

/** The edits allowed in a word as typed: none below 4 characters, one below 8, else two. */
export function maxDistance(word: string, shortest = 4): number {
  return word.length < shortest ? 0 : word.length < 8 ? 1 : 2;
}

/** Candidates for `w` within `max` edits, each once at its smallest distance (not the word's own term). */
export function candidates(w: LooseWord, stats: CorpusStatistics, typos: TypoLookup, max: number): Correction[] {
  const best = new Map<number, number>();
  const take = (found: readonly Near[]) => {
    for (const c of found) if (c.distance < (best.get(c.id) ?? Infinity)) best.set(c.id, c.distance);
  };
  // (Between stems, the edits allowed go by the stem's length: a long word may have a short stem,
  // two edits from many other short stems — "amterialized" is "amteri", two from "after".)
  take(typos.near(w.term, Math.min(max, maxDistance(w.term))));
  if (w.word !== w.term) take(typos.near(w.word, max));
  take(restemmed(w, stats, typos, max >= 2 && ![...best.values()].some((d) => d <= 1)));
  const own = stats.termId(w.term);
  if (own !== undefined) best.delete(own);
  return [...best].map(([id, distance]) => ({ id, distance }));
}

/**
 * A typo can change how a word stems ("replcation" stems to "replcat", not to replication's
 * "replic"; "tble" is two edits from "tabl"): the strings one edit from the word, stemmed — each a
 * term (one edit), or, `twoAway`, one edit from a term.
 */
function restemmed(w: LooseWord, stats: CorpusStatistics, typos: TypoLookup, twoAway: boolean): Near[] {
  const found = new Map<number, number>();
  for (const v of oneEditAway(w.word, typos.alphabet())) {
    const [t, ...rest] = tokenize(v);
    if (t === undefined || rest.length || t === w.term) continue;
    const id = stats.termId(t);
    if (id !== undefined && typos.has(id)) found.set(id, 1);
    else if (twoAway) for (const c of typos.near(t, 1)) if (!found.has(c.id)) found.set(c.id, 1 + c.distance);
  }
  return [...found].map(([id, distance]) => ({ id, distance }));
}

/** The most likely of `found` (see the top of the file), if any is in a document still. */
export function likeliest(w: LooseWord, found: readonly Correction[], stats: CorpusStatistics): Correction | undefined {
  return ranked(w, found, stats)[0];
}

/** `found` in a document still, the most likely first, with their scores (log-odds: see the top of the file). */
function ranked(w: LooseWord, found: readonly Correction[], stats: CorpusStatistics): (Correction & { score: number })[] {
  const out: (Correction & { score: number; term: string })[] = [];
  for (const c of found) {
    const df = stats.docFrequencyOf(c.id);
    if (df <= 0) continue;
    const term = stats.term(c.id);
    out.push({ ...c, term, score: Math.log(df) - DISTANCE_COST * c.distance - (keepsFirstLetter(w, term) ? 0 : FIRST_LETTER_COST) });
  }
  return out.sort((a, b) => b.score - a.score || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0)).map(({ id, distance, score }) => ({ id, distance, score }));
}

/**
 * True when `term` begins as the word does — or with its first two letters swapped
 * ("amterialized"; a swap keeps the length: "elete" is not "let" with "le" swapped).
 */
function keepsFirstLetter(w: LooseWord, term: string): boolean {
  return term[0] === w.word[0] || term[0] === w.term[0] || (term[0] === w.word[1] && term[1] === w.word[0] && term.length === w.term.length);
}

/**
 * What forgiving search corrects `w` to: nothing when the word is in more than RARE_DF documents,
 * or is in some and no candidate is FREQUENT_RATIO times as frequent.
 */
export function correctionOf(w: LooseWord, stats: CorpusStatistics, typos: TypoLookup): Correction | undefined {
  return correctionsOf(w, stats, typos)[0];
}

/**
 * What forgiving search takes `w` for, the likeliest first: `correctionOf`, and up to
 * MAX_CORRECTIONS − 1 more candidates not far less likely (within ALSO_LIKELY of its score) — the
 * other words of the query then tell which was meant ("elete rows": delete, not let).
 */
export function correctionsOf(w: LooseWord, stats: CorpusStatistics, typos: TypoLookup): Correction[] {
  const max = maxDistance(w.word);
  const df = stats.docFrequency(w.term);
  if (!max || df > RARE_DF) return [];
  const all = ranked(w, candidates(w, stats, typos, max), stats);
  const best = all[0];
  if (!best || (df > 0 && stats.docFrequencyOf(best.id) < FREQUENT_RATIO * df)) return [];
  return all
    .filter((c) => c.score >= best.score - ALSO_LIKELY && (df === 0 || stats.docFrequencyOf(c.id) >= FREQUENT_RATIO * df))
    .slice(0, MAX_CORRECTIONS)
    .map(({ id, distance }) => ({ id, distance }));
}
