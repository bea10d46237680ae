/**
 * The query language:
 *
 *   postgres replication     every word must match (in any field)
 *   "point in time"          an exact phrase: its words, adjacent and in order
 *   vacuum OR analyze        either word (OR binds the words on each side of it)
 *   -deprecated              no page with this word (or -"a phrase": with these words)
 *   site:docs.example.org    only pages of this host (or its subdomains); several site: are ORed
 *   lang:en                  only pages in this language (the primary subtag of <html lang>)
 *   type:html                only pages of this type: html, text, markdown, pdf, docx, pptx, xlsx, odt, odp,
 *                            ods — or a kind: slides, spreadsheet, doc, office
 *   topic:coins              only pages a focused crawl filed under this class
 *   +word  or  "word"        this word exactly: no typo correction, no completion
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
 */
export type LooseWord = { readonly term: string; readonly word: string; readonly joined?: boolean; readonly identifier?: string };

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
};

/** One item of the query as typed: a word, a quoted phrase, OR, or a filter. */
const ITEM = /(-?)"([^"]*)"?|(-?)(site|lang|type|topic):(\S*)|(\S+)/gi;

/** `stemmers`: those of the pages in the index (languages.ts `stemmersIn`), most pages first. */
export function parseQuery(raw: string, stemmers: readonly Stemmer[] = [stemmerFor(undefined)]): ParsedQuery {
  const stems = new QueryStems(stemmers);
  const tokenize = (text: string) => stems.tokenize(text);
  if (raw.length > MAX_QUERY_LENGTH) throw new QueryError(`query is too long (${raw.length} characters; at most ${MAX_QUERY_LENGTH})`);
  // Control characters (and lone surrogates, via toWellFormed) never mean anything in a query.
  const clean = raw.toWellFormed().replace(/\p{Cc}/gu, ' ');
  const groups: string[][] = [];
  const phrases: string[][] = [];
  const excluded: string[] = [];
  const sites: string[] = [];
  const langs: string[] = [];
  const types: string[] = [];
  const topics: string[] = [];
  const loose: LooseWord[] = [];
  let last: LooseWord | undefined;
  let orPending = false;
  const addGroup = (words: string[]) => {
    if (!words.length) return;
    // "a OR b": b's first word joins a's group.
    let rest = words;
    if (orPending && groups.length) {
      groups[groups.length - 1]!.push(words[0]!);
      rest = words.slice(1);
    }
    groups.push(...rest.map((w) => [w]));
    orPending = false;
  };
  for (const m of clean.matchAll(ITEM)) {
    last = undefined;
    if (m[2] !== undefined) {
      const words = tokenize(m[2]);
      if (m[1] === '-') excluded.push(...words);
      else {
        if (words.length > 1) phrases.push(words);
        // A phrase's words are required words too (the phrase check comes on top).
        orPending = false;
        groups.push(...words.map((w) => [w]));
      }
    } else if (m[4] !== undefined) {
      const kind = m[4].toLowerCase();
      const value = m[5]!.toLowerCase();
      if (m[3] === '-') throw new QueryError(`-${kind}: is not supported; use ${kind}: to keep what you want`);
      if (kind === 'topic') {
        // Class names as topic files allow them (crawler/focus/topic.ts).
        if (!/^[\p{L}\p{N}][\p{L}\p{N}._-]{0,99}$/u.test(value)) throw new QueryError('topic: needs a class of the topic, e.g. topic:coins');
        topics.push(value);
      } else if (kind === 'site') {
        const host = value.replace(/^https?:\/\//, '').replace(/\/.*$/, '');
        if (!host) throw new QueryError('site: needs a host name, e.g. site:docs.example.org');
        sites.push(host);
      } else if (kind === 'lang') {
        // A tag like en-US keeps to its primary subtag, as pages are indexed.
        const lang = value.split(/[-_]/)[0]!;
        if (!/^[a-z]{2,3}$/.test(lang)) throw new QueryError('lang: needs a language code, e.g. lang:en');
        langs.push(lang);
      } else {
        if (!/^[a-z0-9.+-]{1,40}$/.test(value)) throw new QueryError('type: needs a page type, e.g. type:html, type:pdf or type:slides');
        types.push(...typesOf(value));
      }
    } else {
      const word = m[6]!;
      if (word === 'OR') {
        orPending = groups.length > 0;
        continue;
      }
      if (word.startsWith('-') && word.length > 1) excluded.push(...tokenize(word.slice(1)));
      else if (word.startsWith('+') && word.length > 1) addGroup(tokenize(word.slice(1)));
      else {
        const terms = tokenize(word);
        addGroup(terms);
        // Each term with the word it was made of (when the two tokenizations pair up).
        const typed = foldedWords(word);
        if (typed.length === terms.length) {
          for (let i = 0; i < terms.length; i++) loose.push({ term: terms[i]!, word: typed[i]!, ...(i > 0 ? { joined: true } : {}) });
          const identifier = terms.length ? typedIdentifier(word) : undefined;
          if (identifier !== undefined) loose[loose.length - 1] = { ...loose.at(-1)!, identifier };
          last = loose.at(-1);
        }
      }
    }
  }
  // Identical groups say the same thing once.
  const seen = new Set<string>();
  const unique = groups.map((g) => [...new Set(g)]).filter((g) => !seen.has(g.join('|')) && seen.add(g.join('|')));
  const terms = [...new Set(unique.flat())];
  const excludedUnique = [...new Set(excluded)];
  if (terms.length + excludedUnique.length > MAX_QUERY_TERMS) throw new QueryError(`query has too many terms (at most ${MAX_QUERY_TERMS})`);
  for (const [kind, values] of [
    ['site', sites],
    ['lang', langs],
    ['type', types],
    ['topic', topics],
  ] as const) {
    if (values.length > 8) throw new QueryError(`query has too many ${kind}: filters (at most 8)`);
  }
  // A word also in a phrase stays exact.
  const inPhrases = new Set(phrases.flat());
  const forgivable = loose.filter((w) => !inPhrases.has(w.term));
  const lastWord = last && !inPhrases.has(last.term) ? { last } : {};
  // Each word matches in every language the index holds (its stem by each stemmer).
  const languages = stems.languages();
  const lingual = languages
    ? { languages, groups: stems.widen(unique), excluded: [...new Set(excludedUnique.flatMap((t) => [t, ...otherStems(languages, t)]))] }
    : { groups: unique, excluded: excludedUnique };
  const diacritics = stems.diacritics.size ? { diacritics: [...stems.diacritics] } : {};
  return {
    raw,
    terms,
    phrases,
    sites: [...new Set(sites)],
    langs: [...new Set(langs)],
    types: [...new Set(types)],
    topics: [...new Set(topics)],
    loose: forgivable,
    ...lastWord,
    ...lingual,
    ...diacritics,
  };
}

/** True when `host` is `site` or one of its subdomains. */
export function hostMatches(host: string, site: string): boolean {
  return host === site || host.endsWith(`.${site}`);
}
