/**
 * The query language of this version: words (all must match), `-word` (must not match), and
 * `"quoted words"` (their words must match; phrase adjacency is not checked yet). Bounded: a
 * query that is too long or has too many terms is refused with a QueryError (HTTP 400).
 */
import { tokenize } from './tokenize.ts';

export const MAX_QUERY_LENGTH = 500;
export const MAX_QUERY_TERMS = 32;

export class QueryError extends Error {
  readonly code = 'ERR_QUERY';
}

export type ParsedQuery = { readonly raw: string; readonly terms: readonly string[]; readonly excluded: readonly string[] };

export function parseQuery(raw: string): ParsedQuery {
  if (raw.length > MAX_QUERY_LENGTH) throw new QueryError(`query is too long (${raw.length} characters; at most ${MAX_QUERY_LENGTH})`);
  // Control characters (and lone surrogates, via toWellFormed) never mean anything in a query.
  const clean = raw.toWellFormed().replace(/\p{Cc}/gu, ' ');
  const terms: string[] = [];
  const excluded: string[] = [];
  for (const m of clean.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    const negative = m[1] === '-' || (m[3]?.startsWith('-') ?? false);
    const words = tokenize(m[2] ?? m[3] ?? '');
    (negative ? excluded : terms).push(...words);
  }
  const unique = [...new Set(terms)];
  if (unique.length + excluded.length > MAX_QUERY_TERMS) throw new QueryError(`query has too many terms (at most ${MAX_QUERY_TERMS})`);
  return { raw, terms: unique, excluded: [...new Set(excluded)] };
}
