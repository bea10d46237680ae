import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { digestAuthorization, parseDigestChallenge } from './digest.ts';

// The examples of RFC 7616 §3.9.1: user Mufasa, password "Circle of Life", GET /dir/index.html.
const CHALLENGES =
  'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=SHA-256, ' +
  'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", ' +
  'Digest realm="http-auth@example.org", qop="auth, auth-int", algorithm=MD5, ' +
  'nonce="7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", opaque="FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"';
const REQUEST = {
  username: 'Mufasa',
  password: 'Circle of Life',
  method: 'GET',
  uri: '/dir/index.html',
  nc: 1,
  cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
};

describe('HTTP Digest', () => {
  it("answers RFC 7616's SHA-256 example with its response", () => {
    const c = parseDigestChallenge(CHALLENGES)!;
    assert.equal(c.algorithm, 'SHA-256', 'the strongest offered');
    const h = digestAuthorization(c, REQUEST);
    assert.match(h, /response="753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"/);
    assert.match(h, /qop=auth, nc=00000001, cnonce="f2\/wE4q74E6zIJEtWaHKaf5wv\/H5QzzpXusqGemxURZJ"/);
    assert.match(h, /opaque="FQhe\/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS"/);
  });

  it("answers RFC 7616's MD5 example with its response", () => {
    const c = parseDigestChallenge(CHALLENGES.split(', Digest')[1]!.replace(/^/, 'Digest'))!;
    assert.equal(c.algorithm, 'MD5');
    assert.match(digestAuthorization(c, REQUEST), /response="8ca523f5e9506fed4657c9700eebdbec"/);
  });

  it('ignores what it cannot answer', () => {
    assert.equal(parseDigestChallenge('Basic realm="x"'), undefined);
    assert.equal(parseDigestChallenge('Digest realm="x", nonce="n", qop="auth-int"'), undefined);
    assert.equal(parseDigestChallenge('Digest realm="x", nonce="n", algorithm=SHA-512-256'), undefined);
    assert.equal(parseDigestChallenge('Digest nonce="n"'), undefined);
    assert.equal(parseDigestChallenge(undefined), undefined);
  });
});
