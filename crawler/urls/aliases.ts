/**
 * Host aliases (LARM's host resolver, Combine's serveralias), so that the names of one site
 * collapse into one host:
 *   startsWith(www.)=            strip (or replace) a prefix
 *   endsWith(.a.org)=.b.org      replace a suffix
 *   synonym(mirror.org)=main.org replace a whole host name
 * Rules of each kind are applied in that order (all startsWith, then endsWith, then synonym).
 */

export type HostAlias = { readonly kind: 'startsWith' | 'endsWith' | 'synonym'; readonly from: string; readonly to: string; readonly source: string };

const ORDER: Record<HostAlias['kind'], number> = { startsWith: 0, endsWith: 1, synonym: 2 };

/** Parses one rule; throws an Error saying what is wrong. */
export function parseHostAlias(source: string): HostAlias {
  const m = /^\s*(startsWith|endsWith|synonym)\(([^()]*)\)=(.*?)\s*$/.exec(source);
  if (!m) throw new Error(`"${source}" is not a host alias; write startsWith(www.)=, endsWith(.a.org)=.b.org or synonym(mirror.org)=main.org`);
  const kind = m[1] as HostAlias['kind'];
  const from = m[2]!.trim().toLowerCase();
  const to = m[3]!.trim().toLowerCase();
  if (!from) throw new Error(`"${source}": the part in parentheses is empty`);
  if (kind === 'synonym' && !to) throw new Error(`"${source}": a synonym needs the host it stands for after =`);
  return { kind, from, to, source };
}

/** Returns a function that maps a host name through the rules. */
export function hostAliasMapper(rules: readonly HostAlias[]): (hostname: string) => string {
  const sorted = [...rules].sort((a, b) => ORDER[a.kind] - ORDER[b.kind]);
  if (!sorted.length) return (h) => h;
  return (hostname) => {
    let h = hostname;
    for (const r of sorted) {
      if (r.kind === 'startsWith' && h.startsWith(r.from) && h.length > r.from.length) h = r.to + h.slice(r.from.length);
      else if (r.kind === 'endsWith' && h.endsWith(r.from) && h.length > r.from.length) h = h.slice(0, h.length - r.from.length) + r.to;
      else if (r.kind === 'synonym' && h === r.from) h = r.to;
    }
    return h;
  };
}
