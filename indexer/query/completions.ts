/**
 * As you type: the terms a query's last word may be the start of, from the prefix index
 * (structures/prefix-index.ts) — the most frequent first, at most MAX_COMPLETIONS.
 *
 * The index holds stems, and a word typed halfway may have gone past its stem's end:
 * "replicati" is the start of "replication", whose stem is "replic", which "replicati" does not
 * begin. So the stems the typed word extends by a few characters count too — when words begin
 * with it, only those a word it begins may stem to (`endsAt`): "mute" is mutex, not mut.
 */
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { Completer } from '../structures/prefix-index.ts';
import { RARE_DF } from './corrections.ts';
import type { LooseWord } from './parse.ts';
import { stem } from '../ingest/tokenize.ts';

/** Completions of one word, at most (the most frequent: rarer ones add cost and little else). */
export const MAX_COMPLETIONS = 50;
/**
 * A word shorter than this completes nothing (every word begins with some letter) — unless it is
 * joined to the word before it ("max_c", "log_m"): that word says which ("max connections").
 */
export const MIN_PREFIX = 2;
/** A typed word may go this many characters past the end of a stem it completes. */
const PAST_STEM = 3;
/** ... which is at least this long ("sett" for "set", the stem of settings). */
const MIN_STEM = 3;
/** ... unless the word is in more documents than this (corrections.ts RARE_DF): then it is a word. */
const PAST_MAX_DF = RARE_DF;

/**
 * The ids of the terms `w` may be the start of, most frequent first — not the word's own term,
 * which the query holds anyway: those that begin with the word as typed, and the stems it goes
 * past (which a typo may also make: "indx" goes past "ind"). A word that ends an identifier
 * typed so far ("pg_st") completes to the identifiers it begins, when the index knows some (a page
 * holding pg_stat_activity holds "pg" and "stat" too): its words, apart, are what was not meant.
 */
export function completions(
  w: LooseWord,
  stats: CorpusStatistics,
  prefixes: Completer,
  limit = MAX_COMPLETIONS,
): { begun: number[]; past: number[]; identifier?: string } {
  const own = stats.termId(w.term);
  const df = (id: number) => (id === own ? 0 : stats.docFrequencyOf(id));
  if (w.identifier !== undefined) {
    // (Not the identifier itself: it is the word typed — forgive.ts.)
    const typed = stats.termId(w.identifier);
    const identifiers = prefixes.complete(w.identifier, (id) => (id === typed ? 0 : df(id)), limit);
    if (identifiers.length || (typed !== undefined && df(typed) > 0)) return { begun: identifiers, past: [], identifier: w.identifier };
  }
  if (w.word.length < (w.joined ? 1 : MIN_PREFIX)) return { begun: [], past: [] };
  const begun = prefixes.complete(w.word, df, limit, w.joined ? 1 : MIN_PREFIX);
  const past: number[] = [];
  // (A word the index knows from more than a page or two is a word of its own, not one typed past
  // a stem: "nextval" does not stand for "next".)
  if (stats.docFrequency(w.term) > PAST_MAX_DF) return { begun, past };
  for (let k = w.word.length - 1; k >= Math.max(MIN_STEM, w.word.length - PAST_STEM); k--) {
    const id = stats.termId(w.word.slice(0, k));
    // (When words begin with it, a stem it goes past must be one a word it begins may have:
    // "mute" begins mutex, and no word "mute…" stems to "mut", the keyword of every page.)
    if (id !== undefined && df(id) > 0 && !begun.includes(id) && (!begun.length || endsAt(w.word, w.word.slice(0, k)))) past.push(id);
  }
  return { begun, past: past.sort((a, b) => df(b) - df(a)) };
}

/** All of `completions`, most frequent first (at most `limit`). */
export function allCompletions(w: LooseWord, stats: CorpusStatistics, prefixes: Completer, limit = MAX_COMPLETIONS): number[] {
  const { begun, past } = completions(w, stats, prefixes, limit);
  return past.length ? [...begun, ...past].sort((a, b) => stats.docFrequencyOf(b) - stats.docFrequencyOf(a)).slice(0, limit) : begun;
}

/**
 * Endings a stemmer takes off (English, as the default stemmer: ingest/tokenize.ts), whole; a word
 * typed halfway may have stopped inside one ("replicati" in "-ation").
 */
const ENDINGS = [
  'ation',
  'ations',
  'ition',
  'ing',
  'ings',
  'ed',
  'er',
  'ers',
  'es',
  's',
  'ment',
  'ments',
  'ness',
  'ity',
  'ities',
  'ive',
  'ize',
  'izing',
  'ization',
  'able',
  'ible',
  'al',
  'ally',
  'ly',
  'ence',
  'ance',
  'ent',
  'ous',
  'ful',
  'ism',
  'ist',
  'e',
];
/** Every tail of an ending — what may be left to type of a word stopped inside it — and none. */
const TAILS = [...new Set(['', ...ENDINGS.flatMap((e) => Array.from({ length: e.length }, (_, i) => e.slice(i)))])];

/** True when a word beginning with `typed` — `typed` and one of TAILS — stems to `stemmed`. */
export function endsAt(typed: string, stemmed: string): boolean {
  return TAILS.some((t) => stem(typed + t) === stemmed);
}
