/**
 * The site owner's synonyms (model/curation.ts `SynonymRule`), applied as a query is planned: no
 * re-indexing. A synonym's terms are alternatives of the slot of the word (or words) it stands
 * for, as completions and corrections are (forgive.ts), counting SYNONYM_FACTOR of the word: a
 * page holding the word itself still ranks above one holding only its synonym.
 *
 * - A group, `k8s, kubernetes`: each entry also finds every other; a one-way rule,
 *   `kill => terminate, cancel`: `kill` also finds `terminate` and `cancel`, not the reverse.
 * - An entry on the left matches a query's words typed bare (not in a phrase, not +word: those
 *   stay exact) by their terms — folded and stemmed as the query's words are, so `killed` is
 *   `kill` — and an entry of several words only consecutive words: `"long running"` matches
 *   "long running query", not "running long" nor "long query running". Its synonyms stand for
 *   each of those words (as a compound does, forgive.ts `joinCompounds`).
 * - An entry on the right is a term: a word, stemmed by each stemmer of the query (its stems in
 *   the index's languages), or an identifier written whole (`statement_timeout`: the term
 *   ingest/identifiers.ts makes of it, not stemmed). An entry of several words stands for the
 *   word only on a page holding all of them (`together`, query/together.ts) — required together,
 *   not a phrase: matching and scoring read a page's terms (its vector), which tell what it holds
 *   at no cost, while a phrase needs its token sequence from the store (phrases.ts: checked on
 *   the best few hundred only, the total then a lower bound) — every query a synonym touched
 *   would pay that.
 *
 * `Synonyms` is compiled once per change of the rules, and per order of stemmers when first asked
 * (the index's languages change rarely): per query, a look-up of each word's term.
 */
import { MAX_SYNONYMS, parseSynonym, type SynonymRule } from '../../model/curation.ts';
import { JOINER } from '../ingest/identifiers.ts';
import { typedIdentifier, words as foldedWords, type Stemmer } from '../ingest/tokenize.ts';
import type { ParsedQuery } from './parse.ts';

/**
 * What a synonym counts, next to the word itself: as much as a correction one edit away
 * (forgive.ts TYPO_FACTOR) — the owner says it is meant, no guess, so it counts more than a
 * correction two edits away or a completion's share; but a page that says what was asked, in the
 * words asked, comes first: with the same evidence it always ranks above one saying the synonym
 * (weights.ts caps a synonym's IDF at the word's).
 */
export const SYNONYM_FACTOR = 0.8;
/** Terms synonyms add to one query at most (a group of many entries): a query stays bounded. */
export const MAX_SYNONYM_TERMS = 64;
/** Orders of stemmers compiled at most (the index's languages, by pages: a few in a lifetime). */
const COMPILED_ORDERS = 8;

/** A term a synonym adds to a query word's slot; `together`: the terms a page must hold with it; `synonym`: the entry it stands for, as written. */
export type SynonymTerm = { readonly term: string; readonly together?: readonly string[]; readonly synonym: string };

/** A rule's entry the query holds, and what it also found (as written in the rules, normalized). */
export type AppliedSynonym = { readonly from: string; readonly to: readonly string[] };

/** What a query's synonyms add: by slot (a query term), its synonyms' terms; and the entries that applied. */
export type SynonymsFound = { readonly bySlot: ReadonlyMap<string, readonly SynonymTerm[]>; readonly applied: readonly AppliedSynonym[] };

export const NO_SYNONYMS: SynonymsFound = { bySlot: new Map(), applied: [] };

/** An entry of a rule: as written (normalized), and its words folded, not stemmed. */
type Entry = { readonly text: string; readonly words: readonly string[] };
/** An entry on the right, as terms: each alternative it adds (one per term, or the words of several together). */
type Target = { readonly text: string; readonly terms: readonly { readonly term: string; readonly together?: readonly string[] }[] };
/** An entry on the left as terms (the first stemmer's), and what it also finds. */
type Compiled = { readonly terms: readonly string[]; readonly from: string; readonly to: readonly Target[] };

export class Synonyms {
  /** Each entry (by its text) with the entries it also finds: groups and one-way rules in one. */
  private readonly finds: readonly { readonly from: Entry; readonly to: readonly Entry[] }[];
  /** By the stemmers' keys: by the first term of an entry, those beginning with it, longest first. */
  private readonly compiled = new Map<string, ReadonlyMap<string, readonly Compiled[]>>();
  readonly lines: readonly string[];

