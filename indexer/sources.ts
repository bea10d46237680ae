/**
 * A page's source — its host, language, type and topics (a focused crawl's classes) — for the
 * query filters `site:`, `lang:`, `type:` and `topic:` and for the facets. The index keeps one small id per document (stats.ts): most pages of
 * a host share a language and a type, so the source dictionary stays small and a filter or a
 * facet is decided once per source, not once per document.
 */
import { hostMatches, type ParsedQuery } from './query.ts';
import type { Source, TermStats } from './stats.ts';

/** What the index is told of a page to know its source. */
export type SourceFields = { readonly url: string; readonly lang?: string; readonly contentType?: string; readonly topic?: { readonly classes: readonly { readonly name: string }[] } };

export function sourceOf(page: SourceFields): Source {
  return { host: hostOf(page.url), lang: languageOf(page.lang), type: typeOf(page.contentType), topics: topicsOf(page.topic) };
}

/** A page's classes as one key: lowercase, sorted, space-separated (class names hold no spaces). */
function topicsOf(topic: SourceFields['topic']): string {
  return topic ? [...new Set(topic.classes.map((c) => c.name.toLowerCase()))].sort().join(' ') : '';
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}

/** The primary subtag of a language tag ("en-US" → "en"); '' when there is none or it is not one. */
export function languageOf(tag: string | undefined): string {
  const primary = (tag ?? '').trim().toLowerCase().split(/[-_]/)[0]!;
  return /^[a-z]{2,3}$/.test(primary) ? primary : '';
}

/** A short name for a content type: `html`, `text` (plain), else its subtype (`pdf`). */
export function typeOf(contentType: string | undefined): string {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  if (type === '' || type === 'text/html' || type === 'application/xhtml+xml') return 'html';
  if (type === 'text/plain') return 'text';
  return type.slice(type.indexOf('/') + 1).replace(/^x-/, '');
}

/**
 * A test of a document for the query's site:, lang: and type: filters (each kind: any of its
 * values; all kinds given must hold), or undefined when the query has none.
 */
export function sourceFilter(stats: TermStats, q: ParsedQuery): ((docId: number) => boolean) | undefined {
  if (!q.sites.length && !q.langs.length && !q.types.length && !q.topics.length) return undefined;
  const sites = q.sites.map((s) => s.replace(/:\d+$/, ''));
  const verdicts = new Map<number, boolean>();
  return (docId) => {
    const id = stats.sourceOf(docId);
    if (id < 0) return false;
    let ok = verdicts.get(id);
    if (ok === undefined) {
      const s = stats.source(id);
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
export type Facets = { readonly host: readonly FacetValue[]; readonly lang: readonly FacetValue[]; readonly type: readonly FacetValue[]; readonly topic: readonly FacetValue[] };

/**
 * Result counts by host, language, type and topic, most first (at most `limit` values each;
 * unknown languages left out). A page with several classes counts under each.
 */
export function countFacets(stats: TermStats, ids: ArrayLike<number>, limit: number): Facets {
  // Counted by source id (a typed array: a common word has tens of thousands of results), then by value.
  const counts = new Int32Array(stats.sourceCount);
  for (let i = 0; i < ids.length; i++) {
    const s = stats.sourceOf(ids[i]!);
    if (s >= 0) counts[s]!++;
  }
  const by = (field: keyof Source): FacetValue[] => {
    const totals = new Map<string, number>();
    counts.forEach((n, s) => {
      const value = stats.source(s)[field];
      if (n > 0 && value) for (const v of field === 'topics' ? value.split(' ') : [value]) totals.set(v, (totals.get(v) ?? 0) + n);
    });
    return [...totals]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, limit)
      .map(([value, count]) => ({ value, count }));
  };
  return { host: by('host'), lang: by('lang'), type: by('type'), topic: by('topics') };
}
