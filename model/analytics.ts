/**
 * The search log (search analytics): what a person searched for, what they were shown and what they
 * chose — private by design: a random session id a browser tab keeps, never an address, a user
 * agent or anything else that names a person.
 */

/** Where a search was made. */
export type SearchSource = 'page' | 'widget' | 'api';

/** One logged search: the query as typed and as understood, and what its page showed. */
export type LoggedSearch = {
  /** Its id (`searchId` in /api/search's answer): random, unguessable. */
  readonly id: string;
  /** When it was made (ms since the epoch). */
  readonly at: number;
  /** The tab's random session id, when the client sent one. */
  readonly session?: string;
  readonly source: SearchSource;
  /** The query as typed. */
  readonly query: string;
  /** As understood: normalized, with the words taken for others (completions, corrections). */
  readonly understood: string;
  /** The filters it carried (site:, lang:, type: …), by name. */
  readonly filters: Readonly<Record<string, string>>;
  /** The page asked for (from 1). */
  readonly page: number;
  /** How many results it had. */
  readonly total: number;
  /** The URLs shown on its page, in order (a click's position is its index here, from 1). */
  readonly shown: readonly string[];
  /** How long the search took (ms). */
  readonly tookMs: number;
  /** The queries typed on the way to it (as you type: one search is logged when the person pauses). */
  readonly prefixes: readonly string[];
};

/** A click on a result of a logged search. */
export type SearchClick = {
  readonly searchId: string;
  readonly at: number;
  /** Its position on the page, from 1. */
  readonly position: number;
  readonly url: string;
};

/** What searchers did with one query (as understood) over a time range: the console's "top queries". */
export type QueryReport = {
  readonly query: string;
  readonly searches: number;
  /** The searches with a click on a result. */
  readonly clicked: number;
  /** The mean position of each search's first click (null: none clicked). */
  readonly firstClickPosition: number | null;
  /** The searches that found nothing. */
  readonly noResults: number;
};

/** The searches of one day (UTC, `YYYY-MM-DD`). */
export type DayReport = { readonly day: string; readonly searches: number; readonly clicked: number };
