/**
 * Forgiving search: what a query's words may stand for besides themselves.
 *
 * - As you type: the last word, typed bare, also matches the terms it is the start of (from two
 *   characters, or one joined to the word before: "max_c"; its MAX_COMPLETIONS most frequent
 *   completions), each counting PREFIX_FACTOR — and, when the query has other words, as much as
 *   it is found with them (`withShares`): the other words tell which completion was meant.
 * - Typos: a word typed bare that the index does not know, or knows from at most RARE_DF pages
 *   while a word one or two edits away is in FREQUENT_RATIO times as many, also matches that word
 *   and up to two others nearly as likely (corrections.ts), counting TYPO_FACTOR by the edits:
 *   the query's other words tell which was meant. The answer names the likeliest.
 *
 * An alternative never counts as much as the word itself (weights.ts) — when the index knows the
 * word; when it does not, nothing can rank above the alternatives and they count fully. A rare
 * word corrected weighs no more than its correction (`blend`): the pages holding it come first,
 * not far above all others. Phrases, -words, +words and "quoted" words stay exact, and `exact`
 * turns all of it off. The last word, when some word begins with it, is not corrected too: it is
 * likelier being typed than mistyped — unless a word one edit away is far more frequent than any
 * it begins ("typs": type). A short last word far rarer than its completions ("expr") is taken
 * for one being typed (TYPING_RATIO).
 */
import type { CorpusStatistics } from '../structures/corpus-statistics.ts';
import type { IndexedDocuments } from '../structures/index-view.ts';
import type { WordIndexes } from '../structures/vocabulary.ts';
import { isIdentifier, JOINER } from '../ingest/identifiers.ts';
import { stem } from '../ingest/tokenize.ts';
import { completions, MAX_COMPLETIONS } from './completions.ts';
import { correctionsOf, FREQUENT_RATIO } from './corrections.ts';
import { otherStems } from './languages.ts';
import type { ParsedQuery } from './parse.ts';
import type { SlotTerm } from './proximity.ts';
import type { Alternative, Slot } from './weights.ts';

export const PREFIX_FACTOR = 0.9;
/**
 * A page holding only completions of a last word typed whole — one the index knows, and not far
 * rarer than its completions — scores this much: a completion lets in pages that lack the word
 * ("postgres" lets in those that say only "postgresql"), which must come after those that have it.
 */
export const COMPLETION_ONLY = 0.5;
/**
 * A last word the index knows, with a completion in TYPING_RATIO times as many pages (as many or
 * more: the longer word is then the likelier), is taken for a word being typed ("expr" among
 * "expression", "bool" among "boolean"): it weighs no more than its completions, and pages
 * holding only a completion are not marked down (COMPLETION_ONLY).
 */
export const TYPING_RATIO = 1;
/** ... when it is this short (a longer word is likelier typed whole: "postgres" among "postgresql"). */
export const TYPING_LENGTH = 5;
/**
 * A last word typed whole in this many pages is not completed: its pages fill the first pages
 * many times over, and a completion would count on them only where it outweighs the word (less
 * than it, capped at its IDF) and half on a page without it (COMPLETION_ONLY) — while reading a
 * frequent word's completions costs more than the rest of the query.
 */
export const WHOLE_ENOUGH = 2000;
/** How much a completion's frequency counts when no other word tells which was meant (byFrequency). */
export const FREQUENCY_WEIGHT = 0.25;
/** The entries of postings a last word's completions may add to a query, at most (withinBudget). */
export const COMPLETION_POSTINGS = 50_000;
/** A completion's pages checked for the query's other words, at most (withShares)... */
export const SHARE_SAMPLE = 256;
/** ... evenly spread over its first this many (reading all of a frequent completion's pages costs more than the rest of the query)... */
export const SHARE_READ = 1024;
/** ... and this many over all of a word's completions: a word of two or three letters has dozens, each checked on fewer. */
export const SHARE_CHECKS = 1024;
/** By edit distance (1, 2). */
export const TYPO_FACTOR: readonly number[] = [1, 0.8, 0.6];

