/**
 * The search's levers in the store (model/curation.ts): the synonyms and the rules as they are now,
 * and the changes that made them. In the store, so that every search node of a cluster reads one
 * set: each polls `version()` — a cheap read — and reloads when it moved.
 */
import type { CurationChange, SearchRules } from '../model/index.ts';

/**
 * Changes kept a lever (synonyms, rules), at most: the history is for seeing who changed what lately
 * and going back a step, not an archive — each change holds the whole set (up to MAX_SYNONYMS lines
 * or MAX_RULES rules), so an unbounded history could outgrow the crawl's own tables.
 */
export const MAX_CURATION_HISTORY = 1_000;

export interface CurationStore {
  /**
   * Whether the levers can be changed: not on a SQLite file opened read-only; always on PostgreSQL,
   * where a search node opens the store read-only for the crawl's state and still writes the levers.
   */
  readonly writable: boolean;
  /** The synonyms' lines as last put, and when (undefined: never put in this store). */
  synonyms(): Promise<{ readonly lines: readonly string[]; readonly at: number } | undefined>;
  /** The rules as last put, and when (undefined: never put in this store). */
  rules(): Promise<{ readonly rules: SearchRules; readonly at: number } | undefined>;
  /**
   * Makes `change.value` the current synonyms or rules and appends the change to the history, in one
   * transaction, dropping the oldest beyond MAX_CURATION_HISTORY for that lever. A value that does
   * not fit `change.what` (rules for synonyms, lines for rules) is a TypeError.
   */
  put(change: CurationChange): Promise<void>;
  /** The latest changes, newest first, at most `limit`: of both levers, or of `what` only. */
  history(limit: number, what?: CurationChange['what']): Promise<CurationChange[]>;
  /** A number that grows with every put, committed in order (0: none yet): what search nodes poll. */
  version(): Promise<number>;
}

/** The value of a change checked against what it changes (put's TypeError), as JSON to store. */
export function curationValue(change: CurationChange): string {
  const lines = Array.isArray(change.value);
  if (lines !== (change.what === 'synonyms'))
    throw new TypeError(`a change to the ${change.what} holds ${change.what === 'synonyms' ? 'lines' : 'rules ({queries, prefixes})'}`);
  return JSON.stringify(change.value);
}
