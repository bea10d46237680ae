/**
 * HTTP Digest, the server side of RFC 7616 — strict, because it checks a client: qop=auth only, MD5
 * and SHA-256 offered (SHA-256 first, the server's preference), opaque echoed, the digest-uri equal
 * to the request-target, every nonce count used once, nonces going stale after `staleAfter` uses
 * (answered with `stale=true`, which a client should take as "retry with the new nonce", not as
 * wrong credentials); `userhash=true` accepted. Each refusal is kept with its reason (`refusals`),
 * for a test to read when a client is refused.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RequestListener, ServerResponse } from 'node:http';
import { page, pathOf, same, sendHtml } from './common.ts';
import type { Credentials } from './sites.ts';

export const DIGEST_REALM = 'wiki@intranet';

const ALGORITHMS = { 'SHA-256': 'sha256', MD5: 'md5' } as const;
type Algorithm = keyof typeof ALGORITHMS;

/** Nonces remembered at most (oldest forgotten first). */
const MAX_NONCES = 1000;

/** The auth-params of a `Digest` credentials header (RFC 9110 §11.2), keys lower-cased; undefined if malformed. */
export function parseDigest(header: string | undefined): Map<string, string> | undefined {
  const m = /^digest\s+/i.exec(header ?? '');
  if (!m) return undefined;
  const rest = header!.slice(m[0].length);
  const params = new Map<string, string>();
  const re = /\s*([!#$%&'*+.^_`|~0-9A-Za-z-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s",]+))\s*(?:,|$)/y;
  while (re.lastIndex < rest.length) {
    const p = re.exec(rest);
    if (!p) return undefined;
    const key = p[1]!.toLowerCase();
    if (params.has(key)) return undefined;
    params.set(key, p[2] !== undefined ? p[2].replace(/\\(.)/g, '$1') : p[3]!);
  }
  return params;
}

export function digestSite(creds: Credentials, staleAfter: number): { handler: RequestListener; refusals: string[] } {
  const refusals: string[] = [];
  const opaque = randomBytes(12).toString('base64url');
  /** Nonce → the nonce counts it has been used with. */
  const nonces = new Map<string, Set<number>>();

  const h = (alg: Algorithm, s: string) => createHash(ALGORITHMS[alg]).update(s, 'utf8').digest('hex');

  const challenge = (res: ServerResponse, why: string, stale = false) => {
    refusals.push(why);
    const nonce = randomBytes(16).toString('base64url');
    nonces.set(nonce, new Set());
    if (nonces.size > MAX_NONCES) nonces.delete(nonces.keys().next().value!);
    const each = (alg: Algorithm) =>
      `Digest realm="${DIGEST_REALM}", qop="auth", algorithm=${alg}, nonce="${nonce}", opaque="${opaque}", charset=UTF-8${stale ? ', stale=true' : ''}`;
    sendHtml(res, 401, page('Sign in', 'a digest door'), { 'www-authenticate': [each('SHA-256'), each('MD5')] });
  };

  /** Checks the credentials of a request: undefined when accepted (and the Authentication-Info to send), or why not. */
  const check = (method: string, target: string, header: string | undefined): { refused: string; stale?: boolean } | { info: string } => {
    if (header === undefined) return { refused: 'no Authorization header' };
    const p = parseDigest(header);
    if (!p) return { refused: `not Digest credentials, or malformed: ${header}` };
    const missing = ['username', 'realm', 'nonce', 'uri', 'response', 'qop', 'nc', 'cnonce'].filter((k) => !p.has(k));
    if (missing.length) return { refused: `missing ${missing.join(', ')}` };
    const algName = (p.get('algorithm') ?? 'MD5').toUpperCase();
    const alg = (Object.keys(ALGORITHMS) as Algorithm[]).find((a) => a === algName);
    if (!alg) return { refused: `algorithm ${algName} was not offered` };
    if (p.get('realm') !== DIGEST_REALM) return { refused: `realm ${p.get('realm')}` };
    if (p.get('opaque') !== opaque) return { refused: 'opaque not echoed' };
    if (p.get('qop') !== 'auth') return { refused: `qop ${p.get('qop')}` };
    if (p.get('uri') !== target) return { refused: `uri ${p.get('uri')} is not the request-target ${target}` };
    const ncText = p.get('nc')!;
    if (!/^[0-9a-f]{8}$/i.test(ncText)) return { refused: `nc ${ncText} is not 8 hex digits` };
    const nc = parseInt(ncText, 16);
    const userhash = p.get('userhash')?.toLowerCase() === 'true';
    const expectedUser = userhash ? h(alg, `${creds.user}:${DIGEST_REALM}`) : creds.user;
    if (!same(p.get('username')!, expectedUser)) return { refused: `unknown user ${p.get('username')}` };
    const [nonce, cnonce] = [p.get('nonce')!, p.get('cnonce')!];
    const ha1 = h(alg, `${creds.user}:${DIGEST_REALM}:${creds.password}`);
    const expected = h(alg, `${ha1}:${nonce}:${ncText}:${cnonce}:auth:${h(alg, `${method}:${target}`)}`);
    if (!same(p.get('response')!.toLowerCase(), expected)) return { refused: `wrong response (${alg})` };
    const used = nonces.get(nonce);
    // A right answer to a nonce we no longer hold (or one used up): the client should just retry.
    if (!used || used.size >= staleAfter) return { refused: `stale nonce ${nonce}`, stale: true };
    if (used.has(nc)) return { refused: `nonce count ${ncText} replayed` };
    used.add(nc);
    const rspauth = h(alg, `${ha1}:${nonce}:${ncText}:${cnonce}:auth:${h(alg, `:${target}`)}`);
    return { info: `qop=auth, rspauth="${rspauth}", cnonce="${cnonce}", nc=${ncText}` };
  };

  const handler: RequestListener = (req, res) => {
    const path = pathOf(req);
    if (path === '/robots.txt') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nAllow: /\n');
    }
    const verdict = check(req.method ?? 'GET', req.url ?? '/', req.headers.authorization);
    if ('refused' in verdict) return challenge(res, verdict.refused, verdict.stale);
    const info = { 'authentication-info': verdict.info };
    if (path === '/') return sendHtml(res, 200, page('Digest home', 'digestword', [['/a', 'Page A']]), info);
    if (path === '/a') return sendHtml(res, 200, page('Digest A', 'digestworda', [['/', 'Home']]), info);
    return sendHtml(res, 404, page('Not found', 'nothing'), info);
  };
  return { handler, refusals };
}
