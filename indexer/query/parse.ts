/**
 * The query language:
 *
 *   postgres replication     every word must match (in any field); from three words, all but
 *                            one may (query/coverage.ts)
 *   "point in time"          an exact phrase: its words, adjacent and in order
 *   vacuum OR analyze        either word (OR binds the words on each side of it)
 *   -deprecated              no page with this word (or -"a phrase": with these words)
 *   site:docs.example.org    only pages of this host (or its subdomains); several site: are ORed
 *   lang:en                  only pages in this language (the primary subtag of <html lang>)
 *   type:html                only pages of this type: html, text, markdown, pdf, docx, pptx, xlsx, odt, odp,
 *                            ods — or a kind: slides, spreadsheet, doc, office
 *   topic:coins              only pages a focused crawl filed under this class
 *   +word  or  "word"        this word exactly: no typo correction, no completion
 *   varchar vs text          a comparison: "vs" (vs., versus) after a word asks for both sides and is
 *                            no word of its own (pages rarely say it: the one comparing them may not)
 *
 * Search forgives (query/forgive.ts): a word typed bare may be corrected when the index does not
 * know it, and the last one also matches as a prefix (as you type). Phrases, -words and +words
 * stay exact.
 *
 * Several filters of one kind are ORed; filters of different kinds must all hold.
 *
 * Words are tokenized like documents (case and diacritics folded, stemmed): by each stemmer given
 * (query/languages.ts), the first making the terms and the others their alternatives. Bounded: a query that
 * is too long or has too many terms is refused with a QueryError (HTTP 400), never run slowly.
 */
import { stemmerFor, typedIdentifier, words as foldedWords, type Stemmer } from '../ingest/tokenize.ts';
import { otherStems, QueryStems, type QueryLanguages } from './languages.ts';
import type { GroupTogether } from './together.ts';
import { typesOf } from '../ingest/source.ts';

export const MAX_QUERY_LENGTH = 500;
export const MAX_QUERY_TERMS = 32;

export class QueryError extends Error {
  readonly code = 'ERR_QUERY';
}

/** A word typed bare: its term, and the word as typed (case and diacritics folded, not stemmed). */
/** `joined`: the word continues the one before it, typed without a space ("c" in "max_c"). */
/**
 * `identifier`: the query's last word ends an identifier as typed so far, its words joined by "_"
 * ("pg_st" for "st", "pg_" for "pg": ingest/identifiers.ts), which completes to identifiers.
 * `apart`: something else stands between it and the word typed bare before it (a phrase, a
 * +word, OR, "vs", a filter): the two are not consecutive words, which a synonym of several words
 * needs (query/synonyms.ts).
 */
export type LooseWord = {
  readonly term: string;
  readonly word: string;
  readonly joined?: boolean;
  readonly identifier?: string;
  readonly apart?: boolean;
};

export type ParsedQuery = {
  readonly raw: string;
  /** Every positive term (for scoring and highlighting), distinct, in query order. */
  readonly terms: readonly string[];
  /** All groups must match; a group matches when any of its terms does. */
  readonly groups: readonly (readonly string[])[];
  /** Term sequences that must stand adjacent and in order (two words or more). */
  readonly phrases: readonly (readonly string[])[];
  readonly excluded: readonly string[];
  /** Hosts (lowercase) the results must come from; empty: any. */
  readonly sites: readonly string[];
  /** Languages (primary subtags: `en`) the results must be in; empty: any. */
  readonly langs: readonly string[];
  /** Types (`html`, `text`) the results must have; empty: any. */
  readonly types: readonly string[];
  /** Classes (lowercase) of a focused crawl the results must have one of; empty: any. */
  readonly topics: readonly string[];
  /** The words typed bare (not in a phrase, not +word): those forgiving search may correct, in query order. */
  readonly loose: readonly LooseWord[];
  /** The query's last item when it is a bare word: it also matches as a prefix. */
  readonly last?: LooseWord;
  /** Stemmed by more than one stemmer (pages in several languages): each term's stems by each. */
  readonly languages?: QueryLanguages;
  /** The terms of words typed with diacritics (query/exact-forms.ts), if any. */
  readonly diacritics?: readonly string[];
  /** Aligned with `groups`, when a synonym of several words widened some (forgive.ts): the terms that hold a group only together (query/together.ts). */
  readonly together?: readonly (GroupTogether | undefined)[];
};

