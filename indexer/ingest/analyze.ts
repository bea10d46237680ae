/**
 * A document's analysis: its distinct terms, their frequency in each field, and each field's
 * length. Pure and cheap to send between threads (an array and two typed arrays), so parse
 * workers compute it and the main thread only interns terms and updates the postings.
 */
import type { PageContent } from '../../model/index.ts';
import { fieldTexts, FIELDS, SPELLED } from './fields.ts';
import { diacriticTerm } from './language/diacritics.ts';
import { PHRASE_FIELD, termHash } from './sequence.ts';
import { IdentifierRuns } from './identifiers.ts';
import { scanTokens, stemmerFor, words } from './tokenize.ts';

export type Analysis = {
  /** Distinct terms, in first-seen order. */
  readonly terms: readonly string[];
  /** terms.length × FIELDS.length frequencies, row-major by term. */
  readonly tf: Uint16Array;
  /** Token count per field. */
  readonly lengths: Uint32Array;
  /** The page's terms in order, hashed (sequence.ts): kept beside the document for exact phrases. */
  readonly sequence: Uint32Array;
};

const F = FIELDS.length;
const HEADINGS = FIELDS.indexOf('headings');

/**
 * The length the headings field is normalized by: an HTML page's is one heading's, on average —
 * each heading stands for its section, and a section is found by its heading as a page is by its
 * title, however many sections the page has (rustdoc's error index: 505 headings, one per error
 * code, each the answer to a query for its code; normalized by their sum, no code's heading counted).
 * A document's (PDF, Office: `document` is set) is its headings' sum: its outline says what the
 * whole is about, and a 400-page manual is not the answer to each of its chapters' titles
 * (bench/relevance's TeX Live set: LaTeX News' collected issues above the issue asked for).
 */
function headingsLength(doc: { readonly headings: readonly string[]; readonly document?: unknown }, tokens: number): number {
  return doc.document === undefined && doc.headings.length > 1 ? Math.ceil(tokens / doc.headings.length) : tokens;
}
/**
 * Distinct terms indexed per document. Prose has a few thousand; a 5 MB page about 100,000. Beyond
 * this (a page of random tokens), new terms are not indexed; the field lengths still count them.
 */
export const MAX_DISTINCT_TERMS = 1 << 20;

/**
 * `doc.lang`: the page's language tag (given or detected), whose stemmer makes its terms. A word
 * written with diacritics also counts toward its stem's diacritic term (language/diacritics.ts),
 * and words joined by "_" toward their identifier's term (identifiers.ts): neither is a token,
 * they are in no field's length and no sequence.
 *
 * The text is read token by token as it is scanned: nothing holds a field's tokens at once (a
 * PDF's text of a million words would be a million strings alive together, tens of MB of heap
 * that outlive the young generation), only each distinct word once.
 */
