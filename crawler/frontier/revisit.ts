/**
 * When to fetch a page again. Each page keeps its own revisit interval, which follows how often the
 * page really changes: a revisit that finds it changed halves the interval, one that finds it the
 * same doubles it, always within [minMs, maxMs]. So a page that changes daily settles near a day,
 * and a page that never changes drifts to the maximum. The first interval comes from what the
 * server says about the page, when it says something:
 *
 *   - `Cache-Control: max-age` (or `Expires` − `Date`): the server's own guess of its freshness;
 *   - else the age of the page (`Last-Modified`, or a sitemap's `<lastmod>`): a tenth of it, the
 *     heuristic freshness of HTTP caches (RFC 9111 §4.2.2): a page untouched for a year will
 *     hardly change tomorrow, one edited an hour ago may well;
 *   - else the geometric mean of the bounds: the middle of the range on the scale intervals move on.
 *
 * A sitemap that later lists the page with a newer `<lastmod>` makes it due at once (the frontier
 * does that when it reads the sitemap).
 */

import { parseDate } from '../../lib/date.ts';

export type RevisitPolicy = {
  readonly minMs: number;
  readonly maxMs: number;
};

/** What a fetch found, as far as the schedule cares. */
export type RevisitChange = 'new' | 'changed' | 'unchanged';

/** What the server said about the page's freshness, raw. */
export type FreshnessHints = {
  readonly cacheControl?: string | undefined;
  readonly expires?: string | undefined;
  readonly date?: string | undefined;
  readonly lastModified?: string | undefined;
  /** A sitemap's `<lastmod>` for the page. */
  readonly lastmod?: string | null | undefined;
};

/** How much one revisit moves the interval: ×2 when unchanged, ÷2 when changed. */
const FACTOR = 2;
/** The share of a page's age taken as its freshness (HTTP's heuristic freshness). */
const AGE_SHARE = 0.1;

export function clampInterval(policy: RevisitPolicy, ms: number): number {
  return Math.round(Math.min(policy.maxMs, Math.max(policy.minMs, ms)));
}

/** The interval after a fetch: `previous` is the page's interval before it, if it had one. */
export function nextInterval(policy: RevisitPolicy, change: RevisitChange, previous: number | null | undefined, hints: FreshnessHints, now: number): number {
  if (change === 'new' || !previous) return clampInterval(policy, hintedInterval(hints, now) ?? Math.sqrt(policy.minMs * policy.maxMs));
  return clampInterval(policy, change === 'changed' ? previous / FACTOR : previous * FACTOR);
}

/** The freshness the server's headers (or a sitemap) suggest, in ms, or undefined when they say nothing. */
export function hintedInterval(h: FreshnessHints, now: number): number | undefined {
  const cc = h.cacheControl?.toLowerCase() ?? '';
  // `immutable` promises the page will not change; `no-cache`/`no-store` say nothing of how often it does.
  if (/(^|[,\s])immutable\b/.test(cc)) return Number.POSITIVE_INFINITY;
  const maxAge = /(?:^|[,\s])(?:s-maxage|max-age)\s*=\s*"?(\d+)/.exec(cc);
  if (maxAge && Number(maxAge[1]) > 0) return Number(maxAge[1]) * 1000;
  const expires = parseDate(h.expires);
  if (expires !== undefined) {
    const served = parseDate(h.date) ?? now;
    if (expires > served) return expires - served;
  }
  const modified = parseDate(h.lastModified) ?? parseDate(h.lastmod);
  if (modified !== undefined && modified < now) return (now - modified) * AGE_SHARE;
  return undefined;
}
