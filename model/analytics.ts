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
  /** The search of the same session it followed within REFINE_MS with another query (A, then B): B refines A. */
  readonly refines?: string;
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

/** A day in ms; a day's number (days since the epoch, UTC) is the rollups' key. */
export const DAY_MS = 86_400_000;
export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);

/** The days a report's range covers, first and last included. */
export function daysOf(range: { readonly since: number; readonly until: number }): { first: number; last: number } {
  return { first: dayOf(range.since), last: Math.ceil(range.until / DAY_MS) - 1 };
}

/**
 * What a report covers: whole days (UTC) — from the day of `since` to the day before `until` (a
 * time within a day takes that whole day) — and, when given, only the searches with these filters.
 */
export type ReportRange = { readonly since: number; readonly until: number; readonly filters?: ReportFilters };

/** The filters a report may keep to: a search's own `site:`, `lang:` and `type:` (as it typed them). */
export type ReportFilters = { readonly site?: string | undefined; readonly lang?: string | undefined; readonly type?: string | undefined };

/** Which queries a query report lists: the most searched, those that found nothing, those with results and no click. */
export type QueryListing = 'top' | 'no-results' | 'no-clicks';

/** A query followed in one session by another (A, then B): how often, and how often each was clicked. */
export type RefinementReport = {
  readonly from: string;
  readonly to: string;
  readonly searches: number;
  /** Of these, A's search had a click. */
  readonly fromClicked: number;
  /** Of these, B's search had a click. */
  readonly toClicked: number;
};

/** One query's recent searches as their pages showed them: by position, what was shown there and clicked. */
export type QueryDetail = {
  readonly query: string;
  /** The searches read (the most recent, at most a bound). */
  readonly searches: number;
  readonly clicked: number;
  readonly positions: readonly { readonly position: number; readonly shown: number; readonly clicks: number }[];
  /** The URLs shown, the most clicked first: how often, at which mean position, how often clicked. */
  readonly urls: readonly { readonly url: string; readonly shown: number; readonly meanPosition: number; readonly clicks: number }[];
};

/** A synonym the log suggests: searches of `from` without a click, followed in their session by `to`, clicked. */
export type SynonymSuggestion = {
  readonly from: string;
  readonly to: string;
  /** Sessions that searched `from`, did not click, and went on to `to`. */
  readonly unclicked: number;
  /** Of the refinements, those whose `to` was clicked. */
  readonly toClicked: number;
  /** The synonym line that would say it (search.synonyms). */
  readonly line: string;
};
