/**
 * Token sequences: a page's terms in order, each as a 32-bit hash, for exact phrases. The index
 * keeps no positions in RAM (they would cost more than the rest of a document's entry); the
 * sequence is computed with the analysis (in the parse worker), stored beside the document
 * (store/documents.ts) and read for the few hundred candidates of a phrase query — a few
 * kilobytes each instead of the page's text, and no tokenizing. A match found by hashes is
 * confirmed on the text (search-index.ts), so a collision can never show a wrong page.
 *
 * The fields are those a phrase is looked for in (title, headings, description, body), each
 * preceded by 0, so that a phrase never spans two fields.
 */
import { FIELDS } from './fields.ts';

/** Per field (FIELDS order): is a phrase looked for in it? */
export const PHRASE_FIELD: readonly boolean[] = FIELDS.map((f) => f === 'title' || f === 'headings' || f === 'description' || f === 'body');

/** FNV-1a of a term's UTF-16 code units; never 0 (the field separator). */
export function termHash(term: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < term.length; i++) {
    h ^= term.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0 || 1;
}

/** True when the sequence holds the phrase's hashes adjacent and in order. */
export function sequenceHas(sequence: Uint32Array, phrase: readonly number[]): boolean {
  const n = phrase.length;
  const first = phrase[0]!;
  outer: for (let i = sequence.indexOf(first); i >= 0 && i + n <= sequence.length; i = sequence.indexOf(first, i + 1)) {
    for (let k = 1; k < n; k++) if (sequence[i + k] !== phrase[k]) continue outer;
    return true;
  }
  return false;
}
