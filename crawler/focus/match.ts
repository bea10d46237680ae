/**
 * Where a topic's terms occur in a piece of text, by word position. The text is lowercased and cut
 * into words (runs of letters and digits, as topic.ts cuts a term's words); a term part occurs at
 * the position of its first word and covers one word or more.
 */
import type { TermPart } from './topic.ts';

/** A text cut into words: `starts[i]` is where word i begins in `lower`. */
export type WordText = {
  readonly lower: string;
  readonly words: readonly string[];
  readonly starts: readonly number[];
  /** Positions of each word (made on first use). */
  index?: Map<string, number[]>;
};

export type Occurrence = { readonly at: number; readonly length: number };

const WORD = /[\p{L}\p{N}]+/gu;

export function wordText(text: string): WordText {
  const lower = text.toLowerCase();
  const words: string[] = [];
  const starts: number[] = [];
  for (const m of lower.matchAll(WORD)) {
    words.push(m[0]);
    starts.push(m.index);
  }
  return { lower, words, starts };
}

/** Texts cut into words, read as one (a newline between each, so that no two words join): no text is cut again. */
export function joinWordTexts(parts: readonly WordText[]): WordText {
  const words: string[] = [];
  const starts: number[] = [];
  let offset = 0;
  for (const t of parts) {
    // (A loop, not push(...): a long page's words would overflow the call's arguments.)
    for (let i = 0; i < t.words.length; i++) {
      words.push(t.words[i]!);
      starts.push(t.starts[i]! + offset);
    }
    offset += t.lower.length + 1;
  }
  return { lower: parts.map((t) => t.lower).join('\n'), words, starts };
}

/** Every occurrence of a term part in the text, in order. */
export function occurrences(part: TermPart, t: WordText): Occurrence[] {
  if (part.kind === 'words') {
    const index = (t.index ??= positions(t.words));
    const first = index.get(part.words[0]!) ?? [];
    const n = part.words.length;
    if (n === 1) return first.map((at) => ({ at, length: 1 }));
    return first.filter((at) => part.words.every((w, k) => t.words[at + k] === w)).map((at) => ({ at, length: n }));
  }
  const out: Occurrence[] = [];
  // A fresh copy: the stored RegExp is global, and shared by every page.
  const re = new RegExp(part.re);
  for (const m of t.lower.matchAll(re)) {
    const at = firstWordFrom(t.starts, m.index);
    const end = firstWordFrom(t.starts, m.index + m[0].length);
    out.push({ at, length: Math.max(1, end - at) });
  }
  return out;
}

function positions(words: readonly string[]): Map<string, number[]> {
  const index = new Map<string, number[]>();
  words.forEach((w, i) => {
    const list = index.get(w);
    if (list) list.push(i);
    else index.set(w, [i]);
  });
  return index;
}

/** The number of words that begin before `offset`: the position of the first word at or after it. */
function firstWordFrom(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (starts[mid]! < offset) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
