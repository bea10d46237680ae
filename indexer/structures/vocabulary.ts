/**
 * The word structures beside the term dictionary, kept in step with it as documents arrive: the
 * prefix index (every term: as-you-type completions) and the typo index (the terms worth
 * correcting a word to). Neither is flushed: both are rebuilt from the dictionary on load.
 *
 * Which terms the typo index holds (its memory is most of the cost: ~100 bytes a term): terms of
 * 3 to 32 characters with a letter, not in a script written without spaces (CJK: an edit there
 * is another word), not identifiers (ingest/identifiers.ts: a query's words never hold "_"), and
 * — once the vocabulary is large — only those in at least two documents.
 * Most of a large vocabulary is in one document only (numbers, identifiers, misspellings,
 * another language's words), and a word in one page is seldom the one a mistyped query meant.
 * Below SMALL_VOCABULARY terms every such term is held (a small site's words matter, and its
 * vocabulary costs little); a term of one document enters when a second one holds it.
 */
import { isIdentifier } from '../ingest/identifiers.ts';
import type { TermDictionary } from './dictionary.ts';
import { type Completer, PrefixIndex } from './prefix-index.ts';
import { TypoIndex, type TypoLookup } from './typo-index.ts';

export const SMALL_VOCABULARY = 100_000;
const MIN_LENGTH = 3;
const MAX_LENGTH = 32;
const LETTER = /\p{L}/u;
const NO_SPACES = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u;

/** A term's state for the typo index. */
const NEW = 0;
const HELD = 1;
const NEVER = 2;
const WAITING = 3;

/**
 * What a query reads of the vocabulary (query/forgive.ts, suggest.ts, autocomplete.ts): a
 * Vocabulary, or on a shard views of it that answer from the corpus's (indexer/shards).
 */
export type WordIndexes = { readonly prefixes: Completer; readonly typos: TypoLookup };

export class Vocabulary implements WordIndexes {
  readonly prefixes: PrefixIndex;
  readonly typos: TypoIndex;
  /** Terms of the dictionary (ids 0 … known − 1) the prefix index has. */
  private known = 0;
  private state = new Uint8Array(1024);

  /** `small`: below this many terms, every term of the right shape is in the typo index (SMALL_VOCABULARY). */
  constructor(
    private readonly dictionary: TermDictionary,
    private readonly small = SMALL_VOCABULARY,
  ) {
    this.prefixes = new PrefixIndex((id) => dictionary.term(id));
    this.typos = new TypoIndex(dictionary);
  }

  /** Call after a document's vector is stored: its new terms, and those now in enough documents. */
  added(termIds: ArrayLike<number>): void {
    this.sync();
    for (let i = 0; i < termIds.length; i++) {
      const t = termIds[i]!;
      const s = this.state[t];
      if (s === NEW || s === WAITING) this.consider(t);
    }
  }

  /** Takes in the terms the dictionary gained since the last call (cheap when there are none). */
  sync(): void {
    const n = this.dictionary.termCount;
    if (n === this.known) return;
    if (n > this.state.length) {
      const bigger = new Uint8Array(Math.max(n, this.state.length * 2));
      bigger.set(this.state);
      this.state = bigger;
    }
    for (let id = this.known; id < n; id++) this.prefixes.add(id);
    this.known = n;
  }

  /** After a flushed index is loaded: every term in, those of the typo index as their frequencies say. */
  rebuild(): void {
    this.sync();
    for (let id = 0; id < this.known; id++) if (this.state[id] === NEW) this.consider(id);
  }

  private consider(id: number): void {
    const term = this.dictionary.term(id);
    if (this.state[id] === NEW && (term.length < MIN_LENGTH || term.length > MAX_LENGTH || !LETTER.test(term) || NO_SPACES.test(term) || isIdentifier(term))) {
      this.state[id] = NEVER;
      return;
    }
    if (this.dictionary.termCount <= this.small || this.dictionary.docFrequencyOf(id) >= 2) {
      this.typos.add(id, term);
      this.state[id] = HELD;
    } else this.state[id] = WAITING;
  }
}
