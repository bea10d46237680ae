/**
 * URL normalization: the normalized form is a URL's identity in the frontier, the seen-set and the
 * index (LARM used it like stemming), while a milder form is what gets fetched. A pure function
 * with a typed result, never the input back.
 *
 * WHATWG URL parsing already lowercases scheme and host, converts IDN hosts to punycode, drops
 * default ports, resolves `.`/`..` segments and escapes spaces and non-ASCII as UTF-8. On top of it,
 * both forms drop the fragment, `;jsessionid=` path parameters, collapse `//` in the path, make
 * percent-escapes canonical and, as configured (the config's `urls`, whose defaults drop session-id
 * and tracking parameters and collapse repeated ones), drop parameters and collapse repeated ones.
 * The identity alone may also (by configuration) apply host aliases, drop `index.*`/`default.*` file
 * names and lowercase the path: those can change what a server answers, so they are never applied
 * to the fetched form.
 */
import { hostAliasMapper, type HostAlias } from './aliases.ts';

export type NormalizeResult =
  | { readonly ok: true; readonly url: string; readonly fetchUrl: string }
  | { readonly ok: false; readonly reason: 'unparsable' | 'scheme' | 'credentials' };

/** How URLs are normalized: the config's `urls` section (appliance/wiring.ts turns it into these). */
export type NormalizeOptions = {
  /** `/docs/index.html` → `/docs/` (identity only). */
  readonly dropIndexFiles: boolean;
  /** `/Docs/A` → `/docs/a` (identity only; for case-insensitive servers). */
  readonly lowercasePath: boolean;
  /** Query parameters whose names match one of these are dropped (both forms). */
  readonly stripParams: readonly RegExp[];
  /** `?a=1&a=1` → `?a=1` (both forms). */
  readonly collapseRepeatedParams: boolean;
  /** Applied to the identity's host. */
  readonly hostAliases: readonly HostAlias[];
};

export type Normalizer = (input: string, base?: string) => NormalizeResult;

const UNRESERVED = /[A-Za-z0-9\-._~]/;
const INDEX_FILE = /\/(index|default)\.[a-z0-9]{1,8}$/i;

/**
 * Host aliases are applied again to their own result, up to this many times: enough for any chain
 * a config writes (each kind of rule applies once a round), bounded against rules that feed each
 * other forever (synonym(a)=b, synonym(b)=a).
 */
const MAX_ALIAS_ROUNDS = 5;

/** The normalizer of these options (the config's `urls` section: appliance/wiring.ts). */
export function createNormalizer(o: NormalizeOptions): Normalizer {
  const alias = hostAliasMapper(o.hostAliases);
  return (input, base) => {
    let u: URL;
    try {
      u = base === undefined ? new URL(input.trim()) : new URL(input.trim(), base);
    } catch {
      return { ok: false, reason: 'unparsable' };
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return { ok: false, reason: 'scheme' };
    if (u.username || u.password) return { ok: false, reason: 'credentials' };
    u.hash = '';
    // `;jsessionid=…` path parameters (Java servlets) are session ids too.
    u.pathname = canonicalEscapes(u.pathname.replace(/;jsessionid=[^/?#]*/gi, '').replace(/\/{2,}/g, '/'));
    if (u.search) u.search = cleanQuery(u.search.slice(1), o);
    const fetchUrl = u.href;

    const id = new URL(fetchUrl);
    // Aliases are applied until nothing changes (bounded), so normalizing twice equals once.
    for (let i = 0; i < MAX_ALIAS_ROUNDS; i++) {
      const next = alias(id.hostname);
      if (next === id.hostname) break;
      id.hostname = next;
    }
    if (o.lowercasePath) id.pathname = canonicalEscapes(id.pathname.toLowerCase());
    if (o.dropIndexFiles) id.pathname = id.pathname.replace(INDEX_FILE, '/');
    return { ok: true, url: id.href, fetchUrl };
  };
}

function cleanQuery(query: string, o: NormalizeOptions): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  for (const pair of query.split('&')) {
    if (pair === '') continue;
    const name = decodeSafe(pair.split('=')[0] ?? '');
    if (o.stripParams.some((p) => p.test(name))) continue;
    const canonical = canonicalEscapes(pair);
    if (o.collapseRepeatedParams) {
      if (seen.has(canonical)) continue;
      seen.add(canonical);
    }
    kept.push(canonical);
  }
  return kept.length ? `?${kept.join('&')}` : '';
}

/** Uppercases percent-escapes and decodes the ones that stand for unreserved characters (also robots.txt rules': crawler/robots/rules.ts). */
export function canonicalEscapes(s: string): string {
  // (A loop, not a replace with a callback per escape: a page's links may hold tens of thousands
  // of escapes — rustdoc's error index links 1,040 playground URLs of code — and this runs on the
  // main thread.)
  let i = s.indexOf('%');
  if (i < 0) return s;
  let out = '';
  let from = 0;
  while (i >= 0 && i + 2 < s.length) {
    const hi = hexValue(s.charCodeAt(i + 1));
    const lo = hexValue(s.charCodeAt(i + 2));
    if (hi < 0 || lo < 0) {
      i = s.indexOf('%', i + 1);
      continue;
    }
    const code = hi * 16 + lo;
    out += s.slice(from, i) + (IS_UNRESERVED[code] ? String.fromCharCode(code) : `%${HEX_DIGITS[hi]}${HEX_DIGITS[lo]}`);
    from = i + 3;
    i = s.indexOf('%', from);
  }
  return from === 0 ? s : out + s.slice(from);
}

const HEX_DIGITS = '0123456789ABCDEF';
/** Which byte values are unreserved characters (RFC 3986: letters, digits, - . _ ~). */
const IS_UNRESERVED = Uint8Array.from({ length: 256 }, (_, c) => (UNRESERVED.test(String.fromCharCode(c)) ? 1 : 0));

/** The value of a hexadecimal digit's char code, or -1. */
function hexValue(c: number): number {
  if (c >= 48 && c <= 57) return c - 48;
  const l = c | 0x20;
  return l >= 97 && l <= 102 ? l - 87 : -1;
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
