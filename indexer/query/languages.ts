/**
 * A query over pages in several languages. Each page's terms are made by its language's stemmer
 * (ingest/language/stemmers.ts), so a query word is stemmed by each stemmer the index holds pages
 * of, most pages first: "Häuser" is `hauser` (Porter) and `haus` (German). The first stemmer's
 * stem is the word's term — what the query's terms, phrases and forgiving search are made of —
 * and the others are its alternatives: its group matches a page holding any of them, and its slot
 * (weights.ts) scores the best one a page holds, never their sum, so a word counts once whatever
 * the number of languages. A page's phrases and phrase evidence are read with the stems of its
 * own language (`termsIn`), its text with its own stemmer.
 *
 * With pages of one stemmer only (most indexes), none of this exists: a query is what it was.
 */
import { stemmerByKey, type Stemmer } from '../ingest/language/stemmers.ts';
import { scanTokens, stemmerFor } from '../ingest/tokenize.ts';
import type { IndexedDocuments } from '../structures/index-view.ts';
import type { SourceDictionary } from '../structures/source-dictionary.ts';
import type { PhraseSet } from './phrases.ts';
import type { SlotTerm } from './proximity.ts';

/**
 * Terms in a query's groups at most, its words' alternatives included: past it, the stemmers of
 * the fewest pages give none (their pages still match a word whose stem is the same).
 */
export const MAX_QUERY_ALTERNATIVES = 64;

/** Each of a query's terms with its stems by each stemmer the query was stemmed with. */
export type QueryLanguages = {
  /** The stemmers' keys, most pages first; the first one's stems are the query's terms. */
  readonly keys: readonly string[];
  /** A term's stems by each stemmer, aligned with `keys` (the first is the term). */
  readonly stems: ReadonlyMap<string, readonly string[]>;
};

/** The stemmers of the pages in the index, most pages first: a query is stemmed by each. */
export function stemmersIn(sources: SourceDictionary): Stemmer[] {
  const byKey = new Map<string, { stemmer: Stemmer; pages: number }>();
  for (let id = 0; id < sources.sourceCount; id++) {
    const pages = sources.documentsOf(id);
    if (pages === 0) continue;
    const stemmer = stemmerFor(sources.source(id).lang);
    const entry = byKey.get(stemmer.key);
    if (entry) entry.pages += pages;
    else byKey.set(stemmer.key, { stemmer, pages });
  }
  if (!byKey.size) return [stemmerFor(undefined)];
  return [...byKey.values()].sort((a, b) => b.pages - a.pages || a.stemmer.key.localeCompare(b.stemmer.key)).map((e) => e.stemmer);
}

/**
 * The tokenizer of one query: folded and stemmed tokens by the first stemmer (the query's terms),
 * noting each one's stems by the others and whether it was typed with diacritics (its exact form:
 * query/exact-forms.ts).
 */
export class QueryStems {
  private readonly stems = new Map<string, string[]>();
  /** Terms of words typed with diacritics ("résumé"). */
  readonly diacritics = new Set<string>();

  constructor(private readonly stemmers: readonly Stemmer[]) {
    if (!stemmers.length) throw new RangeError('QueryStems: no stemmer');
  }

  tokenize(text: string): string[] {
    const out: string[] = [];
    const [first, ...others] = this.stemmers;
    scanTokens(text, (word, _start, _end, diacritics) => {
      const term = first!.stem(word);
      out.push(term);
      if (diacritics) this.diacritics.add(term);
      // (Two words may share a first stem and not the others: the first word's are kept.)
      if (others.length && !this.stems.has(term)) this.stems.set(term, [term, ...others.map((s) => s.stem(word))]);
    });
    return out;
  }

  /**
   * The groups with each term's alternatives added, the stemmers of most pages first, until the
   * groups hold MAX_QUERY_ALTERNATIVES terms.
   */
  widen(groups: readonly (readonly string[])[]): string[][] {
    const out = groups.map((g) => [...g]);
    let total = out.reduce((n, g) => n + g.length, 0);
    for (let k = 1; k < this.stemmers.length; k++) {
      for (const g of out) {
        for (const t of [...g]) {
          const alt = this.stems.get(t)?.[k];
          if (alt === undefined || g.includes(alt) || total >= MAX_QUERY_ALTERNATIVES) continue;
          g.push(alt);
          total++;
        }
      }
    }
    return out;
  }

  /** The terms with their stems by each stemmer, when there is more than one stemmer. */
  languages(): QueryLanguages | undefined {
    return this.stemmers.length > 1 ? { keys: this.stemmers.map((s) => s.key), stems: this.stems } : undefined;
  }
}

/** A term's stems by the other stemmers (its alternatives in other languages), if any. */
export function otherStems(languages: QueryLanguages | undefined, term: string): readonly string[] {
  const stems = languages?.stems.get(term);
  return stems ? [...new Set(stems.slice(1))].filter((s) => s !== term) : [];
}

/**
 * Terms of the query as a page of stemmer `key` has them: each one's stem by that stemmer (a term
 * without stems — a correction, a completion — as it is).
 */
export function termsIn<T extends SlotTerm>(languages: QueryLanguages | undefined, key: string, terms: readonly T[]): readonly T[] {
  const k = languages ? languages.keys.indexOf(key) : -1;
  if (k <= 0) return terms;
  const inKey = (t: string) => languages!.stems.get(t)?.[k] ?? t;
  return terms.map((t) => (typeof t === 'string' ? inKey(t) : t.map((a) => ({ ...a, term: inKey(a.term) }))) as T);
}

/** The stemmer key of an indexed page (by its source's language). */
export function stemmerKeyOf(docs: IndexedDocuments, docId: number): string {
  const source = docs.sourceOf(docId);
  return stemmerFor(source >= 0 ? docs.source(source).lang : undefined).key;
}

/**
 * For the phrase checks (phrases.ts): a page's phrases as its language has them, with its stemmer
 * — one PhraseSet per stemmer, made when first asked for; undefined with one language.
 */
export function phrasesByLanguage(
  docs: IndexedDocuments,
  languages: QueryLanguages | undefined,
  phrases: readonly (readonly string[])[],
): ((docId: number) => PhraseSet) | undefined {
  if (!languages) return undefined;
  const sets = new Map<string, PhraseSet>();
  return (docId) => {
    const key = stemmerKeyOf(docs, docId);
    let set = sets.get(key);
    if (!set) sets.set(key, (set = { phrases: phrases.map((p) => termsIn(languages, key, p)), stem: (stemmerByKey(key) ?? stemmerFor(undefined)).stem }));
    return set;
  };
}
