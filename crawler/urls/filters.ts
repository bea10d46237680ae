/**
 * The URL filter chain (LARM's chain of responsibility), held as data: an ordered list of named
 * filters, each passing a candidate or rejecting it with a reason. Every rejection is counted by its
 * reason in the crawl statistics. Robots rules and the seen-set are applied later, by the frontier,
 * because they need state.
 */
import { normalizeUrl } from './normalize.ts';
import type { Scope } from './scope.ts';

export type Candidate = { readonly url: URL; readonly depth: number };

/** Why a URL was not queued. Stable strings: they are stored in the database and shown to users. */
export type RejectReason = 'unparsable' | 'scheme' | 'credentials' | 'url-too-long' | 'out-of-scope' | 'too-deep' | 'useless-path';

export type FilterVerdict = { readonly pass: true } | { readonly pass: false; readonly reason: RejectReason; readonly detail?: string };

export type UrlFilter = { readonly name: string; test(c: Candidate): FilterVerdict };

const PASS: FilterVerdict = { pass: true };

export type FilterLimits = { readonly maxUrlLength: number; readonly maxDepth: number };

export function defaultFilters(scope: Scope, limits: FilterLimits): UrlFilter[] {
  return [
    {
      name: 'url-length',
      test: (c) => (c.url.href.length > limits.maxUrlLength ? { pass: false, reason: 'url-too-long', detail: `${c.url.href.length} > ${limits.maxUrlLength}` } : PASS),
    },
    {
      name: 'scope',
      test: (c) => {
        const v = scope.check(c.url);
        return v.inScope ? PASS : { pass: false, reason: 'out-of-scope', detail: v.rule };
      },
    },
    {
      name: 'depth',
      test: (c) => (c.depth > limits.maxDepth ? { pass: false, reason: 'too-deep', detail: `depth ${c.depth} > ${limits.maxDepth}` } : PASS),
    },
    {
      // The sort views of an Apache directory listing (`?C=M;O=A`) repeat the listing endlessly.
      name: 'useless-path',
      test: (c) => (/^\?C=[NMSD];O=[AD]$/.test(c.url.search) ? { pass: false, reason: 'useless-path', detail: 'directory listing sort view' } : PASS),
    },
  ];
}

export type Admission = { readonly ok: true; readonly url: string } | { readonly ok: false; readonly url: string; readonly reason: RejectReason; readonly detail?: string };

/** Normalizes `raw` (relative to `base`) and runs the filter chain over it. */
export function admit(filters: readonly UrlFilter[], raw: string, depth: number, base?: string): Admission {
  const n = normalizeUrl(raw, base);
  if (!n.ok) return { ok: false, url: raw, reason: n.reason };
  const url = new URL(n.url);
  for (const f of filters) {
    const v = f.test({ url, depth });
    if (!v.pass) return { ok: false, url: n.url, reason: v.reason, ...(v.detail ? { detail: v.detail } : {}) };
  }
  return { ok: true, url: n.url };
}