/** A word corrected: as typed, the term it was taken for, and all it was taken for (the likeliest first: `term`). */
export type Correction = { readonly word: string; readonly term: string; readonly terms: readonly string[] };

export type Forgiven = {
  /** The query with each group widened by its words' alternatives (what matches). */
  readonly query: ParsedQuery;
  /** One per query term, with its alternatives (what scores). */
  readonly slots: readonly Slot[];
  /**
   * Per slot, what stands for it in phrase evidence: itself if known, else its best alternative —
   * and for a last word with completions, it and them, each counting its factor.
   */
  readonly terms: readonly SlotTerm[];
  /** Every term a snippet marks. */
  readonly marked: readonly string[];
  readonly corrected: readonly Correction[];
  /**
   * What forgiving costs the query, the measure of its bounds: the postings of the last word's
   * completions, which the first pass reads (withinBudget), and the pages checked to weigh them
   * by the other words (withShares).
   */
  readonly cost: { readonly completionPostings: number; readonly shareChecks: number };
};

/** The documents holding a term (structures/postings.ts `docsWith`). */
export type DocsWith = (term: string, limit: number) => readonly number[];

/**
 * How many pages hold a completion `term` with every other word of the query (any term of each
 * of `others`): `withShares` counts them in the index; a shard of a cluster is given the whole
 * corpus's counts by its coordinator (indexer/shards).
 */
export type CountTogether = (term: string, others: readonly (readonly string[])[]) => number;

/**
 * What forgiving reads: the corpus's statistics and vocabulary (a query's Lens: this index's, or
 * on a shard the corpus's) and this index's documents and postings (the pages checked for how
 * often a completion is found with the other words, unless `countTogether` says).
 */
export type ForgiveReads = {
  readonly stats: CorpusStatistics;
  readonly vocabulary: WordIndexes;
  readonly documents: IndexedDocuments;
  readonly docsWith?: DocsWith;
  readonly countTogether?: CountTogether;
};

