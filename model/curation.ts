/**
 * The levers a site owner pulls on the search (the console, `search.synonyms`, `PUT /api/synonyms`
 * and `PUT /api/rules`): synonyms, and rules that pin, hide, boost or bury results. Kept in the
 * store, so that every search node of a cluster reads one set; applied to the next search at once,
 * with no re-indexing.
 */

/**
 * A synonym line as the config and the API take it, parsed:
 * - a group, `k8s, kubernetes`: each word (or quoted phrase) stands for every other;
 * - a one-way rule, `kill => terminate, cancel`: a query's `kill` also finds `terminate` and `cancel`,
 *   not the other way round;
 * - phrases, `"long running" => statement_timeout`: several words matched together.
 * Each side's entries are lower-cased, their spaces collapsed.
 */
export type SynonymRule = {
  readonly line: string;
  /** What a query says (a group: every member). */
  readonly from: readonly string[];
  /** What it also finds (a group: every member; each member also finds the others). */
  readonly to: readonly string[];
  readonly oneWay: boolean;
};

/** What a rule applies to: a query exactly (as understood), or every query holding all these words. */
export type RuleMatch = { readonly query: string } | { readonly contains: readonly string[] };

/** Pin URLs on top (in this order) and hide URLs, for the queries a rule matches. */
export type QueryRule = {
  readonly match: RuleMatch;
  /** Shown first, in this order, when indexed (at most MAX_PINS). */
  readonly pin: readonly string[];
  /** Never shown for these queries. */
  readonly hide: readonly string[];
};

/** For every query: the pages under a URL prefix (a section of the site) weigh `factor` times (above 1 boosts, below buries). */
export type PrefixRule = { readonly prefix: string; readonly factor: number };

/** The rules `PUT /api/rules` takes and `GET /api/rules` answers. */
export type SearchRules = { readonly queries: readonly QueryRule[]; readonly prefixes: readonly PrefixRule[] };

/** One change to the synonyms or the rules: when, by which token (a fingerprint, never the token), and what they became. */
export type CurationChange = {
  readonly at: number;
  readonly what: 'synonyms' | 'rules';
  /** Who made it: `config` (the config file's synonyms at start), or a short fingerprint of the admin token or login. */
  readonly by: string;
  /** The synonyms' lines, or the rules, as they became. */
  readonly value: readonly string[] | SearchRules;
};

/** Pins per rule, at most: a page of results is ten. */
export const MAX_PINS = 10;
/** Synonym lines and rules, at most: each is checked on every search. */
export const MAX_SYNONYMS = 10_000;
export const MAX_RULES = 10_000;
/** A prefix rule's factor is within these bounds: a bury is not a hide, a boost not a pin. */
export const PREFIX_FACTOR_BOUNDS = { min: 0.1, max: 10 } as const;

/** The normal form of a synonym entry or a rule's query: lower case, spaces collapsed, trimmed. */
export const normalQuery = (s: string): string => s.toLowerCase().replace(/\s+/g, ' ').trim();

/**
 * A synonym line parsed, or why it cannot be: `a, b, c` (a group), `a, b => c, d` (one way), an
 * entry of several words in double quotes (or unquoted: `long running => statement_timeout`).
 */
export function parseSynonym(line: string): SynonymRule | { readonly error: string } {
  const arrows = line.split('=>');
  if (arrows.length > 2) return { error: `synonyms "${line}": one "=>" at most` };
  const side = (s: string): string[] | string => {
    const entries: string[] = [];
    for (const raw of s.split(',')) {
      const quoted = /^\s*"([^"]*)"\s*$/.exec(raw);
      if (!quoted && raw.includes('"')) return `synonyms "${line}": a quote opens and closes an entry ("long running")`;
      const entry = normalQuery(quoted ? quoted[1]! : raw);
      if (!entry) return `synonyms "${line}": an empty entry (two commas, or a comma at an end)`;
      if (!entries.includes(entry)) entries.push(entry);
    }
    return entries;
  };
  const from = side(arrows[0]!);
  if (typeof from === 'string') return { error: from };
  if (arrows.length === 1) {
    if (from.length < 2) return { error: `synonyms "${line}": a group has two entries or more ("k8s, kubernetes"), a rule an arrow ("kill => terminate")` };
    return { line, from, to: from, oneWay: false };
  }
  const to = side(arrows[1]!);
  if (typeof to === 'string') return { error: to };
  const also = to.filter((t) => !from.includes(t));
  if (!also.length) return { error: `synonyms "${line}": the right side adds nothing to the left` };
  return { line, from, to: also, oneWay: true };
}
