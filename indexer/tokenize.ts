/**
 * One tokenizer for documents and queries, so that what is indexed is what is asked: Unicode
 * letters and digits, case and diacritics folded ("Ü" → "u", "Straße" → "strasse").
 * Tokens keep their offsets in the original text for snippets.
 */

export const MAX_TOKEN_LENGTH = 64;

const WORD = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu;

const ASCII = /^[\x00-\x7f]*$/;

export function fold(word: string): string {
  // Most tokens are ASCII: lowercasing is all they need (Unicode normalization is the slow part).
  if (ASCII.test(word)) return word.toLowerCase();
  return word.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase().replace(/ß/g, 'ss');
}

/** Folded tokens of `text`, in order (duplicates kept). */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const t = fold(m[0]);
    if (t && t.length <= MAX_TOKEN_LENGTH) out.push(t);
  }
  return out;
}

export type PositionedToken = { readonly term: string; readonly start: number; readonly end: number };

/** Tokens with their offsets in `text`. */
export function tokenizeWithOffsets(text: string): PositionedToken[] {
  const out: PositionedToken[] = [];
  for (const m of text.matchAll(WORD)) {
    const term = fold(m[0]);
    if (term && term.length <= MAX_TOKEN_LENGTH) out.push({ term, start: m.index, end: m.index + m[0].length });
  }
  return out;
}
