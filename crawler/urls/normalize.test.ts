import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizeOptionsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { parseHostAlias } from './aliases.ts';
import { createNormalizer, type NormalizeOptions } from './normalize.ts';

/** The config's default options (urls.*), and a normalizer with them. */
const DEFAULTS = normalizeOptionsOf(DEFAULT_CONFIG);
const normalizeUrl = createNormalizer(DEFAULTS);
/** A normalizer with the defaults but `options`. */
const configured = (options: Partial<NormalizeOptions>) => createNormalizer({ ...DEFAULTS, ...options });

const ok = (input: string, base?: string) => {
  const r = normalizeUrl(input, base);
  assert.ok(r.ok, `${input} was rejected: ${r.ok ? '' : r.reason}`);
  return r.url;
};

describe('normalizeUrl, rule by rule', () => {
  const table: [string, string, string][] = [
    ['lowercases scheme and host', 'HTTP://Docs.Example.ORG/Path', 'http://docs.example.org/Path'],
    ['converts IDN hosts to punycode', 'http://bücher.example/', 'http://xn--bcher-kva.example/'],
    ['drops default ports', 'https://example.org:443/a', 'https://example.org/a'],
    ['keeps other ports', 'http://example.org:8080/a', 'http://example.org:8080/a'],
    ['drops the fragment', 'http://example.org/a#section', 'http://example.org/a'],
    ['resolves ./ and ../', 'http://example.org/a/./b/../c', 'http://example.org/a/c'],
    ['collapses //', 'http://example.org//a///b', 'http://example.org/a/b'],
    ['uppercases percent-escapes', 'http://example.org/a%2fb', 'http://example.org/a%2Fb'],
    ['decodes escaped unreserved characters', 'http://example.org/%7Euser/%41', 'http://example.org/~user/A'],
    ['leaves what is no escape, escape by escape', 'http://example.org/%%41%4%2e%zz%5f?q=%%7e%2b%2', 'http://example.org/%A%4.%zz_?q=%~%2B%2'],
    ['escapes spaces as %20', 'http://example.org/a b', 'http://example.org/a%20b'],
    ['escapes non-ASCII as UTF-8', 'http://example.org/café', 'http://example.org/caf%C3%A9'],
    ['treats http://h as http://h/', 'http://example.org', 'http://example.org/'],
    ['drops session ids', 'http://example.org/a?x=1&PHPSESSID=abc&sid=9', 'http://example.org/a?x=1'],
    ['drops utm_ parameters', 'http://example.org/?utm_source=x&utm_medium=y', 'http://example.org/'],
    ['drops ;jsessionid path parameters', 'http://example.org/a;jsessionid=0AB?b=1', 'http://example.org/a?b=1'],
    ['keeps the order of other parameters', 'http://example.org/?b=2&a=1', 'http://example.org/?b=2&a=1'],
    ['collapses repeated parameters', 'http://example.org/?a=1&b=2&a=1&a=3', 'http://example.org/?a=1&b=2&a=3'],
  ];
  for (const [rule, input, expected] of table) it(rule, () => assert.equal(ok(input), expected));

  it('resolves relative URLs against a base', () => {
    assert.equal(ok('../c?d=1#x', 'http://example.org/a/b/'), 'http://example.org/a/c?d=1');
  });

  it('rejects with a reason, never returning the input', () => {
    assert.deepEqual(normalizeUrl('not a url'), { ok: false, reason: 'unparsable' });
    assert.deepEqual(normalizeUrl('mailto:a@example.org'), { ok: false, reason: 'scheme' });
    assert.deepEqual(normalizeUrl('javascript:alert(1)'), { ok: false, reason: 'scheme' });
    assert.deepEqual(normalizeUrl('http://user:pw@example.org/'), { ok: false, reason: 'credentials' });
  });
});

