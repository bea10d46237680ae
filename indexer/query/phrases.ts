/**
 * Exact phrases. The index keeps no positions: a phrase is checked on the best candidates' token
 * sequences (their terms in order as 32-bit hashes, kept in the store beside the document), else
 * on their text, best first, until a page of results is full. A match by hashes is confirmed on
 * the text of the pages shown, so a hash collision can never show a wrong page.
 */
import type { StoredDocument } from '../../model/index.ts';
import { sequenceHas, termHash } from '../ingest/sequence.ts';
import { stem as defaultStem } from '../ingest/tokenize.ts';
import type { QueryDocuments, SequenceLookup } from './documents.ts';
import { hasPhrase, locate, phraseTest, type Occurrences } from './locate.ts';
import { byScore, type Ranked } from './rank.ts';

/**
 * A phrase query with many candidates checks them in the order of their estimates and scores
 * exactly only those that hold the phrase (scoring 600 candidates exactly was a third of a phrase
 * query's time): PHRASE_MARGIN × those shown are found, and the best of them by exact score shown
 * (bench/index compares the top ten with exhaustive scoring).
 */
const PHRASE_MARGIN = 2;
/** Token sequences read at once for phrase checks (a statement per batch, not per page). */
const SEQUENCE_BATCH = 32;

export type PhraseCheck = {
  readonly phrases: readonly (readonly string[])[];
  /** Candidates, best first (by exact score, or by the first pass's estimate when `rescore` is given). */
  readonly ordered: readonly Ranked[];
  /** How many results are wanted. */
  readonly shown: number;
  /** The query's exact scores, when `ordered` is by estimate: those found are scored exactly. */
  readonly rescore: ((ids: readonly number[]) => Float64Array) | undefined;
  /**
   * A page's phrases as its language has them, and its stemmer (query/languages.ts), when pages
   * of several languages are indexed; the same object for pages of one language. Else `phrases`.
   */
  readonly phrasesOf?: (docId: number) => PhraseSet;
};

/** Phrases as one stemmer makes them, and that stemmer (which reads a page's text). */
export type PhraseSet = { readonly phrases: readonly (readonly string[])[]; readonly stem: (word: string) => string };

export type PhrasesFound = { readonly ranked: Ranked[]; readonly checked: number; readonly found: number };

/**
 * The best of the candidates that hold every phrase, until `shown` are found, how many were
 * checked and how many found (so the caller knows whether the total is a lower bound: with
 * `rescore`, more than `shown` are found before the best are kept). Hashes that match are
 * confirmed on the text of the pages kept; if one was wrong (a collision: never seen but
 * possible), all are checked again, every match confirmed.
 */
export async function withPhrases(check: PhraseCheck, docs: QueryDocuments, sequencesOf: SequenceLookup): Promise<PhrasesFound> {
  return (await checkPhrases(check, docs, sequencesOf, true)) ?? (await checkPhrases(check, docs, sequencesOf, false))!;
}

/**
 * One pass of the checks. A page's token sequence rules it out alone; a page without one is
 * checked on its text. In estimate order, PHRASE_MARGIN × `shown` are found, then scored exactly
 * and the best kept. When `trustHashes` and a confirmation on the text fails, the answer is
 * undefined (check again with it off, which confirms each match as it is found).
 */
async function checkPhrases(
  { phrases, ordered, shown, rescore, phrasesOf }: PhraseCheck,
  docs: QueryDocuments,
  sequencesOf: SequenceLookup,
  trustHashes: boolean,
): Promise<PhrasesFound | undefined> {
  // Per set of phrases (one per language): their hashes and their test on a page's text.
  const checks = new Map<PhraseSet, { hashes: number[][]; holds: (d: StoredDocument) => boolean }>();
  const base: PhraseSet = { phrases, stem: defaultStem };
  const checkOf = (id: number) => {
    const set = phrasesOf?.(id) ?? base;
    let c = checks.get(set);
    if (!c) checks.set(set, (c = { hashes: set.phrases.map((p) => p.map(termHash)), holds: phraseChecker(set.phrases, set.stem) }));
    return c;
  };
  const found: Ranked[] = [];
  const byHashes = new Set<number>();
  const enough = rescore ? PHRASE_MARGIN * shown : shown;
  let checked = 0;
  let sequences: ReadonlyMap<number, Uint32Array> = new Map();
  for (const r of ordered) {
    if (found.length >= enough) break;
    if (checked % SEQUENCE_BATCH === 0) {
      sequences = await sequencesOf(ordered.slice(checked, checked + SEQUENCE_BATCH).map((x) => x.id));
    }
    checked++;
    const sequence = sequences.get(r.id);
    const check = checkOf(r.id);
    if (sequence && !check.hashes.every((p) => sequenceHas(sequence, p))) continue;
    if (sequence && trustHashes) byHashes.add(r.id);
    else {
      const d = await docs.get(r.id);
      if (!d || !check.holds(d)) continue;
    }
    found.push(r);
  }
  if (rescore) {
    const exact = rescore(found.map((r) => r.id));
    found.forEach((r, i) => {
      r.score = exact[i]!;
    });
    found.sort(byScore);
  }
  const ranked = found.slice(0, shown);
  await docs.load(ranked.filter((r) => byHashes.has(r.id)).map((r) => r.id));
  for (const r of ranked) {
    if (!byHashes.has(r.id)) continue;
    const d = await docs.get(r.id);
    if (!d || !checkOf(r.id).holds(d)) return undefined;
  }
  return { ranked, checked, found: found.length };
}

/**
 * A test of a document for a query's exact phrases, each in some field (the short fields first:
 * the body is the cost): the quick test of ASCII text (locate.ts `phraseTest`), else the terms'
 * occurrences, words stemmed by `stem`.
 */
function phraseChecker(phrases: readonly (readonly string[])[], stem: (word: string) => string): (d: StoredDocument) => boolean {
  const quick = phrases.map((p) => phraseTest(p, stem));
  const terms = [...new Set(phrases.flat())];
  return (d) => {
    const fields: (() => string)[] = [() => d.title, () => d.headings.join('\n'), () => d.description, () => d.text];
    const texts: (string | undefined)[] = [];
    const found: (Occurrences | undefined)[] = [];
    return phrases.every((p, k) =>
      fields.some((field, i) => {
        const text = (texts[i] ??= field());
        return quick[k]!(text) ?? hasPhrase((found[i] ??= locate(text, terms, false, stem)), p);
      }),
    );
  };
}