/** One item of the query as typed: a word, a quoted phrase, OR, or a filter. */
const ITEM = /(-?)"([^"]*)"?|(-?)(site|lang|type|topic):(\S*)|(\S+)/gi;

/**
 * "A vs B": the word between two sides of a comparison, typed bare after a word. It asks for both
 * sides, as the words around it do; as a word of its own, it would rank first the few pages that
 * happen to say "vs" (its IDF is high), over the page that compares the two in other words.
 */
const COMPARISON = /^(vs\.?|versus)$/i;

/** The filters, in the order their limits are checked. */
const FILTER_KINDS = ['site', 'lang', 'type', 'topic'] as const;
type FilterKind = (typeof FILTER_KINDS)[number];
/** Filters of one kind at most. */
const MAX_FILTERS = 8;

/** The values a filter stands for, from what follows `kind:` (lowercased); a QueryError when it is no such value. */
const FILTER_VALUES: Readonly<Record<FilterKind, (value: string) => readonly string[]>> = {
  site: (value) => {
    const host = value.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
    if (!host) throw new QueryError('site: needs a host name, e.g. site:docs.example.org');
    return [host];
  },
  lang: (value) => {
    // A tag like en-US keeps to its primary subtag, as pages are indexed.
    const lang = value.split(/[-_]/)[0]!;
    if (!/^[a-z]{2,3}$/.test(lang)) throw new QueryError('lang: needs a language code, e.g. lang:en');
    return [lang];
  },
  type: (value) => {
    if (!/^[a-z0-9.+-]{1,40}$/.test(value)) throw new QueryError('type: needs a page type, e.g. type:html, type:pdf or type:slides');
    return typesOf(value);
  },
  topic: (value) => {
    // Class names as topic files allow them (crawler/focus/topic.ts).
    if (!/^[\p{L}\p{N}][\p{L}\p{N}._-]{0,99}$/u.test(value)) throw new QueryError('topic: needs a class of the topic, e.g. topic:coins');
    return [value];
  },
};

/** `stemmers`: those of the pages in the index (languages.ts `stemmersIn`), most pages first. */
export function parseQuery(raw: string, stemmers: readonly Stemmer[] = [stemmerFor(undefined)]): ParsedQuery {
  const items = new QueryItems(new QueryStems(stemmers));
  if (raw.length > MAX_QUERY_LENGTH) throw new QueryError(`query is too long (${raw.length} characters; at most ${MAX_QUERY_LENGTH})`);
  // Control characters (and lone surrogates, via toWellFormed) never mean anything in a query.
  const clean = raw.toWellFormed().replace(/\p{Cc}/gu, ' ');
  for (const m of clean.matchAll(ITEM)) items.take(m);
  return items.parsed(raw);
}

/** The items of a query as they are read, one at a time (`take`), then the query they make (`parsed`). */
class QueryItems {
  private readonly groups: string[][] = [];
  private readonly phrases: string[][] = [];
  private readonly excluded: string[] = [];
  private readonly filters: Record<FilterKind, string[]> = { site: [], lang: [], type: [], topic: [] };
  private readonly loose: LooseWord[] = [];
  /** The last item read, when it was a bare word. */
  private last: LooseWord | undefined;
  /** An OR was read: the next word joins the group of the word before it. */
  private orPending = false;
  /** The item read before this one was a word typed bare. */
  private afterBare = false;

  constructor(private readonly stems: QueryStems) {}

  take(m: RegExpMatchArray): void {
    this.last = undefined;
    const afterBare = this.afterBare;
    this.afterBare = false;
    if (m[2] !== undefined) this.phrase(m[2], m[1] === '-');
    else if (m[4] !== undefined) this.filter(m[4].toLowerCase(), m[5]!.toLowerCase(), m[3] === '-');
    else this.word(m[6]!, afterBare);
  }

  /** A quoted phrase (or -"a phrase": none of its words). */
  private phrase(text: string, excluded: boolean): void {
    const words = this.stems.tokenize(text);
    if (excluded) {
      this.excluded.push(...words);
      return;
    }
    if (words.length > 1) this.phrases.push(words);
    // A phrase's words are required words too (the phrase check comes on top).
    this.orPending = false;
    this.groups.push(...words.map((w) => [w]));
  }

  private filter(kind: string, value: string, negated: boolean): void {
    if (negated) throw new QueryError(`-${kind}: is not supported; use ${kind}: to keep what you want`);
    this.filters[kind as FilterKind].push(...FILTER_VALUES[kind as FilterKind](value));
  }