describe('createNormalizer, configured', () => {
  it('drops index.* and default.* file names from the identity only', () => {
    const n = configured({ dropIndexFiles: true })('http://e.org/docs/index.html?x=1');
    assert.deepEqual(n, { ok: true, url: 'http://e.org/docs/?x=1', fetchUrl: 'http://e.org/docs/index.html?x=1' });
    assert.equal((configured({ dropIndexFiles: true })('http://e.org/default.aspx') as { url: string }).url, 'http://e.org/');
    assert.equal((configured({ dropIndexFiles: true })('http://e.org/indexes.html') as { url: string }).url, 'http://e.org/indexes.html');
  });

  it('lowercases paths when asked, keeping escapes canonical', () => {
    const n = configured({ lowercasePath: true })('http://e.org/Docs/A%2fB');
    assert.ok(n.ok);
    assert.equal(n.url, 'http://e.org/docs/a%2Fb');
    assert.equal(n.fetchUrl, 'http://e.org/Docs/A%2FB');
  });

  it('strips parameters by pattern', () => {
    const n = configured({ stripParams: [/^ref$/i] })('http://e.org/?ref=x&utm_source=y&a=1');
    assert.ok(n.ok);
    assert.equal(n.url, 'http://e.org/?utm_source=y&a=1');
  });

  it('keeps repeated parameters when collapsing is off', () => {
    assert.equal((configured({ collapseRepeatedParams: false })('http://e.org/?a=1&a=1') as { url: string }).url, 'http://e.org/?a=1&a=1');
  });
});

describe('host aliases', () => {
  const normalize = configured({
    hostAliases: ['synonym(mirror.org)=main.org', 'endsWith(.a.org)=.b.org', 'startsWith(www.)='].map(parseHostAlias),
  });
  const id = (u: string) => {
    const r = normalize(u);
    assert.ok(r.ok);
    return r;
  };

  it('applies startsWith, then endsWith, then synonym, to the identity only', () => {
    assert.deepEqual(id('http://www.example.org/x'), { ok: true, url: 'http://example.org/x', fetchUrl: 'http://www.example.org/x' });
    assert.equal(id('http://docs.a.org/').url, 'http://docs.b.org/');
    assert.equal(id('http://www.docs.a.org/').url, 'http://docs.b.org/');
    assert.equal(id('http://mirror.org/p').url, 'http://main.org/p');
    assert.equal(id('http://www.mirror.org/p').url, 'http://main.org/p', 'www. stripped first, then the synonym');
  });

  it('is idempotent even when a rule could apply again', () => {
    const once = id('http://www.www.example.org/');
    assert.equal(once.url, 'http://example.org/');
    assert.equal(id(once.url).url, once.url);
  });

  it('refuses malformed rules with a message that shows the forms', () => {
    assert.throws(() => parseHostAlias('strip(www.)'), /startsWith\(www\.\)=/);
    assert.throws(() => parseHostAlias('synonym(a.org)='), /needs the host/);
    assert.throws(() => parseHostAlias('startsWith()=x'), /empty/);
  });
});

describe('normalizeUrl, properties', () => {
  // A deterministic generator of messy URLs (no clock, no randomness between runs).
  let seed = 42;
  const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
  const pick = <T>(xs: readonly T[]) => xs[rnd(xs.length)]!;
  const parts = ['a', 'B', '.', '..', '', '%7e', '%2f', 'é', ' ', 'x y', '%41', 'index.html', '~', '%zz'];
  const urls = Array.from({ length: 500 }, () => {
    const path = Array.from({ length: rnd(6) }, () => pick(parts)).join('/');
    const query = rnd(2) ? `?${Array.from({ length: rnd(4) }, () => `${pick(['q', 'utm_x', 'sid', 'P', 'a%20b'])}=${pick(parts)}`).join('&')}` : '';
    return `${pick(['http', 'HTTPS'])}://${pick(['Example.org', 'bücher.de', 'a.b.c:8080', 'x.org:80'])}/${path}${query}#${pick(parts)}`;
  });

  it('is idempotent: normalizing twice equals normalizing once', () => {
    for (const u of urls) {
      const once = normalizeUrl(u);
      if (!once.ok) continue;
      assert.deepEqual(normalizeUrl(once.url), once, u);
    }
  });

  it('always produces a URL that parses to itself', () => {
    let checked = 0;
    for (const u of urls) {
      const r = normalizeUrl(u);
      if (!r.ok) continue;
      assert.equal(new URL(r.url).href, r.url, u);
      assert.ok(!r.url.includes('#'), u);
      checked++;
    }
    assert.ok(checked > 400, `only ${checked} of the generated URLs normalized`);
  });
});
