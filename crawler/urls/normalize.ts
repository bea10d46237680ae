/**
 * URL normalization: the normalized form is a URL's identity in the frontier, the seen-set and the
 * index (LARM used it like stemming). A pure function with a typed result, never the input back.
 *
 * WHATWG URL parsing already lowercases scheme and host, converts IDN hosts to punycode, drops
 * default ports, resolves `.`/`..` segments and escapes spaces and non-ASCII as UTF-8. On top of it
 * we drop the fragment, collapse `//` in the path, make percent-escapes canonical and drop
 * session-id and tracking parameters.
 */

export type NormalizeResult =
  | { readonly ok: true; readonly url: string }
  | { readonly ok: false; readonly reason: 'unparsable' | 'scheme' | 'credentials' };

/** Query parameters that never change what a page says (session ids, campaign tracking). */
const DROPPED_PARAMS = /^(jsessionid|phpsessid|sid|sessionid|utm_[a-z_]+)$/i;

const UNRESERVED = /[A-Za-z0-9\-._~]/;

export function normalizeUrl(input: string, base?: string): NormalizeResult {
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
  const path = u.pathname.replace(/;jsessionid=[^/?#]*/gi, '').replace(/\/{2,}/g, '/');
  u.pathname = canonicalEscapes(path);
  if (u.search) {
    const kept = u.search
      .slice(1)
      .split('&')
      .filter((pair) => pair !== '' && !DROPPED_PARAMS.test(decodeSafe(pair.split('=')[0] ?? '')));
    u.search = kept.length ? `?${kept.map(canonicalEscapes).join('&')}` : '';
  }
  return { ok: true, url: u.href };
}

/** Uppercases percent-escapes and decodes the ones that stand for unreserved characters. */
function canonicalEscapes(s: string): string {
  return s.replace(/%([0-9a-fA-F]{2})/g, (_, hex: string) => {
    const ch = String.fromCharCode(parseInt(hex, 16));
    return UNRESERVED.test(ch) ? ch : `%${hex.toUpperCase()}`;
  });
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
