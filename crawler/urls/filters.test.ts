import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizerOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { admit, defaultFilters, type UrlPolicy } from './filters.ts';
import { buildScope } from './scope.ts';

describe('scope', () => {
  it("defaults to the seeds' hosts (with their ports)", () => {
    const s = buildScope({ allow: [], exclude: [], seeds: ['http://docs.example.org/start', 'http://127.0.0.1:8080/'] });
    assert.deepEqual(s.check(new URL('http://docs.example.org/other')), { inScope: true });
    assert.deepEqual(s.check(new URL('http://127.0.0.1:8080/x')), { inScope: true });
    assert.equal(s.check(new URL('http://127.0.0.1:9090/x')).inScope, false);
    assert.equal(s.check(new URL('http://www.example.org/')).inScope, false);
  });

  it('matches HOST: rules against the host and URL: rules against the whole URL; exclude wins', () => {
    const s = buildScope({ allow: ['HOST:\\.example\\.org$'], exclude: ['URL:/private/', 'HOST:^old\\.'], seeds: [] });
    assert.equal(s.check(new URL('http://a.example.org/x')).inScope, true);
    assert.deepEqual(s.check(new URL('http://a.example.org/private/x')), { inScope: false, rule: 'exclude URL:/private/' });
    assert.equal(s.check(new URL('http://old.example.org/')).inScope, false);
    assert.equal(s.check(new URL('http://example.com/')).inScope, false);
  });

  it('matches a HOST: rule against the host with its port and without it (regression: HOST:^wiki\\.intra$ missed wiki.intra:8443)', () => {
    const s = buildScope({ allow: ['HOST:^wiki\\.intra$', 'HOST:^tools\\.intra:9000$'], exclude: ['HOST:^wiki\\.intra:9999$'], seeds: [] });
    assert.equal(s.check(new URL('https://wiki.intra:8443/page')).inScope, true, 'the rule names the host alone: any port');
    assert.equal(s.check(new URL('https://wiki.intra/page')).inScope, true);
    assert.equal(s.check(new URL('http://tools.intra:9000/')).inScope, true, 'a rule that names the port: that port');
    assert.equal(s.check(new URL('http://tools.intra:9001/')).inScope, false);
    assert.equal(s.check(new URL('http://tools.intra/')).inScope, false);
    assert.deepEqual(s.check(new URL('http://wiki.intra:9999/')), { inScope: false, rule: 'exclude HOST:^wiki\\.intra:9999$' });
    assert.equal(s.check(new URL('http://wiki.intra.evil.example:8443/')).inScope, false, 'still anchored where the rule anchors');
  });

  it('keeps the default scope to the seeds’ hosts exactly: a seed without a port brings in no other port', () => {
    const s = buildScope({ allow: [], exclude: [], seeds: ['http://docs.example.org/'] });
    assert.equal(s.check(new URL('http://docs.example.org/a')).inScope, true);
    assert.equal(s.check(new URL('http://docs.example.org:8080/a')).inScope, false);
  });
});

describe('the filter chain', () => {
  const scope = buildScope({ allow: [], exclude: [], seeds: ['http://example.org/'] });
  const hostUrls = new Map([['example.org', 0]]);
  const filters = defaultFilters(
    scope,
    { maxUrlLength: 60, maxDepth: 2, maxPagesPerHost: 10, maxRepeatedSegments: 2, maxQueryParams: 3, maxParamLength: 20 },
    (h) => hostUrls.get(h) ?? 0,
  );
  const policy: UrlPolicy = { normalize: normalizerOf(DEFAULT_CONFIG), filters };

  it('is an ordered list of named filters', () => {
    assert.deepEqual(
      filters.map((f) => f.name),
      ['url-length', 'scope', 'depth', 'useless-path', 'repeated-path', 'query-params', 'host-limit'],
    );
  });

  it('admits a normalized in-scope URL', () => {
    assert.deepEqual(admit(policy, '/a/../b#top', 1, 'http://EXAMPLE.org/x/'), { ok: true, url: 'http://example.org/b', fetchUrl: 'http://example.org/b' });
  });

  const reason = (raw: string, depth = 0) => {
    const a = admit(policy, raw, depth, 'http://example.org/');
    return a.ok ? 'admitted' : a.reason;
  };

  it('guards against crawler traps: repeated segments, too many or too long parameters', () => {
    assert.equal(reason('/a/b/a/b/'), 'admitted');
    assert.equal(reason('/a/b/a/b/a/'), 'repeated-path');
    assert.equal(reason('/cal?y=1&m=2&d=3'), 'admitted');
    assert.equal(reason('/cal?y=1&m=2&d=3&h=4'), 'too-many-params');
    assert.equal(reason(`/s?q=${'x'.repeat(30)}`), 'param-too-long');
  });

  it('caps the URLs of one host at limits.maxPagesPerHost', () => {
    hostUrls.set('example.org', 9);
    assert.equal(reason('/fits'), 'admitted');
    hostUrls.set('example.org', 10);
    assert.equal(reason('/over'), 'host-limit');
    hostUrls.set('example.org', 0);
  });

  it('rejects each kind of URL with its reason', () => {
    assert.equal(reason('mailto:x@example.org'), 'scheme');
    assert.equal(reason(`/${'a'.repeat(80)}`), 'url-too-long');
    assert.equal(reason('http://other.org/'), 'out-of-scope');
    assert.equal(reason('/deep', 3), 'too-deep');
    assert.equal(reason('/dir/?C=M;O=A'), 'useless-path');
    assert.equal(reason('/dir/?C=N&O=D'), 'useless-path');
    assert.equal(reason('http://[bad'), 'unparsable');
  });
});