  private constructor(rules: readonly SynonymRule[]) {
    this.lines = rules.map((r) => r.line);
    const finds = new Map<string, { from: Entry; to: Map<string, Entry> }>();
    const entry = (text: string): Entry => ({ text, words: foldedWords(text) });
    for (const r of rules) {
      for (const from of r.from) {
        let f = finds.get(from);
        if (!f) finds.set(from, (f = { from: entry(from), to: new Map() }));
        for (const to of r.to) if (to !== from) f.to.set(to, entry(to));
      }
    }
    this.finds = [...finds.values()].filter((f) => f.from.words.length && f.to.size).map((f) => ({ from: f.from, to: [...f.to.values()] }));
  }

  static of(rules: readonly SynonymRule[]): Synonyms {
    return new Synonyms(rules);
  }

  /** The rules' lines parsed (as a coordinator sends them to its shards); a RangeError for a bad line, or more than MAX_SYNONYMS. */
  static fromLines(lines: readonly string[]): Synonyms {
    if (lines.length > MAX_SYNONYMS) throw new RangeError(`synonyms: ${lines.length} lines (at most ${MAX_SYNONYMS})`);
    return new Synonyms(
      lines.map((line) => {
        const r = parseSynonym(line);
        if ('error' in r) throw new RangeError(r.error);
        return r;
      }),
    );
  }

  /** The rules. */
  get size(): number {
    return this.lines.length;
  }

  /** What the synonyms add to query `q` (its terms made by `stemmers`, the first making them). */
  forQuery(q: Pick<ParsedQuery, 'loose'>, stemmers: readonly Stemmer[]): SynonymsFound {
    if (!this.finds.length || !q.loose.length) return NO_SYNONYMS;
    const byFirst = this.compile(stemmers);
    const bySlot = new Map<string, SynonymTerm[]>();
    const applied = new Map<string, AppliedSynonym>();
    const seen = new Set<string>();
    const { loose } = q;
    let added = 0;
    for (let i = 0; i < loose.length; i++) {
      for (const c of byFirst.get(loose[i]!.term) ?? []) {
        const n = c.terms.length;
        if (i + n > loose.length || c.terms.some((t, j) => loose[i + j]!.term !== t || (j > 0 && loose[i + j]!.apart))) continue;
        const slots = loose.slice(i, i + n).map((w) => w.term);
        for (const target of c.to) {
          for (const { term, together } of target.terms) {
            // (A synonym that is the word itself, by its stem, adds nothing.)
            if (!together && slots.includes(term)) continue;
            for (const slot of slots) {
              const key = `${slot} ${term} ${together?.join(' ') ?? ''}`;
              if (seen.has(key) || added >= MAX_SYNONYM_TERMS) continue;
              seen.add(key);
              added++;
              const list = bySlot.get(slot) ?? [];
              list.push({ term, ...(together ? { together } : {}), synonym: c.from });
              bySlot.set(slot, list);
            }
          }
        }
        applied.set(c.from, { from: c.from, to: c.to.map((t) => t.text) });
      }
    }
    return bySlot.size ? { bySlot, applied: [...applied.values()] } : NO_SYNONYMS;
  }

  /** The entries by their first term, for the query's stemmers (made when first asked). */
  private compile(stemmers: readonly Stemmer[]): ReadonlyMap<string, readonly Compiled[]> {
    const key = stemmers.map((s) => s.key).join(' ');
    const known = this.compiled.get(key);
    if (known) return known;
    const byFirst = new Map<string, Compiled[]>();
    const stem = stemmers[0]!.stem;
    for (const { from, to } of this.finds) {
      const terms = from.words.map(stem);
      const list = byFirst.get(terms[0]!) ?? [];
      list.push({ terms, from: from.text, to: to.map((e) => target(e, stemmers)).filter((t) => t.terms.length) });
      byFirst.set(terms[0]!, list);
    }
    for (const list of byFirst.values()) list.sort((a, b) => b.terms.length - a.terms.length);
    if (this.compiled.size >= COMPILED_ORDERS) this.compiled.clear();
    this.compiled.set(key, byFirst);
    return byFirst;
  }
}

/** An entry on the right as the terms it adds: an identifier's term, a word's stems, or the stems of several words, together. */
function target(e: Entry, stemmers: readonly Stemmer[]): Target {
  const identifier = /\s/.test(e.text) ? undefined : typedIdentifier(e.text);
  if (identifier !== undefined && identifier.split(JOINER).length === e.words.length) return { text: e.text, terms: [{ term: identifier }] };
  const terms: { term: string; together?: readonly string[] }[] = [];
  const seen = new Set<string>();
  for (const s of stemmers) {
    const stems = [...new Set(e.words.map(s.stem))];
    // (By each stemmer, its stems: once each, however many stemmers make the same.)
    if (seen.has(stems.join(' '))) continue;
    seen.add(stems.join(' '));
    if (stems.length === 1) terms.push({ term: stems[0]! });
    else for (const t of stems) terms.push({ term: t, together: stems.filter((x) => x !== t) });
  }
  return { text: e.text, terms };
}
