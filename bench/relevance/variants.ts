/**
 * bench/relevance's query variants, made from each query of a set (deterministic, so that runs
 * compare): as typed so far (the last word cut after its first 4 letters or digits) and with one
 * typo (one edit — a substitution, deletion, insertion or transposition — in one word of 5
 * letters or more, chosen by a generator seeded with the query itself).
 */
import { fnv1a32 } from '../hash.ts';

export type Variant = 'exact' | 'prefix' | 'typo';
export const VARIANTS: readonly Variant[] = ['exact', 'prefix', 'typo'];

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';
const PREFIX_LETTERS = 4;
const TYPO_MIN = 5;

/** The query as it reads halfway through typing its last word (unchanged when that word is short). */
export function prefixVariant(q: string): string {
  const m = /\S+$/.exec(q);
  if (!m) return q;
  let seen = 0;
  for (let i = 0; i < m[0].length; i++) {
    if (/[\p{L}\p{N}]/u.test(m[0][i]!) && ++seen === PREFIX_LETTERS) return q.slice(0, m.index + i + 1);
  }
  return q;
}

/** The query with one typo in one of its words of TYPO_MIN letters or more (unchanged when it has none). */
export function typoVariant(q: string): string {
  const words = [...q.matchAll(/[a-z]+/gi)].filter((m) => m[0].length >= TYPO_MIN);
  if (!words.length) return q;
  const rnd = seeded(q);
  const m = words[Math.floor(rnd() * words.length)]!;
  const w = m[0];
  const letter = (not = '') => {
    let c: string;
    do c = LETTERS[Math.floor(rnd() * LETTERS.length)]!;
    while (c === not.toLowerCase());
    return c;
  };
  let typo: string;
  switch (Math.floor(rnd() * 4)) {
    case 0: {
      const i = Math.floor(rnd() * w.length);
      typo = w.slice(0, i) + letter(w[i]) + w.slice(i + 1);
      break;
    }
    case 1: {
      const i = Math.floor(rnd() * w.length);
      typo = w.slice(0, i) + w.slice(i + 1);
      break;
    }
    case 2: {
      const i = Math.floor(rnd() * (w.length + 1));
      typo = w.slice(0, i) + letter() + w.slice(i);
      break;
    }
    default: {
      // Two different neighbours swapped (swapping equal letters would change nothing).
      const starts = [...w.slice(1)].map((c, k) => (c.toLowerCase() !== w[k]!.toLowerCase() ? k : -1)).filter((k) => k >= 0);
      const i = starts[Math.floor(rnd() * starts.length)]!;
      typo = w.slice(0, i) + w[i + 1] + w[i] + w.slice(i + 2);
    }
  }
  return q.slice(0, m.index) + typo + q.slice(m.index! + w.length);
}

export function variantOf(q: string, v: Variant): string {
  return v === 'prefix' ? prefixVariant(q) : v === 'typo' ? typoVariant(q) : q;
}

/** A generator seeded with a string (FNV-1a, then an LCG): the same typo for the same query. */
function seeded(s: string): () => number {
  let state = fnv1a32(s);
  return () => (state = (Math.imul(state, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}