export function forgive(q: ParsedQuery, reads: ForgiveReads, exact: boolean): Forgiven {
  const { stats, vocabulary, documents, docsWith, countTogether } = reads;
  // A word's stems in the index's other languages are the word itself (query/languages.ts).
  const own = (term: string): Alternative[] => [
    { term, factor: 1, own: true },
    ...otherStems(q.languages, term).map((t) => ({ term: t, factor: 1, own: true })),
  ];
  // An alternative counts below the word itself, when the index knows the word (else nothing
  // ranks above it: it counts fully, as if typed right).
  const factor = (term: string, f: number) => (stats.docFrequency(term) > 0 ? f : 1);
  const extra = new Map<string, Alternative[]>();
  /**
   * Words the index knows that weigh no more than their alternatives (weights.ts `blend`): rare
   * words corrected, and a last word far rarer than its completions ("func" among "function").
   */
  const rareWords = new Set<string>();
  /** A last word typed whole (known, not far rarer than its completions): pages holding only completions score × COMPLETION_ONLY. */
  let whole: string | undefined;
  const corrected: Correction[] = [];
  let completionPostings = 0;
  let shareChecks = 0;
  const alternativesOf = (t: string) => extra.get(t) ?? [];
  /** The last word when it ends an identifier being typed, which stands for its completions only. */
  let typedAway: string | undefined;
  if (!exact) {
    // The last word is being typed rather than mistyped when some word begins with it — unless a
    // word one edit away is in FREQUENT_RATIO times as many pages as any it begins ("typs": type).
    let typing: string | undefined;
    let typingDf = 0;
    if (q.last) {
      const { begun, past, identifier } = completions(q.last, stats, vocabulary.prefixes);
      // (An identifier typed so far is the word typed: ingest/identifiers.ts.)
      const typed = identifier ?? q.last.term;
      const f = factor(typed, PREFIX_FACTOR);
      const df = stats.docFrequency(typed);
      const found = withinBudget([...begun, ...past].slice(0, MAX_COMPLETIONS), stats);
      // (Taken for a word being typed: a completion is about as frequent as the word, or more.)
      const beingTyped =
        found.length > 0 &&
        df > 0 &&
        Math.max(...found.map((id) => stats.docFrequencyOf(id))) >= (q.last.word.length <= TYPING_LENGTH ? TYPING_RATIO : FREQUENT_RATIO) * df;
      // A word typed whole in WHOLE_ENOUGH pages or more is not completed.
      const ids = df >= WHOLE_ENOUGH && !beingTyped ? [] : found;
      completionPostings = ids.reduce((n, id) => n + stats.docFrequencyOf(id), 0);
      const completed = byFrequency(
        ids.map((id) => ({ term: stats.term(id), factor: f })),
        stats,
      );
      if (identifier !== undefined && stats.docFrequency(identifier) > 0) {
        // An identifier the index knows counts beside its last word as much, no more: a page
        // about max_connections is also about "max" and "connections".
        extra.set(q.last.term, [{ term: identifier, factor: 1 }, ...completed]);
      } else if (identifier !== undefined) {
        // One being typed ("pg_lo") is no word of its own: its last word stands for its
        // completions only (pg_locks, not a page's "lo"); the words before still count.
        extra.set(q.last.term, completed);
        typedAway = q.last.term;
      } else if (ids.length) extra.set(q.last.term, completed);
      if (begun.length) typing = q.last.term;
      typingDf = Math.max(0, ...begun.map((id) => stats.docFrequencyOf(id)));
      if (ids.length && df > 0) {
        if (beingTyped) rareWords.add(q.last.term);
        else whole = q.last.term;
      }
    }
    for (const w of q.loose) {
      // (Nor is a word corrected that the index knows in another language.)
      if (w.term === typedAway || otherStems(q.languages, w.term).some((t) => stats.docFrequency(t) > 0)) continue;
      const beingTyped = w.term === typing;
      // (No word can be FREQUENT_RATIO times as frequent as a completion in most pages: not looked for.)
      if (beingTyped && FREQUENT_RATIO * typingDf > stats.documentCount) continue;
      const cs = correctionsOf(w, stats, vocabulary.typos).filter((c) => !beingTyped || stats.docFrequencyOf(c.id) >= FREQUENT_RATIO * typingDf);
      if (!cs.length) continue;
      const term = stats.term(cs[0]!.id);
      // (Among themselves, the candidates rank by their edits: for a word the index does not know,
      // the nearest count fully and one an edit further counts less — "graphwrd7" is graphword7
      // before graphword1, however often the other is found.)
      const nearest = Math.min(...cs.map((c) => c.distance));
      const taken = cs.map((c) => ({
        term: stats.term(c.id),
        factor: stats.docFrequency(w.term) > 0 ? TYPO_FACTOR[c.distance]! : TYPO_FACTOR[c.distance]! / TYPO_FACTOR[nearest]!,
      }));
      // (A correction of the last word replaces the stems it goes past: "vacum" is not "vac"; a
      // word being typed keeps the words it begins.)
      extra.set(w.term, beingTyped ? [...alternativesOf(w.term), ...taken] : taken);
      corrected.push({ word: w.word, term, terms: cs.map((c) => stats.term(c.id)) });
      rareWords.add(w.term);
    }
  }
  if (q.last && docsWith && extra.has(q.last.term)) {
    // (The other words with their stems and alternatives: a page holds the word if it holds any.
    // Not the words of an identifier being typed: its completions all hold them.)
    const parts = identifierParts(q);
    const others = q.terms
      .filter((t) => t !== q.last!.term && !parts.has(t))
      .map((t) => [t, ...otherStems(q.languages, t), ...alternativesOf(t).map((a) => a.term)]);
    const shared = withShares(alternativesOf(q.last.term), others, { stats, documents, docsWith, countTogether });
    extra.set(q.last.term, shared.alternatives);
    shareChecks = shared.checked;
  }
  if (!extra.size && !q.languages)
    return {
      query: q,
      slots: q.terms.map((term) => ({ term, alternatives: [{ term, factor: 1, own: true }] })),
      terms: q.terms,
      marked: q.terms,
      corrected,
      cost: { completionPostings, shareChecks },
    };
  const alternatives = (t: string) => extra.get(t) ?? [];
  // (A word is its own alternative, and matches — but not the last word of an identifier being typed.)
  const itself = (t: string) => (t === typedAway ? [] : [t]);
  const groups = q.groups.map((g) => [...new Set(g.flatMap((t) => [...itself(t), ...alternatives(t).map((a) => a.term)]))]);
  const slots = q.terms.map((term) => ({
    term,
    alternatives: [...(term === typedAway ? [] : own(term)), ...alternatives(term)],
    ...(rareWords.has(term) ? { blend: true } : {}),
    ...(term === whole ? { alone: COMPLETION_ONLY } : {}),
  }));
  // (For an unknown word: its correction, else its most frequent completion.)
  const best = (t: string) => [...alternatives(t)].sort((a, b) => b.factor - a.factor || stats.docFrequency(b.term) - stats.docFrequency(a.term))[0]?.term;
  const terms = q.terms.map(
    (t): SlotTerm =>
      t === q.last?.term && alternatives(t).length
        ? [...itself(t).map((term) => ({ term, factor: 1 })), ...alternatives(t)]
        : stats.docFrequency(t) > 0
          ? t
          : (best(t) ?? t),
  );
  const matching = [...new Set(slots.flatMap((s) => s.alternatives.map((a) => a.term)))];
  // (An identifier is no token of a page's text: its words are what a snippet marks.)
  const marked = [...new Set(matching.flatMap((t) => (isIdentifier(t) ? [t, ...t.split(JOINER).map(stem)] : [t])))];
  return { query: { ...q, groups, terms: matching }, slots, terms, marked, corrected, cost: { completionPostings, shareChecks } };
}

