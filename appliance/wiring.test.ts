// The wiring of the URL policy and of the parse jobs: each of the config's URL and parse settings
// reaches the normalizer, the filter chain and the parser, which keep no default of their own
// (config/schema.ts declares them).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadConfig, type ConfigInput } from '../config/index.ts';
import { extract } from '../crawler/parse/extract.ts';
import { admit } from '../crawler/urls/index.ts';
import { odp } from '../testweb/documents.ts';
import { normalizerOf, parseSettingsOf, urlPolicyOf } from './wiring.ts';

describe('urlPolicyOf', () => {
  const seeds = ['http://e.org/'];
  /** What the policy of a config with `overrides` makes of `url` at `depth`, the host holding 5 URLs. */
  const verdict = (overrides: ConfigInput, url: string, depth = 0) => {
    const a = admit(
      urlPolicyOf(loadConfig({ overrides: { seeds, ...overrides } }), seeds, () => 5),
      url,
      depth,
    );
    return a.ok ? 'admitted' : a.reason;
  };

  it("applies each of the config's URL limits and scope rules: what the defaults admit, the setting tightened rejects", () => {
    const rows: [ConfigInput, string, number, string][] = [
      [{ limits: { maxUrlLength: 30 } }, 'http://e.org/a-rather-long-path/x', 0, 'url-too-long'],
      [{ limits: { maxDepth: 1 } }, 'http://e.org/a', 2, 'too-deep'],
      [{ limits: { maxPagesPerHost: 5 } }, 'http://e.org/a', 0, 'host-limit'],
      [{ limits: { maxRepeatedSegments: 1 } }, 'http://e.org/a/a', 0, 'repeated-path'],
      [{ limits: { maxQueryParams: 1 } }, 'http://e.org/?a=1&b=2', 0, 'too-many-params'],
      [{ limits: { maxParamLength: 16 } }, `http://e.org/?q=${'x'.repeat(20)}`, 0, 'param-too-long'],
      [{ scope: { exclude: ['URL:/private/'] } }, 'http://e.org/private/', 0, 'out-of-scope'],
    ];
    for (const [overrides, url, depth, reason] of rows) {
      assert.equal(verdict({}, url, depth), 'admitted', url);
      assert.equal(verdict(overrides, url, depth), reason, JSON.stringify(overrides));
    }
  });

  it("normalizes by the config's urls settings", () => {
    const url = 'http://www.e.org/Docs/index.html?ref=1&utm_source=x&a=1&a=1';
    assert.deepEqual(normalizerOf(loadConfig())(url), {
      ok: true,
      url: 'http://www.e.org/Docs/index.html?ref=1&a=1',
      fetchUrl: 'http://www.e.org/Docs/index.html?ref=1&a=1',
    });
    const urls = { stripParams: ['^ref$'], collapseRepeatedParams: false, dropIndexFiles: true, lowercasePath: true, hostAliases: ['startsWith(www.)='] };
    assert.deepEqual(normalizerOf(loadConfig({ overrides: { urls } }))(url), {
      ok: true,
      url: 'http://e.org/docs/?utm_source=x&a=1&a=1',
      fetchUrl: 'http://www.e.org/Docs/index.html?utm_source=x&a=1&a=1',
    });
  });
});

describe('parseSettingsOf', () => {
  /** What a job with the settings of a config with `overrides` comes to. */
  const parsed = (overrides: ConfigInput, job: { body: Uint8Array; contentType: string; url: string; truncated?: boolean }) =>
    extract({ ...job, ...parseSettingsOf(loadConfig({ overrides })) });
  const links = `<meta name="bot" content="noindex">${'<a href="/a">a</a><a href="/b">b</a><a href="/c">c</a>'}`;
  const page = { body: Buffer.from(links), contentType: 'text/html', url: 'http://e.org/' };
  const slides = { body: odp(), contentType: 'application/vnd.oasis.opendocument.presentation', url: 'http://e.org/reefs.odp' };

  it("gives the parser the config's links cap and robots token", async () => {
    const plain = await parsed({}, page);
    assert.ok(plain.kind === 'page');
    assert.deepEqual([plain.page.links.length, plain.page.linksCut, plain.page.noindex], [3, undefined, false]);
    const set = await parsed({ limits: { maxLinksPerPage: 2 }, userAgent: 'Bot/2.0' }, page);
    assert.ok(set.kind === 'page');
    assert.deepEqual([set.page.links.length, set.page.linksCut, set.page.noindex], [2, 1, true]);
  });

  it("gives the document extractors the config's formats, pages and size cap", async () => {
    const all = await parsed({}, slides);
    assert.ok(all.kind === 'page' && all.page.document?.pagesCut === undefined);
    const one = await parsed({ documents: { maxPages: 1 } }, slides);
    assert.ok(one.kind === 'page' && one.page.document?.pagesCut === 1);
    assert.deepEqual(await parsed({ documents: { types: ['pdf'] } }, slides), { kind: 'unsupported', type: 'odp (not in documents.types)' });
    const cut = await parsed({ documents: { maxBytes: 3 * 1024 ** 2 } }, { ...slides, truncated: true });
    assert.ok(cut.kind === 'refused' && cut.detail === 'larger than documents.maxBytes (3 MB)', JSON.stringify(cut));
  });
});
