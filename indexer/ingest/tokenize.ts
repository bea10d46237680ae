/**
 * One tokenizer for documents and queries, so that what is indexed is what is asked: a token is a
 * Unicode letter or digit followed by letters, digits and combining marks
 * (`[\p{L}\p{N}][\p{L}\p{N}\p{M}]*`), folded (language/fold.ts: case, compatibility forms, the
 * diacritics of Latin, Greek and Cyrillic letters), then stemmed by the stemmer of the page's
 * language (language/stemmers.ts; `index.stemming`). Chinese, Japanese and Thai are split into
 * words by a dictionary segmenter (language/segment.ts). Tokens keep their offsets in the
 * original text for snippets.
 *
 * Tokenizing is a third of a parse worker's time per page, so the scan reads char codes: runs of
 * ASCII letters and digits (most of any page) are sliced directly, and only a word that holds other
 * characters goes through the Unicode regular expression. tokenize.test.ts checks that the result
 * is exactly the regular expression's, on generated text and on every character of the BMP.
 */
import { IdentifierRuns, identifierTerm, JOINER, joinedTo, MAX_IDENTIFIER_LENGTH } from './identifiers.ts';
import { fold, foldedDiacritics } from './language/fold.ts';
import { UNSPACED, unspacedWords } from './language/segment.ts';
import { stemmerFor, type Stemmer } from './language/stemmers.ts';

export { fold } from './language/fold.ts';
export { analysisLanguages, analysisTag, currentStemming, setStemming, stemmerFor, type Stemmer, type Stemming } from './language/stemmers.ts';

export const MAX_TOKEN_LENGTH = 64;

/** A word at a given position (sticky): the non-ASCII path. */
const WORD_AT = /[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/uy;

/** ASCII class of each code below 128: 0 other, 1 lowercase letter or digit, 2 uppercase letter. */
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) ASCII_CLASS[c] = (c >= 48 && c <= 57) || (c >= 97 && c <= 122) ? 1 : c >= 65 && c <= 90 ? 2 : 0;

/**
 * What scanTokens calls for each token: its folded form, its offsets in the text, and whether
 * folding took a diacritic off it (language/diacritics.ts).
 */
export type TokenSink = (term: string, start: number, end: number, diacritics: boolean) => void;

/**
 * Calls `emit` for each token of `text`, in order. A word of ASCII letters and digits whose first
 * character (lowercased) is flagged in `skip` is emitted as '' — not sliced nor lowercased: a
 * reader looking for a few terms (locate.ts) only counts it.
 */
export function scanTokens(text: string, emit: TokenSink, skip?: Uint8Array): void {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      const k = ASCII_CLASS[c]!;
      if (k === 0) {
        i++;
        continue;
      }
      let j = i + 1;
      let upper = k === 2;
      let d = 0;
      while (j < n && (d = text.charCodeAt(j)) < 128) {
        const kd = ASCII_CLASS[d]!;
        if (kd === 0) break;
        if (kd === 2) upper = true;
        j++;
      }
      // Ended by a non-ASCII character: the word may go on (é, ², a combining mark).
      if (j < n && d >= 128) {
        i = unicodeWord(text, i, emit);
        continue;
      }
      if (j - i <= MAX_TOKEN_LENGTH) {
        if (skip !== undefined && skip[c | 0x20] === 1) emit('', i, j, false);
        else {
          const w = text.slice(i, j);
          emit(upper ? w.toLowerCase() : w, i, j, false);
        }
      }
      i = j;
    } else {
      i = unicodeWord(text, i, emit);
    }
  }
}

/** Token offsets written by scanOffsets: grown (new arrays) when full. */
export type TokenOffsets = { starts: Int32Array; ends: Int32Array };

/**
 * What scanTokens finds, for a reader looking for a few terms in a long text (query/locate.ts):
 * the offsets of every token written into `into` (from index 0; grown as needed), and
 * `candidate(term, n)` called only for the n-th token when its first character (lowercased) is
 * not flagged in `skip` — no call, slice or lowercasing for the others. Returns the count of
 * tokens. (A call per token was most of its time: scanTokens' sink is called from several places,
 * so V8 cannot inline it.)
 */