export function analyze(doc: PageContent & { readonly lang?: string; readonly document?: unknown }, maxTerms = MAX_DISTINCT_TERMS): Analysis {
  const { stem } = stemmerFor(doc.lang);
  // Rows by word as written (folded) and by term (stemmed): each distinct word is stemmed once.
  const byWord = new Map<string, number>();
  const byTerm = new Map<string, number>();
  const terms: string[] = [];
  const rows: number[] = [];
  const lengths = new Uint32Array(F);
  const hashes: number[] = [];
  /** The row of a term, added if new (-1 past maxTerms: not indexed). */
  const rowOf = (t: string): number => {
    let i = byTerm.get(t);
    if (i === undefined) {
      i = terms.length < maxTerms ? terms.length : -1;
      if (i >= 0) {
        byTerm.set(t, i);
        terms.push(t);
        hashes.push(termHash(t));
        for (let k = 0; k < F; k++) rows.push(0);
      }
    }
    return i;
  };
  const count = (i: number, f: number) => {
    const cell = i * F + f;
    if (rows[cell]! < 65535) rows[cell]!++;
  };
  // The phrase fields' tokens as term hashes, each field after a 0 (sequence.ts).
  const sequence = new Uint32Growable();
  fieldTexts(doc).forEach((text, f) => {
    const inSequence = PHRASE_FIELD[f]!;
    const spelled = SPELLED[f]!;
    if (inSequence) sequence.push(0);
    const identifiers: string[] = [];
    const runs = new IdentifierRuns(text, identifiers);
    let tokens = 0;
    scanTokens(text, (w, start, end, marked) => {
      tokens++;
      runs.word(start, end, w);
      let i = byWord.get(w);
      if (i === undefined) {
        i = rowOf(stem(w));
        byWord.set(w, i);
      }
      if (inSequence) sequence.push(i >= 0 ? hashes[i]! : termHash(stem(w)));
      if (i < 0) return;
      count(i, f);
      if (marked && spelled) {
        const d = rowOf(diacriticTerm(terms[i]!));
        if (d >= 0) count(d, f);
      }
    });
    runs.end();
    lengths[f] = f === HEADINGS ? headingsLength(doc, tokens) : tokens;
    // (A field's identifiers after its words, as they always came: the terms' first-seen order.)
    for (const id of identifiers) {
      const i = rowOf(id);
      if (i >= 0) count(i, f);
    }
  });
  return { terms, tf: Uint16Array.from(rows), lengths, sequence: sequence.done() };
}

/** A Uint32Array filled by push, doubling as it goes; `done` gives the filled part. */
class Uint32Growable {
  private data = new Uint32Array(1024);
  private n = 0;

  push(x: number): void {
    if (this.n === this.data.length) {
      const bigger = new Uint32Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.n++] = x;
  }

  /** The filled part, in a buffer of its own size (it is sent to the main thread and kept). */
  done(): Uint32Array {
    return this.data.slice(0, this.n);
  }
}

/** A value received from another thread that has the shape of an Analysis. */
export function isAnalysis(x: unknown): x is Analysis {
  const a = x as Analysis | undefined;
  return (
    !!a &&
    Array.isArray(a.terms) &&
    a.tf instanceof Uint16Array &&
    a.lengths instanceof Uint32Array &&
    a.sequence instanceof Uint32Array &&
    a.terms.length <= MAX_DISTINCT_TERMS &&
    a.tf.length === a.terms.length * F &&
    a.lengths.length === F
  );
}

/**
 * A field's terms made on the main thread (the anchor text): its tokens, stemmed by `stem`, then
 * its identifiers; `length` counts the tokens only, as analyze does.
 */
export function fieldTerms(text: string, stem: (word: string) => string): { terms: string[]; length: number } {
  const identifiers: string[] = [];
  const terms = words(text, undefined, identifiers).map(stem);
  const length = terms.length;
  terms.push(...identifiers);
  return { terms, length };
}

/**
 * The analysis with one field's tokens replaced by `tokens` (the anchor text, on the main thread),
 * the field `length` tokens long (fieldTerms: its identifiers are not tokens).
 */
export function withField(a: Analysis, field: number, tokens: readonly string[], length = tokens.length): Analysis {
  // Count the field's terms; those the page does not have already become new rows.
  const counts = new Map<string, number>();
  for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
  const index = new Map<string, number>();
  for (let i = 0; i < a.terms.length; i++) if (counts.has(a.terms[i]!)) index.set(a.terms[i]!, i);
  const added: string[] = [];
  for (const t of counts.keys()) {
    if (index.has(t) || a.terms.length + added.length >= MAX_DISTINCT_TERMS) continue;
    index.set(t, a.terms.length + added.length);
    added.push(t);
  }
  const n = a.terms.length + added.length;
  const tf = new Uint16Array(n * F);
  tf.set(a.tf);
  for (let i = 0; i < a.terms.length; i++) tf[i * F + field] = 0;
  for (const [t, c] of counts) {
    const i = index.get(t);
    if (i !== undefined) tf[i * F + field] = Math.min(65535, c);
  }
  const lengths = Uint32Array.from(a.lengths);
  lengths[field] = length;
  return { terms: added.length ? [...a.terms, ...added] : a.terms, tf, lengths, sequence: a.sequence };
}
