/**
 * HTTP Digest access authentication (RFC 7616), the client's side: read the server's challenge
 * from WWW-Authenticate, answer it in Authorization. MD5 and SHA-256 (and their -sess forms), qop
 * "auth" (or none, as RFC 2069 servers want); "auth-int" is not offered by the servers people run
 * and is not supported. The nonce count goes up with each request answered with one challenge.
 */
import { createHash, randomBytes } from 'node:crypto';

export type DigestChallenge = {
  readonly realm: string;
  readonly nonce: string;
  readonly opaque?: string;
  readonly algorithm: 'MD5' | 'SHA-256' | 'MD5-sess' | 'SHA-256-sess';
  readonly qop?: 'auth';
  readonly userhash: boolean;
};

/**
 * The strongest Digest challenge a WWW-Authenticate header (or several, joined by commas, as
 * Node gives them) offers that this client can answer; undefined when there is none.
 */
export function parseDigestChallenge(header: string | undefined): DigestChallenge | undefined {
  if (!header) return undefined;
  const found: DigestChallenge[] = [];
  for (const part of header.split(/(?=\bDigest\s)/i)) {
    const m = /^\s*Digest\s+(.*)$/is.exec(part);
    if (!m) continue;
    const p = params(m[1]!);
    const algorithm = (p.algorithm ?? 'MD5').toUpperCase();
    const alg = ({ MD5: 'MD5', 'SHA-256': 'SHA-256', 'MD5-SESS': 'MD5-sess', 'SHA-256-SESS': 'SHA-256-sess' } as const)[algorithm as 'MD5'];
    if (!alg || !p.realm || !p.nonce) continue;
    const qops = (p.qop ?? '').split(',').map((q) => q.trim().toLowerCase());
    if (p.qop !== undefined && !qops.includes('auth')) continue;
    found.push({
      realm: p.realm,
      nonce: p.nonce,
      algorithm: alg,
      userhash: p.userhash?.toLowerCase() === 'true',
      ...(p.opaque !== undefined ? { opaque: p.opaque } : {}),
      ...(p.qop !== undefined ? { qop: 'auth' as const } : {}),
    });
  }
  return found.find((c) => c.algorithm.startsWith('SHA-256')) ?? found[0];
}

/** The Authorization header that answers `c` for a request. `nc`: the nonce count (from 1). */
export function digestAuthorization(
  c: DigestChallenge,
  o: { username: string; password: string; method: string; uri: string; nc: number; cnonce?: string },
): string {
  const h = (s: string) =>
    createHash(c.algorithm.startsWith('SHA-256') ? 'sha256' : 'md5')
      .update(s)
      .digest('hex');
  const cnonce = o.cnonce ?? randomBytes(12).toString('hex');
  const nc = o.nc.toString(16).padStart(8, '0');
  let ha1 = h(`${o.username}:${c.realm}:${o.password}`);
  if (c.algorithm.endsWith('-sess')) ha1 = h(`${ha1}:${c.nonce}:${cnonce}`);
  const ha2 = h(`${o.method}:${o.uri}`);
  const response = c.qop ? h(`${ha1}:${c.nonce}:${nc}:${cnonce}:${c.qop}:${ha2}`) : h(`${ha1}:${c.nonce}:${ha2}`);
  const username = c.userhash ? h(`${o.username}:${c.realm}`) : o.username;
  const fields = [
    `username="${quote(username)}"`,
    `realm="${quote(c.realm)}"`,
    `nonce="${quote(c.nonce)}"`,
    `uri="${quote(o.uri)}"`,
    `algorithm=${c.algorithm}`,
    `response="${response}"`,
    ...(c.opaque !== undefined ? [`opaque="${quote(c.opaque)}"`] : []),
    ...(c.qop ? [`qop=${c.qop}`, `nc=${nc}`, `cnonce="${cnonce}"`] : []),
    ...(c.userhash ? ['userhash=true'] : []),
  ];
  return `Digest ${fields.join(', ')}`;
}

/** `a=b, c="d, e"` → {a: 'b', c: 'd, e'} (names lower-cased). */
function params(s: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /([a-zA-Z0-9_-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))/g;
  for (let m = re.exec(s); m; m = re.exec(s)) out[m[1]!.toLowerCase()] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : m[3]!;
  return out;
}

function quote(s: string): string {
  return s.replace(/["\\]/g, '\\$&');
}
