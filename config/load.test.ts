import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, DEFAULT_USER_AGENT, loadConfig } from './index.ts';

const dir = mkdtempSync(join(tmpdir(), 'trawl-config-'));
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof ConfigError, `expected a ConfigError, got ${String(e)}`);
    return [...e.problems, e.message];
  }
  assert.fail('expected the config to be refused');
};

describe('loadConfig', () => {
  it('fills every default from the schema', () => {
    const c = loadConfig();
    assert.deepEqual(c.seeds, []);
    assert.equal(c.userAgent, DEFAULT_USER_AGENT);
    assert.match(c.userAgent, /^TrawlBot\/\d+\.\d+\.\d+ \(\+https?:\/\/.+\)$/);
    assert.equal(c.perHost.maxConnections, 1);
    assert.equal(c.perHost.delayMs, 1000);
    assert.equal(c.server.host, '127.0.0.1');
    assert.equal(c.index.flushIntervalMs, 30_000);
  });

  it('reads YAML and JSON files', () => {
    const y = loadConfig({ file: file('a.yaml', 'seeds: [https://docs.example.org/]\nperHost:\n  delayMs: 250\n') });
    assert.deepEqual(y.seeds, ['https://docs.example.org/']);
    assert.equal(y.perHost.delayMs, 250);
    assert.equal(y.perHost.maxConnections, 1, 'nested defaults survive a partial object');
    const j = loadConfig({ file: file('a.json', '{"concurrency": 3, "scope": {"allow": ["HOST:example\\\\.org$"]}}') });
    assert.equal(j.concurrency, 3);
    assert.deepEqual(j.scope.allow, ['HOST:example\\.org$']);
  });

  it('takes the names the server answers to, from a file or TRAWL_ALLOWED_HOSTS, and refuses what is not a name', () => {
    assert.deepEqual(loadConfig().server.allowedHosts, []);
    assert.equal(loadConfig().server.maxEventStreams, 32);
    assert.deepEqual(loadConfig({ env: { TRAWL_ALLOWED_HOSTS: 'search.intra, *.corp.example' } }).server.allowedHosts, ['search.intra', '*.corp.example']);
    for (const bad of ['http://search.intra', 'search.intra:8080', 'a b', '*corp']) {
      const problems = problemsOf(() => loadConfig({ overrides: { server: { allowedHosts: [bad] } } }));
      assert.ok(
        problems.some((p) => p.includes('server.allowedHosts')),
        `${bad}: ${problems.join(' | ')}`,
      );
    }
  });

  it('lets the environment override the file, and flags override both', () => {
    const f = file('b.yaml', 'dataDir: ./from-file\nserver:\n  port: 9000\n');
    const c = loadConfig({ file: f, env: { TRAWL_DATA_DIR: './from-env', TRAWL_PORT: '9100' }, overrides: { server: { port: 9200 } } });
    assert.equal(c.dataDir, './from-env');
    assert.equal(c.server.port, 9200);
  });

  it('returns a frozen object', () => {
    const c = loadConfig();
    assert.throws(() => {
      (c as { concurrency: number }).concurrency = 99;
    }, TypeError);
    assert.ok(Object.isFrozen(c.perHost));
  });

  it('names the bad field, what is wrong and what the field means', () => {
    const [p] = problemsOf(() => loadConfig({ overrides: { perHost: { delayMs: 'fast' } } }));
    assert.match(p!, /`perHost\.delayMs`/);
    assert.match(p!, /expected number/);
    assert.match(p!, /Milliseconds between/);
  });

  it('suggests the nearest key for a typo', () => {
    const [p] = problemsOf(() => loadConfig({ overrides: { limits: { maxPagez: 10 } } }));
    assert.match(p!, /`limits\.maxPagez` is not a setting; did you mean `limits\.maxPages`\?/);
  });

  it('refuses scope rules without HOST:/URL: and invalid regular expressions', () => {
    const ps = problemsOf(() => loadConfig({ overrides: { scope: { allow: ['example.org', 'URL:(('] } } }));
    assert.ok(ps.some((p) => /`scope\.allow\.0`.*must start with HOST: or URL:/.test(p)));
    assert.ok(ps.some((p) => /`scope\.allow\.1`.*not a valid regular expression/.test(p)));
  });

  it('takes synonym lines and refuses one it cannot read, naming it and why', () => {
    assert.deepEqual(loadConfig({ overrides: { search: { synonyms: ['k8s, kubernetes', 'kill => terminate'] } } }).search.synonyms, [
      'k8s, kubernetes',
      'kill => terminate',
    ]);
    const [p] = problemsOf(() => loadConfig({ overrides: { search: { synonyms: ['k8s, kubernetes', 'kill => cancel => stop'] } } }));
    assert.match(p!, /`search\.synonyms\.1`.*one "=>" at most/);
  });

  it('refuses seeds that are not http(s) URLs', () => {
    const [p] = problemsOf(() => loadConfig({ overrides: { seeds: ['ftp://example.org/'] } }));
    assert.match(p!, /`seeds\.0`: must be an absolute http/);
  });

  it('reports unreadable and unparsable files clearly', () => {
    const [missing] = problemsOf(() => loadConfig({ file: join(dir, 'nope.yaml') })).slice(-1);
    assert.match(missing!, /cannot read config file .*nope\.yaml: ENOENT/);
    const [broken] = problemsOf(() => loadConfig({ file: file('bad.json', '{"seeds": [') })).slice(-1);
    assert.match(broken!, /is not valid JSON/);
    const [notObject] = problemsOf(() => loadConfig({ file: file('list.yaml', '- a\n- b\n') })).slice(-1);
    assert.match(notObject!, /must hold an object of settings/);
  });

  it('refuses an integer environment variable that is not a number, naming the field', () => {
    const [p] = problemsOf(() => loadConfig({ env: { TRAWL_PORT: 'eighty' } }));
    assert.match(p!, /`server\.port`/);
  });
});
