/**
 * Identifiers written whole. The tokenizer splits `search_path` at "_", so that its words are
 * found on their own ("search path"); but then nothing tells a page about search_path from one
 * about search, and a word typed halfway ("sear", "pg_st") cannot complete to the identifier.
 * So a run of words joined by single underscores also makes a term of its own: its words, folded,
 * joined by "_" — not stemmed, an identifier is written exactly. Like the diacritic terms
 * (language/diacritics.ts) it is counted in its field beside its words, in no field's length and
 * no token sequence (analyze.ts). No word holds "_": such a term is never a word's, and a query's
 * words never reach it — only a completion does (query/completions.ts).
 */

/** What joins an identifier's words, in the text and in its term. */
export const JOINER = '_';
const UNDERSCORE = 0x5f;
/** Longer runs (a line of words_joined_by_underscores) are no one's identifier. */
export const MAX_IDENTIFIER_LENGTH = 64;
const LETTER = /^\p{L}/u;

/** True for a term made of an identifier (not a word). */
export function isIdentifier(term: string): boolean {
  return term.includes(JOINER);
}

/** True when a word starting at `start` is joined to the one before it, which ended at `end` (-1: none). */
export function joinedTo(text: string, end: number, start: number): boolean {
  return end >= 0 && start === end + 1 && text.charCodeAt(end) === UNDERSCORE;
}

/** The identifier term of a run of folded words (two or more), or undefined: too long, or not starting with a letter ("2024_01"). */
export function identifierTerm(words: readonly string[]): string | undefined {
  if (words.length < 2) return undefined;
  const term = words.join(JOINER);
  return term.length <= MAX_IDENTIFIER_LENGTH && LETTER.test(term) ? term : undefined;
}

/**
 * Collects a text's identifiers while its words are scanned (tokenize.ts `scanTokens`): `word` is
 * called with each word and its offsets, in order, `end` after the last. Only the current run of
 * joined words is held.
 */
export class IdentifierRuns {
  /** The current run's words. */
  private run: string[] = [];
  /** Where the last word ended (-1: none yet). */
  private last = -1;

  constructor(
    private readonly text: string,
    private readonly into: string[],
  ) {}

  word(start: number, end: number, word: string): void {
    if (!joinedTo(this.text, this.last, start)) {
      this.close();
      this.run.length = 0;
    }
    this.run.push(word);
    this.last = end;
  }

  end(): void {
    this.close();
  }

  private close(): void {
    if (this.run.length < 2) return;
    const term = identifierTerm(this.run);
    if (term !== undefined) this.into.push(term);
  }
}
