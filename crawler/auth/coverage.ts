/**
 * Whether an auth scope can apply to a crawl at all, told before it starts: a `HOST:` scope whose
 * rule covers none of the seeds' hosts sends its credentials to no seed — the crawl would be sent to
 * the login page and end with nothing (issue 35: `HOST:^wiki\.intra$` while the site answered at
 * `wiki.intra:8443`, before HOST: rules matched a host without its port). A `URL:` scope may cover
 * only pages deeper than the seeds, so it is judged by the pages the crawl meets instead (the
 * AuthService counts what each scope covered; appliance/auth-warnings.ts tells at the end).
 * Apart from auth.ts, which loads tough-cookie: this needs the scope rules only.
 */
import { parseScopeRule, ruleMatches } from '../urls/scope.ts';

/** Hosts named at most in a warning. */
const HOSTS_NAMED = 5;

/** A scope that covers none of the seeds' hosts: its rule, and those hosts as Trawl sees them (with their ports). */
export type UncoveredScope = { readonly rule: string; readonly hosts: readonly string[] };

/** The `HOST:` scopes (their `match` rules) that cover none of the seeds' hosts. */
export function scopesCoveringNoSeed(matches: readonly string[], seeds: readonly string[]): UncoveredScope[] {
  const urls = seeds.flatMap((s) => {
    try {
      return [new URL(s)];
    } catch {
      return [];
    }
  });
  if (!urls.length) return [];
  const hosts = [...new Set(urls.map((u) => u.host))].slice(0, HOSTS_NAMED);
  return matches
    .map((m) => parseScopeRule(m))
    .filter((rule) => rule.kind === 'HOST' && !urls.some((u) => ruleMatches(rule, u)))
    .map((rule) => ({ rule: rule.source, hosts }));
}
