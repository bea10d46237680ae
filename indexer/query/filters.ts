/**
 * The query filters `site:`, `lang:`, `type:` and `topic:` and the facets, decided once per
 * source (ingest/source.ts), not once per document.
 */
import { hostMatches, type ParsedQuery } from './parse.ts';
import type { Source } from '../ingest/source.ts';
import type { IndexedDocuments, OwnIndex } from '../structures/index-view.ts';

/** No per-id array: every id asks the view. */
const NO_IDS = new Int32Array(0);

/**
 * A test of a document for the query's site:, lang: and type: filters (each kind: any of its
 * values; all kinds given must hold), or undefined when the query has none.
 */
export function sourceFilter(docs: IndexedDocuments, q: ParsedQuery): ((docId: number) => boolean) | undefined {
  if (!q.sites.length && !q.langs.length && !q.types.length && !q.topics.length) return undefined;
  const sites = q.sites.map((s) => s.replace(/:\d+$/, ''));
  const verdicts = new Map<number, boolean>();
  return (docId) => {
    const id = docs.sourceOf(docId);
    if (id < 0) return false;
    let ok = verdicts.get(id);
    if (ok === undefined) {
      const s = docs.source(id);
      const host = s.host.replace(/:\d+$/, '');
      ok =
        (!sites.length || sites.some((site) => hostMatches(host, site))) &&
        (!q.langs.length || q.langs.includes(s.lang)) &&
        (!q.types.length || q.types.includes(s.type)) &&
        (!q.topics.length || (s.topics !== '' && s.topics.split(' ').some((t) => q.topics.includes(t))));
      verdicts.set(id, ok);
    }
    return ok;
  };
}

export type FacetValue = { readonly value: string; readonly count: number };
export type Facets = {
  readonly host: readonly FacetValue[];
  readonly lang: readonly FacetValue[];
  readonly type: readonly FacetValue[];
  readonly topic: readonly FacetValue[];
};

/**
 * Result counts by host, language, type and topic, most first (at most `limit` values each;
 * unknown languages left out). A page with several classes counts under each.
 */
export function countFacets(docs: OwnIndex, ids: ArrayLike<number>, limit: number): Facets {
  // Counted by source id (a typed array: a common word has tens of thousands of results), then by value.
  const counts = new Int32Array(docs.sourceCount);
  // (Dense ids read the per-id array in place while the view is fresh; others, and all after an
  // update straddled the query, ask the view.)
  const source = docs.fresh ? docs.byId().source : NO_IDS;
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const s = id < source.length ? source[id]! : docs.sourceOf(id);
    if (s >= 0) counts[s]!++;
  }
  const bySource: [Source, number][] = [];
  counts.forEach((n, s) => {
    bySource.push([docs.source(s), n]);
  });
  return facetsOf(bySource, limit);
}

/** The facets of results counted by source (ingest/source.ts): each value's count, most first (ties: by value), at most `limit`. */
export function facetsOf(bySource: readonly (readonly [Source, number])[], limit: number): Facets {
  const by = (field: keyof Source): FacetValue[] => {
    const totals = new Map<string, number>();
    for (const [source, n] of bySource) {
      const value = source[field];
      if (n > 0 && value) for (const v of field === 'topics' ? value.split(' ') : [value]) totals.set(v, (totals.get(v) ?? 0) + n);
    }
    return [...totals]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, limit)
      .map(([value, count]) => ({ value, count }));
  };
  return { host: by('host'), lang: by('lang'), type: by('type'), topic: by('topics') };
}
