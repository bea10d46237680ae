/**
 * The query language:
 *
 *   postgres replication     every word must match (in any field)
 *   "point in time"          an exact phrase: its words, adjacent and in order
 *   vacuum OR analyze        either word (OR binds the words on each side of it)
 *   -deprecated              no page with this word (or -"a phrase": with these words)
 *   site:docs.example.org    only pages of this host (or its subdomains); several site: are ORed
 *
 * Words are tokenized like documents (case and diacritics folded, stemmed). Bounded: a query that
 * is too long or has too many terms is refused with a QueryError (HTTP 400), never run slowly.
 */
import { tokenize } from './tokenize.ts';

export const MAX_QUERY_LENGTH = 500;
export const MAX_QUERY_TERMS = 32;

export class QueryError extends Error {
  readonly code = 'ERR_QUERY';
}

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
};

/** One item of the query as typed: a word, a quoted phrase, OR, or a filter. */
const ITEM = /(-?)"([^"]*)"?|(-?)(site):(\S*)|(\S+)/gi;

export function parseQuery(raw: string): ParsedQuery {
  if (raw.length > MAX_QUERY_LENGTH) throw new QueryError(`query is too long (${raw.length} characters; at most ${MAX_QUERY_LENGTH})`);
  // Control characters (and lone surrogates, via toWellFormed) never mean anything in a query.
  const clean = raw.toWellFormed().replace(/\p{Cc}/gu, ' ');
  const groups: string[][] = [];
  const phrases: string[][] = [];
  const excluded: string[] = [];
  const sites: string[] = [];
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
      const host = m[5]!.toLowerCase().replace(/^https?:\/\//, '').replace(/\/.*$/, '');
      if (!host) throw new QueryError('site: needs a host name, e.g. site:docs.example.org');
      if (m[3] === '-') throw new QueryError('-site: is not supported; use site: to keep one host');
      sites.push(host);
    } else {
      const word = m[6]!;
      if (word === 'OR') {
        orPending = groups.length > 0;
        continue;
      }
      if (word.startsWith('-') && word.length > 1) excluded.push(...tokenize(word.slice(1)));
      else addGroup(tokenize(word));
    }
  }
  // Identical groups say the same thing once.
  const seen = new Set<string>();
  const unique = groups.map((g) => [...new Set(g)]).filter((g) => !seen.has(g.join('|')) && seen.add(g.join('|')));
  const terms = [...new Set(unique.flat())];
  const excludedUnique = [...new Set(excluded)];
  if (terms.length + excludedUnique.length > MAX_QUERY_TERMS) throw new QueryError(`query has too many terms (at most ${MAX_QUERY_TERMS})`);
  if (sites.length > 8) throw new QueryError('query has too many site: filters (at most 8)');
  return { raw, terms, groups: unique, phrases, excluded: excludedUnique, sites: [...new Set(sites)] };
}

/** True when `tokens` holds `phrase` as a run of adjacent tokens. */
export function containsPhrase(tokens: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= tokens.length; i++) {
    for (let k = 0; k < phrase.length; k++) if (tokens[i + k] !== phrase[k]) continue outer;
    return true;
  }
  return false;
}

/** True when `host` is `site` or one of its subdomains. */
export function hostMatches(host: string, site: string): boolean {
  return host === site || host.endsWith(`.${site}`);
}
