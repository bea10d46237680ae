/**
 * Forgiving search: what a query's words may stand for besides themselves.
 *
 * - As you type: the last word, typed bare, also matches the terms it is the start of (from two
 *   characters, or one joined to the word before: "max_c"; its MAX_COMPLETIONS most frequent
 *   completions), each counting PREFIX_FACTOR — and, when the query has other words, as much as
 *   it is found with them (shares.ts `withShares`): the other words tell which completion was meant.
 * - Typos: a word typed bare that the index does not know, or knows from at most RARE_DF pages
 *   while a word one or two edits away is in FREQUENT_RATIO times as many, also matches that word
 *   and up to two others nearly as likely (corrections.ts), counting TYPO_FACTOR by the edits:
 *   the query's other words tell which was meant. The answer names the likeliest.
 * - Compounds: two words typed apart that the pages write as one ("named tuple": namedtuple) also
 *   match that word, which stands for each of them fully (joinCompounds).
 * - Synonyms: the site owner's (synonyms.ts), found by the caller, count SYNONYM_FACTOR — even
 *   when `exact`: they are no guess, the owner asked for them. A word with a synonym is no typo.
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
import { type CountTogether, type DocsWith, withShares } from './shares.ts';
import type { LooseWord, ParsedQuery } from './parse.ts';
import type { SlotTerm } from './proximity.ts';
import { NO_SYNONYMS, SYNONYM_FACTOR, type AppliedSynonym, type SynonymsFound } from './synonyms.ts';
import { groupTogether } from './together.ts';
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
/** A compound of two words typed apart (joinCompounds): it says what the two say. */
export const COMPOUND_FACTOR = 1;
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
  /** The synonyms the query's words had (synonyms.ts). */
  readonly synonyms: readonly AppliedSynonym[];
  /**
   * What forgiving costs the query, the measure of its bounds: the postings of the last word's
   * completions, which the first pass reads (withinBudget), and the pages checked to weigh them
   * by the other words (withShares).
   */
  readonly cost: { readonly completionPostings: number; readonly shareChecks: number };
};

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

export function forgive(q: ParsedQuery, reads: ForgiveReads, exact: boolean, synonyms: SynonymsFound = NO_SYNONYMS): Forgiven {
  const forgiving = new Forgiving(q, reads, synonyms);
  if (!exact) {
    if (q.last) forgiving.completeLast(q.last);
    for (const w of q.loose) forgiving.correct(w);
  }
  if (q.last && reads.docsWith) forgiving.weighByOtherWords(q.last, reads.docsWith);
  if (!exact) forgiving.joinCompounds();
  return forgiving.forgiven();
}

/**
 * One query forgiven, step by step (`forgive` calls them in order): the last word completed, each
 * typo corrected, the last word's completions weighed by the other words; then what it comes to.
 */
class Forgiving {
  /** What each word may also stand for besides itself: its completions, its corrections (its synonyms: `synonyms`). */
  private readonly extra = new Map<string, Alternative[]>();
  private readonly synonyms = new Map<string, Alternative[]>();
  /**
   * Words the index knows that weigh no more than their alternatives (weights.ts `blend`): rare
   * words corrected, and a last word far rarer than its completions ("func" among "function").
   */
  private readonly rareWords = new Set<string>();
  /** A last word typed whole (known, not far rarer than its completions): pages holding only completions score × COMPLETION_ONLY. */
  private whole: string | undefined;
  /** The last word when it ends an identifier being typed, which stands for its completions only. */
  private typedAway: string | undefined;
  /**
   * The last word when some word begins with it (it is being typed rather than mistyped — unless
   * a word one edit away is in FREQUENT_RATIO times as many pages as any it begins: "typs" is
   * type), and the pages of its most frequent completion.
   */
  private typing: string | undefined;
  private typingDf = 0;
  private readonly corrected: Correction[] = [];
  private completionPostings = 0;
  private shareChecks = 0;

  constructor(
    private readonly q: ParsedQuery,
    private readonly reads: ForgiveReads,
    private readonly found: SynonymsFound,
  ) {
    for (const [t, terms] of found.bySlot)
      this.synonyms.set(
        t,
        terms.map((a) => ({ ...a, factor: this.factor(t, SYNONYM_FACTOR) })),
      );
  }

