/**
 * The URL filter chain (LARM's chain of responsibility), held as data: an ordered list of named
 * filters, each passing a candidate or rejecting it with a reason. Every rejection is counted by its
 * reason in the crawl statistics. Robots rules and the seen-set come later, in the frontier and the
 * crawler, because they need the network or the database.
 */
import type { Normalizer } from './normalize.ts';
import type { Scope } from './scope.ts';

export type Candidate = { readonly url: URL; readonly depth: number };

/** Why a URL was not queued. Stable strings: they are stored in the database and shown to users. */
export type RejectReason =
  | 'unparsable'
  | 'scheme'
  | 'credentials'
  | 'url-too-long'
  | 'out-of-scope'
  | 'too-deep'
  | 'useless-path'
  | 'host-limit'
  | 'repeated-path'
  | 'too-many-params'
  | 'param-too-long';

export type FilterVerdict = { readonly pass: true } | { readonly pass: false; readonly reason: RejectReason; readonly detail?: string };

export type UrlFilter = { readonly name: string; test(c: Candidate): FilterVerdict };

/** How raw links become queued URLs: a normalizer, then the filters in order. */
export type UrlPolicy = { readonly normalize: Normalizer; readonly filters: readonly UrlFilter[] };

const PASS: FilterVerdict = { pass: true };
const reject = (reason: RejectReason, detail: string): FilterVerdict => ({ pass: false, reason, detail });

/** The config's `limits` that the chain applies (config/schema.ts declares each, with its default). */
export type FilterLimits = {
  readonly maxUrlLength: number;
  readonly maxDepth: number;
  /** 0: no limit. */
  readonly maxPagesPerHost: number;
  readonly maxRepeatedSegments: number;
  readonly maxQueryParams: number;
  readonly maxParamLength: number;
};

/** A rejection's detail quotes a repeated segment up to this many characters: enough to recognize it, short in the stats. */
const MAX_QUOTED_SEGMENT = 40;

/** `urlsOfHost(host)`: how many URLs of the host the frontier holds (for the per-host cap). */
export function defaultFilters(scope: Scope, limits: FilterLimits, urlsOfHost: (host: string) => number = () => 0): UrlFilter[] {
  const { maxPagesPerHost: perHost, maxRepeatedSegments: repeats, maxQueryParams: params, maxParamLength: paramLength } = limits;
  return [
    {
      name: 'url-length',
      test: (c) => (c.url.href.length > limits.maxUrlLength ? reject('url-too-long', `${c.url.href.length} > ${limits.maxUrlLength}`) : PASS),
    },
    {
      name: 'scope',
      test: (c) => {
        const v = scope.check(c.url);
        return v.inScope ? PASS : reject('out-of-scope', v.rule);
      },
    },
    { name: 'depth', test: (c) => (c.depth > limits.maxDepth ? reject('too-deep', `depth ${c.depth} > ${limits.maxDepth}`) : PASS) },
    {
      // The sort views of an Apache directory listing (`?C=M;O=A`) repeat the listing endlessly.
      name: 'useless-path',
      test: (c) => (/^\?C=[NMSD](;|&)O=[AD]$/.test(c.url.search) ? reject('useless-path', 'directory listing sort view') : PASS),
    },
    {
      // Crawler traps: /a/b/a/b/a/b/… (relative links that resolve deeper and deeper).
      name: 'repeated-path',
      test: (c) => {
        const counts = new Map<string, number>();
        for (const seg of c.url.pathname.split('/')) {
          if (!seg) continue;
          const n = (counts.get(seg) ?? 0) + 1;
          if (n > repeats) return reject('repeated-path', `segment "${seg.slice(0, MAX_QUOTED_SEGMENT)}" repeated ${n} times`);
          counts.set(seg, n);
        }
        return PASS;
      },
    },
    {
      // Calendars and faceted search: endless combinations of parameters.
      name: 'query-params',
      test: (c) => {
        if (!c.url.search) return PASS;
        const pairs = c.url.search.slice(1).split('&');
        if (pairs.length > params) return reject('too-many-params', `${pairs.length} parameters > ${params}`);
        const long = pairs.find((p) => p.length > paramLength);
        return long ? reject('param-too-long', `a parameter of ${long.length} characters > ${paramLength}`) : PASS;
      },
    },
    {
      name: 'host-limit',
      test: (c) => (perHost > 0 && urlsOfHost(c.url.host) >= perHost ? reject('host-limit', `${c.url.host} has ${perHost} URLs already`) : PASS),
    },
  ];
}

export type Admission =
  | { readonly ok: true; readonly url: string; readonly fetchUrl: string }
  | { readonly ok: false; readonly url: string; readonly reason: RejectReason; readonly detail?: string };

/** Normalizes `raw` (relative to `base`) and runs the filter chain over it. */
export function admit(policy: UrlPolicy, raw: string, depth: number, base?: string): Admission {
  const n = policy.normalize(raw, base);
  if (!n.ok) return { ok: false, url: raw, reason: n.reason };
  const url = new URL(n.url);
  for (const f of policy.filters) {
    const v = f.test({ url, depth });
    if (!v.pass) return { ok: false, url: n.url, reason: v.reason, ...(v.detail ? { detail: v.detail } : {}) };
  }
  return { ok: true, url: n.url, fetchUrl: n.fetchUrl };
}
