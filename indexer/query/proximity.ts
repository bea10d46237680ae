/**
 * Phrase evidence for ranking: BM25 treats a page as a bag of words, so "create user" matches a
 * page that says "create a table … user" as well as one that says "CREATE USER". The best
 * candidates are re-scored by how many of the query's adjacent word pairs also stand side by side,
 * in order, in the page's title, headings and (the start of its) body.
 */
import type { PageContent } from '../../model/index.ts';
import { stem as defaultStem } from '../ingest/tokenize.ts';
import { locate, type Occurrences } from './locate.ts';

/** How much each field's phrase matches count. */
const FIELD_PHRASE_WEIGHT = { title: 1, headings: 0.5, body: 0.3 } as const;
/** The body is read this far (a phrase on a page is usually near its start; this bounds the cost). */
export const BODY_CHARS = 5000;

/**
 * The headings are read this far: a page may have a thousand (rustdoc's items, each a signature),
 * and phrase evidence reads the best RERANK pages' at every query — as it reads a body's start.
 */
export const HEADINGS_CHARS = BODY_CHARS / 2;

/** What phraseEvidence reads of a page's headings: as many as fit in HEADINGS_CHARS. */
function headingsStart(headings: readonly string[]): string {
  let n = 0;
  let k = 0;
  while (k < headings.length && n + headings[k]!.length <= HEADINGS_CHARS) n += headings[k++]!.length + 1;
  return headings.slice(0, Math.max(1, k)).join('\n');
}

/** What phraseEvidence reads of a body: its start's occurrences of the terms (a short page's snippet can use them too). */
export function bodyStart(text: string, terms: readonly string[], stem: (word: string) => string = defaultStem): Occurrences {
  return locate(text.length > BODY_CHARS ? text.slice(0, BODY_CHARS) : text, terms, true, stem);
}

/**
 * A query word as phrase evidence reads it: its term, or the terms that may stand for it, each
 * with how much a pair through it counts (a last word's completions: forgive.ts).
 */
export type SlotTerm = string | readonly { readonly term: string; readonly factor: number }[];

/** The terms of `slots`, each once. */
export function slotTermList(slots: readonly SlotTerm[]): string[] {
  return [...new Set(slots.flatMap((s) => (typeof s === 'string' ? [s] : s.map((a) => a.term))))];
}

/**
 * 0 (no adjacent pair of query words is adjacent in the page) up to 1.8 (all of them, in every
 * field). `body`: the body's bodyStart, if already located; `stem`: the page's language's stemmer.
 * A word with alternatives pairs through any of them, counting the alternative's factor: "pg st"
 * (typing "pg_st") is found in "pg stat", for less than the word as typed would be.
 */
export function phraseEvidence(doc: PageContent, terms: readonly SlotTerm[], body?: Occurrences, stem: (word: string) => string = defaultStem): number {
  if (terms.length < 2) return 0;
  const all = slotTermList(terms);
  const alternatives = (s: SlotTerm) => (typeof s === 'string' ? [{ term: s, factor: 1 }] : s);
  // Each pair of neighbouring words once: its pairs of terms ("a b"), with what each counts.
  const groups = new Map<string, Map<string, number>>();
  for (let i = 0; i + 1 < terms.length; i++) {
    const pairs = new Map<string, number>();
    for (const a of alternatives(terms[i]!))
      for (const b of alternatives(terms[i + 1]!)) pairs.set(`${a.term} ${b.term}`, Math.max(pairs.get(`${a.term} ${b.term}`) ?? 0, a.factor * b.factor));
    groups.set([...pairs.keys()].join('|'), pairs);
  }
  const fraction = (o: Occurrences) => {
    const found = new Set<string>();
    for (let k = 0; k + 1 < o.at.length; k++) if (o.at[k + 1] === o.at[k]! + 1) found.add(`${o.terms[k]} ${o.terms[k + 1]}`);
    let sum = 0;
    for (const pairs of groups.values()) sum += Math.max(0, ...[...pairs].map(([p, f]) => (found.has(p) ? f : 0)));
    return sum / groups.size;
  };
  return (
    FIELD_PHRASE_WEIGHT.title * fraction(locate(doc.title, all, false, stem)) +
    FIELD_PHRASE_WEIGHT.headings * fraction(locate(headingsStart(doc.headings), all, false, stem)) +
    FIELD_PHRASE_WEIGHT.body * fraction(body ?? bodyStart(doc.text, all, stem))
  );
}