/** The terms of the words of the identifier the query ends with, as typed so far (none if it does not). */
function identifierParts(q: ParsedQuery): Set<string> {
  const parts = new Set<string>();
  if (q.last?.identifier === undefined) return parts;
  const k = q.last.identifier.split(JOINER).filter(Boolean).length;
  for (const w of q.loose.slice(-k)) parts.add(w.term);
  return parts;
}

/**
 * The completions a query reads, the most frequent first, while their pages (entries of postings
 * and impact lists, read three times by the first pass: candidates.ts) add up to at most
 * COMPLETION_POSTINGS — always the first. Only a large index meets the bound, for a word of two or
 * three letters ("ma" among 100,000 pages: some 380,000 entries over 50 completions, 40–60 ms); there the
 * most frequent completions are also those that rank.
 */
export function withinBudget(ids: readonly number[], stats: CorpusStatistics, budget = COMPLETION_POSTINGS): number[] {
  let sum = 0;
  const out: number[] = [];
  for (const id of ids) {
    sum += stats.docFrequencyOf(id);
    if (out.length && sum > budget) break;
    out.push(id);
  }
  return out;
}

/**
 * The other query words decide which completion was meant: each completion's `share` is how many
 * of its pages hold every other word (any of its alternatives), next to the completion found with
 * them most — "pg_du" is "pg_dump" rather than "pg due", and a completion never found with the
 * other words ("postalcod" for "foreign data wrapper post") weighs nothing (weights.ts). Shares
 * are left out with no other word, or when no completion is found with them. Bounded: the
 * completions are read up to SHARE_READ pages each, of which SHARE_SAMPLE at most, evenly
 * spread, are checked for the other words (a binary search in the page's vector per word) —
 * SHARE_CHECKS in all, shared out rarest completion first (a rare one takes what it has, the
 * frequent ones split the rest); the count found is scaled to all its pages. `checked`: the pages
 * checked.
 */