  /** As you type: the terms the last word begins, within the budget — none for a word typed whole in WHOLE_ENOUGH pages. */
  completeLast(last: LooseWord): void {
    const { stats, vocabulary } = this.reads;
    const { begun, past, identifier } = completions(last, stats, vocabulary.prefixes);
    // (An identifier typed so far is the word typed: ingest/identifiers.ts.)
    const typed = identifier ?? last.term;
    const f = this.factor(typed, PREFIX_FACTOR);
    const df = stats.docFrequency(typed);
    const found = withinBudget([...begun, ...past].slice(0, MAX_COMPLETIONS), stats);
    // (Taken for a word being typed: a completion is about as frequent as the word, or more.)
    const beingTyped =
      found.length > 0 &&
      df > 0 &&
      Math.max(...found.map((id) => stats.docFrequencyOf(id))) >= (last.word.length <= TYPING_LENGTH ? TYPING_RATIO : FREQUENT_RATIO) * df;
    const ids = df >= WHOLE_ENOUGH && !beingTyped ? [] : found;
    this.completionPostings = ids.reduce((n, id) => n + stats.docFrequencyOf(id), 0);
    const completed = byFrequency(
      ids.map((id) => ({ term: stats.term(id), factor: f })),
      stats,
    );
    if (identifier !== undefined && stats.docFrequency(identifier) > 0) {
      // An identifier the index knows counts beside its last word as much, no more: a page
      // about max_connections is also about "max" and "connections".
      this.extra.set(last.term, [{ term: identifier, factor: 1 }, ...completed]);
    } else if (identifier !== undefined) {
      // One being typed ("pg_lo") is no word of its own: its last word stands for its
      // completions only (pg_locks, not a page's "lo"); the words before still count.
      this.extra.set(last.term, completed);
      this.typedAway = last.term;
    } else if (ids.length) this.extra.set(last.term, completed);
    if (begun.length) this.typing = last.term;
    this.typingDf = Math.max(0, ...begun.map((id) => stats.docFrequencyOf(id)));
    if (ids.length && df > 0) {
      if (beingTyped) this.rareWords.add(last.term);
      else this.whole = last.term;
    }
  }

  /** A typo: a word typed bare taken for the likeliest words within an edit or two (corrections.ts), if any. */
  correct(w: LooseWord): void {
    const { stats, vocabulary } = this.reads;
    // (Nor is a word corrected that the index knows in another language.)
    if (w.term === this.typedAway || this.synonyms.has(w.term) || otherStems(this.q.languages, w.term).some((t) => stats.docFrequency(t) > 0)) return;
    const beingTyped = w.term === this.typing;
    // (No word can be FREQUENT_RATIO times as frequent as a completion in most pages: not looked for.)
    if (beingTyped && FREQUENT_RATIO * this.typingDf > stats.documentCount) return;
    const cs = correctionsOf(w, stats, vocabulary.typos).filter((c) => !beingTyped || stats.docFrequencyOf(c.id) >= FREQUENT_RATIO * this.typingDf);
    if (!cs.length) return;
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
    this.extra.set(w.term, beingTyped ? [...this.extraOf(w.term), ...taken] : taken);
    this.corrected.push({ word: w.word, term, terms: cs.map((c) => stats.term(c.id)) });
    this.rareWords.add(w.term);
  }

  /** The last word's alternatives weighed by how often each is found with the other words (`withShares`). */
  weighByOtherWords(last: LooseWord, docsWith: DocsWith): void {
    if (!this.extra.has(last.term)) return;
    const { q } = this;
    // (The other words with their stems and alternatives: a page holds the word if it holds any.
    // Not the words of an identifier being typed: its completions all hold them.)
    const parts = identifierParts(q);
    const others = q.terms
      .filter((t) => t !== last.term && !parts.has(t))
      .map((t) => [t, ...otherStems(q.languages, t), ...this.alternativesOf(t).map((a) => a.term)]);
    const { stats, documents, countTogether } = this.reads;
    const shared = withShares(this.extraOf(last.term), others, { stats, documents, docsWith, countTogether });
    this.extra.set(last.term, shared.alternatives);
    this.shareChecks = shared.checked;
  }

  /**
   * Two words typed apart that the pages write as one ("named tuple": namedtuple, "data base"):
   * the word they make, when the index knows it, stands for each of the two, as fully as each —
   * a page holding it holds both words.
   */
  joinCompounds(): void {
    const { stats } = this.reads;
    const { loose } = this.q;
    for (let i = 1; i < loose.length; i++) {
      const [a, b] = [loose[i - 1]!, loose[i]!];
      // (Not the parts of one word typed "max_c": they are joined already. Nor a word of one
      // letter: "sort a vec" is no "sorta", "from a" no "froma".)
      if (b.joined || a.term === b.term || a.word.length < 2 || b.word.length < 2) continue;
      const term = stem(a.word + b.word);
      if (stats.docFrequency(term) === 0) continue;
      for (const w of [a, b]) this.extra.set(w.term, [...this.extraOf(w.term), { term, factor: COMPOUND_FACTOR }]);
    }
  }