export function scanOffsets(text: string, skip: Uint8Array, into: TokenOffsets, candidate: (term: string, n: number) => void): number {
  const len = text.length;
  let n = 0;
  let i = 0;
  // (A word holding non-ASCII characters goes through unicodeWord and its sink, made on the first.)
  let sink: TokenSink | undefined;
  const viaUnicode = (at: number) => {
    sink ??= (term, start, end) => {
      if (n === into.starts.length) grow(into);
      into.starts[n] = start;
      into.ends[n] = end;
      candidate(term, n++);
    };
    return unicodeWord(text, at, sink);
  };
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c < 128) {
      const k = ASCII_CLASS[c]!;
      if (k === 0) {
        i++;
        continue;
      }
      let j = i + 1;
      let upper = k === 2;
      let d = 0;
      while (j < len && (d = text.charCodeAt(j)) < 128) {
        const kd = ASCII_CLASS[d]!;
        if (kd === 0) break;
        if (kd === 2) upper = true;
        j++;
      }
      if (j < len && d >= 128) {
        i = viaUnicode(i);
        continue;
      }
      if (j - i <= MAX_TOKEN_LENGTH) {
        if (n === into.starts.length) grow(into);
        into.starts[n] = i;
        into.ends[n] = j;
        if (skip[c | 0x20] !== 1) {
          const w = text.slice(i, j);
          candidate(upper ? w.toLowerCase() : w, n);
        }
        n++;
      }
      i = j;
    } else {
      i = viaUnicode(i);
    }
  }
  return n;
}

function grow(into: TokenOffsets): void {
  const starts = new Int32Array(2 * into.starts.length + 16);
  const ends = new Int32Array(starts.length);
  starts.set(into.starts);
  ends.set(into.ends);
  into.starts = starts;
  into.ends = ends;
}

/** Matches the word starting at `i`, if any, emits it, and returns where scanning goes on. */
function unicodeWord(text: string, i: number, emit: TokenSink): number {
  WORD_AT.lastIndex = i;
  const m = WORD_AT.exec(text);
  if (!m) {
    // Not a word character: skip it (a whole surrogate pair at once).
    const c = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    return c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff ? i + 2 : i + 1;
  }
  const end = i + m[0].length;
  if (UNSPACED.test(m[0])) {
    // Chinese, Japanese and Thai put no spaces between words: a dictionary segmenter finds them.
    for (const seg of unspacedWords(m[0])) {
      const term = fold(seg.segment);
      if (term && term.length <= MAX_TOKEN_LENGTH) emit(term, i + seg.index, i + seg.index + seg.segment.length, foldedDiacritics());
    }
    return end;
  }
  const term = fold(m[0]);
  if (term && term.length <= MAX_TOKEN_LENGTH) emit(term, i, end, foldedDiacritics());
  return end;
}

/** The words of a run of letters holding CJK or Thai characters (kept under its old name for its tests). */
export const cjkWords = unspacedWords;

/** The stem of a folded word by the default stemmer (English's, or none: `index.stemming`). */
export function stem(t: string): string {
  return stemmerFor(undefined).stem(t);
}

/**
 * Folded words of `text`, not stemmed, in order (`tokenize` is a stem of each). When `diacritics`
 * is given, the index of each word that lost a diacritic to folding is pushed onto it; when
 * `identifiers` is, each identifier of the text (identifiers.ts) is pushed onto it.
 */
export function words(text: string, diacritics?: number[], identifiers?: string[]): string[] {
  const out: string[] = [];
  const runs = identifiers ? new IdentifierRuns(text, identifiers) : undefined;
  scanTokens(text, (t, start, end, marked) => {
    runs?.word(start, end, t);
    if (marked && diacritics) diacritics.push(out.length);
    out.push(t);
  });
  runs?.end();
  return out;
}

/** Folded and stemmed tokens of `text`, in order (duplicates kept), by `stemmer` (the default one). */
export function tokenize(text: string, stemmer: Stemmer = stemmerFor(undefined)): string[] {
  const out: string[] = [];
  scanTokens(text, (t) => out.push(stemmer.stem(t)));
  return out;
}

export type PositionedToken = { readonly term: string; readonly start: number; readonly end: number };

/** Tokens with their offsets in `text`. */
export function tokenizeWithOffsets(text: string, stemmer: Stemmer = stemmerFor(undefined)): PositionedToken[] {
  const out: PositionedToken[] = [];
  scanTokens(text, (term, start, end) => out.push({ term: stemmer.stem(term), start, end }));
  return out;
}

/**
 * The identifier a query item ends with, as typed so far (identifiers.ts): its words joined by
 * "_", and a trailing "_" if one was typed ("pg_st", "pg_" — a word and an underscore already say
 * an identifier is meant). Undefined when the text does not end in one.
 */
export function typedIdentifier(text: string): string | undefined {
  const out: string[] = [];
  let from = 0;
  let last = -1;
  scanTokens(text, (t, start, end) => {
    if (!joinedTo(text, last, start)) from = out.length;
    last = end;
    out.push(t);
  });
  const trailing = last >= 0 && last === text.length - 1 && text.charCodeAt(last) === 0x5f;
  if (last < 0 || (last !== text.length && !trailing)) return undefined;
  const run = out.slice(from);
  if (!trailing) return identifierTerm(run);
  const term = `${run.join(JOINER)}${JOINER}`;
  return term.length <= MAX_IDENTIFIER_LENGTH && /^\p{L}/u.test(term) ? term : undefined;
}