export function withShares(
  alternatives: readonly Alternative[],
  others: readonly (readonly string[])[],
  reads: Omit<ForgiveReads, 'vocabulary' | 'docsWith'> & { readonly docsWith: DocsWith },
): { alternatives: Alternative[]; checked: number } {
  const { stats, documents, docsWith, countTogether } = reads;
  const sets = others
    .map((ts) => ts.map((t) => stats.termId(t)).filter((id): id is number => id !== undefined && stats.docFrequencyOf(id) > 0))
    .filter((ids) => ids.length);
  if (!sets.length) return { alternatives: [...alternatives], checked: 0 };
  // (Over shards, each completion's count comes from every shard: shards/record.ts bounds its own cost.)
  if (countTogether)
    return sharesOf(
      alternatives,
      alternatives.map((a) => countTogether(a.term, others)),
      0,
    );
  const dfs = alternatives.map((a) => stats.docFrequency(a.term));
  const counts = new Array<number>(alternatives.length).fill(0);
  let left = SHARE_CHECKS;
  let waiting = dfs.filter((df) => df > 0).length;
  for (const k of dfs.map((_, k) => k).sort((a, b) => dfs[a]! - dfs[b]!)) {
    if (!dfs[k]) continue;
    const sample = Math.max(1, Math.min(SHARE_SAMPLE, Math.floor(left / waiting--)));
    const found = sampleTogether(alternatives[k]!.term, sets, documents, dfs[k]!, docsWith, sample);
    left -= found.checked;
    counts[k] = found.count;
  }
  return sharesOf(alternatives, counts, SHARE_CHECKS - left);
}

function sharesOf(alternatives: readonly Alternative[], counts: readonly number[], checked: number): { alternatives: Alternative[]; checked: number } {
  const most = Math.max(0, ...counts);
  if (!most) return { alternatives: [...alternatives], checked };
  return { alternatives: alternatives.map((a, k) => ({ ...a, share: counts[k]! / most })), checked };
}

/**
 * How many of `term`'s pages hold a term of each of `sets` (ids), in this index's `documents`,
 * where `df` pages hold it: read up to SHARE_READ of its pages, check SHARE_SAMPLE of them evenly
 * spread, and scale to all.
 */
export function togetherIn(term: string, sets: readonly (readonly number[])[], documents: IndexedDocuments, df: number, docsWith: DocsWith): number {
  return sampleTogether(term, sets, documents, df, docsWith, SHARE_SAMPLE).count;
}

/** togetherIn with `sample` pages checked at most; `checked`: how many were. */
function sampleTogether(
  term: string,
  sets: readonly (readonly number[])[],
  documents: IndexedDocuments,
  df: number,
  docsWith: DocsWith,
  sample: number,
): { count: number; checked: number } {
  if (!df) return { count: 0, checked: 0 };
  // (Every k-th page of those read, not the first few: pages come in runs of one kind, as crawled.)
  const docs = docsWith(term, Math.min(df, SHARE_READ));
  const step = Math.max(1, Math.ceil(docs.length / sample));
  let n = 0;
  let checked = 0;
  for (let i = 0; i < docs.length; i += step, checked++) if (sets.every((ids) => ids.some((id) => documents.contains(docs[i]!, id)))) n++;
  return { count: checked ? (n * df) / checked : 0, checked };
}

/**
 * With no other word to tell which completion was meant, how often each is found breaks near
 * ties: its share is 1 for the most frequent, down to 1 − FREQUENCY_WEIGHT for one in few pages
 * ("pg_re" is pg_restore, in 17 pages, before pg_rewrite, in 7, when both are a page's title;
 * a page about crosstab, in 2 pages, still ranks first for "cros" when it is about nothing else).
 */
function byFrequency(alternatives: readonly Alternative[], stats: CorpusStatistics): Alternative[] {
  const most = Math.max(0, ...alternatives.map((a) => stats.docFrequency(a.term)));
  return most ? alternatives.map((a) => ({ ...a, share: 1 - FREQUENCY_WEIGHT * (1 - stats.docFrequency(a.term) / most) })) : [...alternatives];
}
