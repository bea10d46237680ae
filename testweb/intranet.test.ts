import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { request } from 'undici';
import { startIntranet, type Intranet } from './intranet.ts';

/** RFC 7616's response, computed here by hand — not with the server's code. */
function digestResponse(
  alg: 'md5' | 'sha256',
  p: { user: string; realm: string; password: string; method: string; uri: string; nonce: string; nc: string; cnonce: string },
): string {
  const h = (s: string) => createHash(alg).update(s).digest('hex');
  return h(`${h(`${p.user}:${p.realm}:${p.password}`)}:${p.nonce}:${p.nc}:${p.cnonce}:auth:${h(`${p.method}:${p.uri}`)}`);
}

const manual = { redirect: 'manual' } as const;

describe('the intranet test web', () => {
  let net: Intranet;
  before(async () => {
    net = await startIntranet({ digestStaleAfter: 2 });
  });
  after(async () => {
    await net.close();
  });

  it('makes its certificates once, quickly, and removes them on close', async () => {
    assert.ok(existsSync(net.tls.caFile));
    assert.match(net.tls.caPem, /BEGIN CERTIFICATE/);
    assert.ok(net.certificateMs < 5000, `${net.certificateMs} ms`);
    const another = await startIntranet();
    await another.close();
    assert.equal(existsSync(another.tls.caFile), false);
  });

  it('basic: refuses without credentials, or with wrong ones, and logs what came', async () => {
    const none = await fetch(`${net.basic.url}/`);
    assert.equal(none.status, 401);
    assert.match(none.headers.get('www-authenticate') ?? '', /^Basic realm="docs"/);
    const basic = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
    assert.equal((await fetch(`${net.basic.url}/a`, { headers: basic(net.basic.user, 'wrong') })).status, 401);
    const ok = await fetch(`${net.basic.url}/a`, { headers: basic(net.basic.user, net.basic.password) });
    assert.match(await ok.text(), /basicworda/);
    assert.equal(net.basic.log.at(-1)?.authorization, basic(net.basic.user, net.basic.password).authorization);
    const moved = await fetch(`${net.basic.url}/moved`, { ...manual, headers: basic(net.basic.user, net.basic.password) });
    assert.deepEqual([moved.status, moved.headers.get('location')], [302, `${net.other.url}/`]);
    assert.match(await (await fetch(`${net.basic.url}/robots.txt`)).text(), new RegExp(`Sitemap: ${net.other.url}/sitemap.xml`));
    assert.match(await (await fetch(`${net.other.url}/sitemap.xml`)).text(), new RegExp(`<loc>${net.other.url}/listed</loc>`));
  });

  it('bearer: wants its token', async () => {
    assert.equal((await fetch(`${net.bearer.url}/`)).headers.get('www-authenticate'), 'Bearer realm="api"');
    assert.match(
      (await fetch(`${net.bearer.url}/`, { headers: { authorization: 'Bearer nope' } })).headers.get('www-authenticate') ?? '',
      /error="invalid_token"/,
    );
    assert.match(await (await fetch(`${net.bearer.url}/`, { headers: { authorization: `Bearer ${net.bearer.token}` } })).text(), /bearerword/);
  });

  it('form: logs in with a fresh csrf token, and the session expires after sessionRequests requests', async () => {
    const home = await fetch(`${net.form.url}/wiki/2`, manual);
    assert.deepEqual([home.status, home.headers.get('location')], [302, '/login?next=%2Fwiki%2F2']);
    const form = async () => {
      const html = await (await fetch(`${net.form.url}/login?next=%2Fwiki%2F2`)).text();
      assert.match(html, /<form method="post" action="\/session">/);
      return /name="csrf" value="([^"]+)"/.exec(html)![1]!;
    };
    const post = (fields: Record<string, string>) => fetch(`${net.form.url}/session`, { ...manual, method: 'POST', body: new URLSearchParams(fields) });
    const csrf = await form();
    const wrong = await post({ csrf, user: net.form.user, pass: 'wrong', next: '/wiki/2' });
    assert.equal(wrong.status, 200);
    assert.match(await wrong.text(), /role="alert">Wrong user name or password/);
    const reused = await post({ csrf, user: net.form.user, pass: net.form.password });
    assert.match(await reused.text(), /The form has expired/, 'a token serves one post');
    assert.deepEqual([net.form.logins, net.form.failedLogins], [0, 2]);

    const ok = await post({ csrf: await form(), user: net.form.user, pass: net.form.password, next: '/wiki/2' });
    assert.deepEqual([ok.status, ok.headers.get('location')], [303, '/wiki/2']);
    const setCookie = ok.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /^sid=[^;]+; HttpOnly; Path=\//);
    const cookie = setCookie.split(';')[0]!;
    assert.equal(net.form.logins, 1);
    const pages = ['/wiki/2', '/', '/wiki/1', '/wiki/3'];
    for (const [i, path] of pages.entries()) {
      const r = await fetch(`${net.form.url}${path}`, { ...manual, headers: { cookie } });
      assert.equal(r.status, 200, `request ${i + 1} of ${net.form.sessionRequests}`);
      assert.match(await r.text(), path === '/' ? /wikihomeword.*href="\/logout"/ : new RegExp(`wikiword${path.slice(-1)}`));
    }
    const expired = await fetch(`${net.form.url}/wiki/4`, { ...manual, headers: { cookie } });
    assert.deepEqual([expired.status, expired.headers.get('location')], [302, '/login?next=%2Fwiki%2F4']);
    assert.equal(net.form.log.at(-1)?.cookie, cookie);
  });

  it('form: /logout ends the session', async () => {
    const csrf = /name="csrf" value="([^"]+)"/.exec(await (await fetch(`${net.form.url}/login`)).text())![1]!;
    const ok = await fetch(`${net.form.url}/session`, {
      ...manual,
      method: 'POST',
      body: new URLSearchParams({ csrf, user: net.form.user, pass: net.form.password }),
    });
    assert.equal(ok.headers.get('location'), '/', 'no next: home');
    const cookie = ok.headers.get('set-cookie')!.split(';')[0]!;
    const out = await fetch(`${net.form.url}/logout`, { ...manual, headers: { cookie } });
    assert.deepEqual([out.status, out.headers.get('location'), net.form.logouts], [303, '/login', 1]);
    assert.equal((await fetch(`${net.form.url}/`, { ...manual, headers: { cookie } })).status, 302);
  });

  it('digest: our hand computation matches RFC 7616 §3.9.1', () => {
    const example = {
      user: 'Mufasa',
      realm: 'http-auth@example.org',
      password: 'Circle of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      nc: '00000001',
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    };
    assert.equal(digestResponse('md5', example), '8ca523f5e9506fed4657c9700eebdbec');
    assert.equal(digestResponse('sha256', example), '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1');
  });

  it('digest: accepts a correct response (SHA-256 or MD5), refuses a wrong one, a replayed nonce count, a stale nonce', async () => {
    const challenge = await request(`${net.digest.url}/a`);
    await challenge.body.dump();
    const offers = [challenge.headers['www-authenticate']].flat() as string[];
    assert.equal(challenge.statusCode, 401);
    assert.deepEqual(
      offers.map((c) => /algorithm=([\w-]+)/.exec(c)?.[1]),
      ['SHA-256', 'MD5'],
      'two challenges, SHA-256 preferred',
    );
    const nonce = /nonce="([^"]+)"/.exec(offers[0]!)![1]!;
    const opaque = /opaque="([^"]+)"/.exec(offers[0]!)![1]!;
    const realm = net.digest.realm;
    const cnonce = '0a4f113b';
    const header = (alg: 'SHA-256' | 'MD5', nc: string, password = net.digest.password, uri = '/a') => {
      const response = digestResponse(alg === 'MD5' ? 'md5' : 'sha256', { user: net.digest.user, realm, password, method: 'GET', uri, nonce, nc, cnonce });
      return (
        `Digest username="${net.digest.user}", realm="${realm}", uri="${uri}", algorithm=${alg}, ` +
        `nonce="${nonce}", nc=${nc}, cnonce="${cnonce}", qop=auth, response="${response}", opaque="${opaque}"`
      );
    };
    const get = async (authorization: string) => {
      const r = await request(`${net.digest.url}/a`, { headers: { authorization } });
      return {
        status: r.statusCode,
        text: await r.body.text(),
        challenge: String(r.headers['www-authenticate'] ?? ''),
        info: r.headers['authentication-info'],
      };
    };
    const first = await get(header('SHA-256', '00000001'));
    assert.equal(first.status, 200, net.digest.refusals.at(-1));
    assert.match(first.text, /digestworda/);
    assert.match(String(first.info), /rspauth="[0-9a-f]{64}"/);
    assert.equal((await get(header('SHA-256', '00000002', 'wrong'))).status, 401);
    assert.match(net.digest.refusals.at(-1)!, /wrong response/);
    assert.equal((await get(header('SHA-256', '00000002', net.digest.password, '/'))).status, 401, 'the uri must be the request-target');
    assert.equal((await get(header('SHA-256', '00000001'))).status, 401);
    assert.match(net.digest.refusals.at(-1)!, /replayed/);
    assert.equal((await get(header('MD5', '00000002'))).status, 200, 'MD5, the same nonce, the next count');
    const stale = await get(header('SHA-256', '00000003'));
    assert.equal(stale.status, 401);
    assert.match(stale.challenge, /stale=true/, 'used up (digestStaleAfter: 2): a right answer is told to retry');
  });
});