  /** OR, a comparison's "vs", a -word, a +word, or a word typed bare (`afterBare`: the item before it was one too). */
  private word(word: string, afterBare: boolean): void {
    if (word === 'OR') this.orPending = this.groups.length > 0;
    else if (COMPARISON.test(word) && this.groups.length > 0) return;
    else if (word.startsWith('-') && word.length > 1) this.excluded.push(...this.stems.tokenize(word.slice(1)));
    else if (word.startsWith('+') && word.length > 1) this.addGroup(this.stems.tokenize(word.slice(1)));
    else this.bare(word, afterBare);
  }

  /** A word typed bare: required, and forgiving search may take it for another (each term with the word it was made of). */
  private bare(word: string, afterBare: boolean): void {
    const terms = this.stems.tokenize(word);
    this.addGroup(terms);
    // (When the two tokenizations pair up.)
    const typed = foldedWords(word);
    if (typed.length !== terms.length) return;
    this.afterBare = true;
    const apart = !afterBare && this.loose.length > 0;
    for (let i = 0; i < terms.length; i++) this.loose.push({ term: terms[i]!, word: typed[i]!, ...(i > 0 ? { joined: true } : apart ? { apart: true } : {}) });
    const identifier = terms.length ? typedIdentifier(word) : undefined;
    if (identifier !== undefined) this.loose[this.loose.length - 1] = { ...this.loose.at(-1)!, identifier };
    this.last = this.loose.at(-1);
  }

  /** Each word a group of its own — but after an OR, the first joins the group before it ("a OR b"). */
  private addGroup(words: readonly string[]): void {
    if (!words.length) return;
    let rest = words;
    if (this.orPending && this.groups.length) {
      this.groups[this.groups.length - 1]!.push(words[0]!);
      rest = words.slice(1);
    }
    this.groups.push(...rest.map((w) => [w]));
    this.orPending = false;
  }

  /** The query the items make, within its bounds (a QueryError past them). */
  parsed(raw: string): ParsedQuery {
    // Identical groups say the same thing once.
    const seen = new Set<string>();
    const unique = this.groups.map((g) => [...new Set(g)]).filter((g) => !seen.has(g.join('|')) && seen.add(g.join('|')));
    const terms = [...new Set(unique.flat())];
    const excluded = [...new Set(this.excluded)];
    if (terms.length + excluded.length > MAX_QUERY_TERMS) throw new QueryError(`query has too many terms (at most ${MAX_QUERY_TERMS})`);
    for (const kind of FILTER_KINDS) {
      if (this.filters[kind].length > MAX_FILTERS) throw new QueryError(`query has too many ${kind}: filters (at most ${MAX_FILTERS})`);
    }
    // A word also in a phrase stays exact.
    const inPhrases = new Set(this.phrases.flat());
    const last = this.last && !inPhrases.has(this.last.term) ? { last: this.last } : {};
    const { site, lang, type, topic } = this.filters;
    return {
      raw,
      terms,
      phrases: this.phrases,
      sites: [...new Set(site)],
      langs: [...new Set(lang)],
      types: [...new Set(type)],
      topics: [...new Set(topic)],
      loose: this.looseOutside(inPhrases),
      ...last,
      ...this.inLanguages(unique, excluded),
      ...(this.stems.diacritics.size ? { diacritics: [...this.stems.diacritics] } : {}),
    };
  }

  /** The words typed bare but those also in a phrase (they stay exact); the word after one left out is apart from the one before. */
  private looseOutside(inPhrases: ReadonlySet<string>): LooseWord[] {
    const out: LooseWord[] = [];
    let gap = false;
    for (const w of this.loose) {
      if (inPhrases.has(w.term)) gap = true;
      else {
        out.push(gap && out.length && !w.apart ? { ...w, apart: true } : w);
        gap = false;
      }
    }
    return out;
  }

  /** The groups and exclusions — each word matching in every language the index holds (its stem by each stemmer). */
  private inLanguages(groups: string[][], excluded: string[]): Pick<ParsedQuery, 'languages' | 'groups' | 'excluded'> {
    const languages = this.stems.languages();
    if (!languages) return { groups, excluded };
    return { languages, groups: this.stems.widen(groups), excluded: [...new Set(excluded.flatMap((t) => [t, ...otherStems(languages, t)]))] };
  }
}

/** True when `host` is `site` or one of its subdomains. */
export function hostMatches(host: string, site: string): boolean {
  return host === site || host.endsWith(`.${site}`);
}
