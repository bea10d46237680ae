/**
 * Scope rules as in Combine: `HOST:regex` is matched against the host — with its port, if the URL
 * has one, and without it: `HOST:^wiki\.intra$` covers `wiki.intra:8443` (a site that answers on a
 * port of its own is still that host), `HOST:^wiki\.intra:8443$` that port alone; `URL:regex` against
 * the whole normalized URL. Allow rules say what may be crawled (default: exactly the seeds' hosts,
 * each with its port or none); exclude rules win over allow rules. The same rules pick auth scopes
 * and render rules.
 */

export type ScopeRule = {
  readonly kind: 'HOST' | 'URL';
  readonly pattern: RegExp;
  readonly source: string;
  /** A HOST: rule matched against the host as it is (with its port, or none) only: the default rules, made from the seeds' hosts. */
  readonly exact?: boolean;
};

export type ScopeVerdict = { readonly inScope: true } | { readonly inScope: false; readonly rule: string };

export type Scope = {
  readonly allow: readonly ScopeRule[];
  readonly exclude: readonly ScopeRule[];
  check(url: URL): ScopeVerdict;
};

export function parseScopeRule(source: string): ScopeRule {
  const m = /^(HOST|URL):(.+)$/.exec(source);
  if (!m) throw new Error(`scope rule "${source}" must start with HOST: or URL:`);
  return { kind: m[1] as 'HOST' | 'URL', pattern: new RegExp(m[2]!, 'i'), source };
}

/** Whether a rule matches a URL: `HOST:` the host with its port or without it, `URL:` the whole URL. */
export function ruleMatches(rule: ScopeRule, url: URL): boolean {
  if (rule.kind === 'URL') return rule.pattern.test(url.href);
  return rule.pattern.test(url.host) || (!rule.exact && url.port !== '' && rule.pattern.test(url.hostname));
}

/** The default allow rules: exactly the seeds' hosts (a seed on port 80 does not bring in the host's other ports). */
export function seedHostRules(seeds: readonly string[]): ScopeRule[] {
  const hosts = [...new Set(seeds.map((s) => new URL(s).host))];
  return hosts.map((h) => ({ ...parseScopeRule(`HOST:^${h.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`), exact: true }));
}

export function buildScope(opts: { allow: readonly string[]; exclude: readonly string[]; seeds: readonly string[] }): Scope {
  const allow = opts.allow.length ? opts.allow.map(parseScopeRule) : seedHostRules(opts.seeds);
  const exclude = opts.exclude.map(parseScopeRule);
  const matches = ruleMatches;
  return {
    allow,
    exclude,
    check(url) {
      const excluded = exclude.find((r) => matches(r, url));
      if (excluded) return { inScope: false, rule: `exclude ${excluded.source}` };
      if (!allow.some((r) => matches(r, url))) return { inScope: false, rule: 'not allowed by any scope.allow rule' };
      return { inScope: true };
    },
  };
}