  /** What forgiving came to: the query as it was when no word stands for another (and one language), else widened. */
  forgiven(): Forgiven {
    const { q, corrected } = this;
    const { applied: synonyms } = this.found;
    const cost = { completionPostings: this.completionPostings, shareChecks: this.shareChecks };
    if (!this.extra.size && !this.synonyms.size && !q.languages) {
      const slots = q.terms.map((term) => ({ term, alternatives: [{ term, factor: 1, own: true }] }));
      return { query: q, slots, terms: q.terms, marked: q.terms, corrected, synonyms, cost };
    }
    const slots = this.slots();
    const matching = [...new Set(slots.flatMap((s) => s.alternatives.map((a) => a.term)))];
    const members = q.groups.map((g) => g.flatMap((t) => [...this.itself(t).map((term) => ({ term })), ...this.alternativesOf(t)]));
    const groups = members.map((m) => [...new Set(m.map((a) => a.term))]);
    // (A synonym of several words holds a group only with all its words: together.ts.)
    const together = this.synonyms.size ? members.map(groupTogether) : [];
    // (An identifier is no token of a page's text: its words are what a snippet marks — when an
    // identifier was typed. A word completed to one, "text" to text_to_name, marks its own words
    // only: marking "to" and "name" everywhere would pick the snippet's passage for them. A
    // synonym's identifier marks its words, as one typed: the owner named it.)
    const typedIdentifier = q.last?.identifier !== undefined;
    const synonymTerms = new Set([...this.synonyms.values()].flatMap((as) => as.map((a) => a.term)));
    const partsOf = (t: string) =>
      t
        .split(JOINER)
        .map(stem)
        .filter((p) => typedIdentifier || synonymTerms.has(t) || q.terms.includes(p));
    const marked = [...new Set(matching.flatMap((t) => (isIdentifier(t) ? [t, ...partsOf(t)] : [t])))];
    const query = { ...q, groups, terms: matching, ...(together.some(Boolean) ? { together } : {}) };
    return { query, slots, terms: this.phraseTerms(), marked, corrected, synonyms, cost };
  }

  /** Each word with what may stand for it: itself (its stems in every language), then its alternatives. */
  private slots(): Slot[] {
    return this.q.terms.map((term) => ({
      term,
      alternatives: [...(term === this.typedAway ? [] : this.own(term)), ...this.alternativesOf(term)],
      ...(this.rareWords.has(term) ? { blend: true } : {}),
      ...(term === this.whole ? { alone: COMPLETION_ONLY } : {}),
    }));
  }

  /**
   * Per word, what stands for it in phrase evidence: itself if known, else its best alternative;
   * the last word with its completions, a word with its synonyms.
   */
  private phraseTerms(): SlotTerm[] {
    const { q } = this;
    const { stats } = this.reads;
    // (For an unknown word: its correction, else its most frequent completion.)
    const best = (t: string) =>
      [...this.alternativesOf(t)].sort((a, b) => b.factor - a.factor || stats.docFrequency(b.term) - stats.docFrequency(a.term))[0]?.term;
    return q.terms.map(
      (t): SlotTerm =>
        (t === q.last?.term && this.alternativesOf(t).length) || this.synonyms.has(t)
          ? [...this.itself(t).map((term) => ({ term, factor: 1 })), ...this.alternativesOf(t)]
          : stats.docFrequency(t) > 0
            ? t
            : (best(t) ?? t),
    );
  }

  /** A word's stems in the index's other languages are the word itself (query/languages.ts). */
  private own(term: string): Alternative[] {
    return [{ term, factor: 1, own: true }, ...otherStems(this.q.languages, term).map((t) => ({ term: t, factor: 1, own: true }))];
  }

  /** A word is its own alternative, and matches — but not the last word of an identifier being typed. */
  private itself(t: string): string[] {
    return t === this.typedAway ? [] : [t];
  }

  /** An alternative counts below the word itself when the index knows the word (else nothing ranks above it: it counts fully, as if typed right). */
  private factor(term: string, f: number): number {
    return this.reads.stats.docFrequency(term) > 0 ? f : 1;
  }

  /** What a word may stand for: its completions or corrections, then its synonyms. */
  private alternativesOf(t: string): Alternative[] {
    const synonyms = this.synonyms.get(t);
    return synonyms ? [...this.extraOf(t), ...synonyms] : this.extraOf(t);
  }

  private extraOf(t: string): Alternative[] {
    return this.extra.get(t) ?? [];
  }
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
 * With no other word to tell which completion was meant, how often each is found breaks near
 * ties: its share is 1 for the most frequent, down to 1 − FREQUENCY_WEIGHT for one in few pages
 * ("pg_re" is pg_restore, in 17 pages, before pg_rewrite, in 7, when both are a page's title;
 * a page about crosstab, in 2 pages, still ranks first for "cros" when it is about nothing else).
 */
function byFrequency(alternatives: readonly Alternative[], stats: CorpusStatistics): Alternative[] {
  const most = Math.max(0, ...alternatives.map((a) => stats.docFrequency(a.term)));
  return most ? alternatives.map((a) => ({ ...a, share: 1 - FREQUENCY_WEIGHT * (1 - stats.docFrequency(a.term) / most) })) : [...alternatives];
}
