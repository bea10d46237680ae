/**
 * What the crawl tells of auth scopes that do not apply: at its start, each `HOST:` scope that
 * covers none of the seeds' hosts; at its end, each scope that never applied while pages were sent
 * to its login page — a crawl that ends with nothing indexed says why, instead of exiting 0 in
 * silence. Each is told once per process.
 */
import { scopesCoveringNoSeed } from '../crawler/auth/coverage.ts';
import type { Log } from '../lib/log.ts';
import type { AuthScopeStatus } from '../model/index.ts';

/** At the start: the scopes (their `match` rules) that cover none of the seeds' hosts. */
export function warnScopesCoveringNoSeed(matches: readonly string[], seeds: readonly string[], log: Log): void {
  for (const s of scopesCoveringNoSeed(matches, seeds))
    log.warn(
      `auth scope ${s.rule} covers none of the seeds' hosts (${s.hosts.join(', ')}): its credentials go to none of them` +
        ' (a HOST: rule is matched against the host with its port and without it)',
    );
}

/** The scopes that never applied while pages were sent to their login page, each with what to tell. */
export function scopesNeverApplied(scopes: readonly AuthScopeStatus[]): { scope: string; message: string }[] {
  return scopes
    .filter((a) => a.requests === 0 && a.loginRedirectsOutside > 0)
    .map((a) => ({
      scope: a.scope,
      message:
        `${a.loginRedirectsOutside} page${a.loginRedirectsOutside === 1 ? ' was' : 's were'} sent to the login page of auth scope ${a.scope}, ` +
        `which never applied: its match covers none of their hosts (${a.hostsOutside.join(', ')}), so they were crawled without its credentials`,
    }));
}

/** At the end of a crawl (or of each run of a continuous one): tells each scope that never applied, once. */
export class AuthEndWarnings {
  private readonly told = new Set<string>();

  constructor(private readonly log: Log) {}

  tell(scopes: readonly AuthScopeStatus[]): void {
    for (const s of scopesNeverApplied(scopes)) {
      if (this.told.has(s.scope)) continue;
      this.told.add(s.scope);
      this.log.warn(s.message);
    }
  }
}
