import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Secret } from '../lib/secret.ts';
import { ConfigError, loadConfig } from './index.ts';

const problems = (overrides: Record<string, unknown>, env: Record<string, string> = {}) => {
  try {
    loadConfig({ overrides, env });
  } catch (e) {
    assert.ok(e instanceof ConfigError, String(e));
    return e.message;
  }
  return assert.fail('expected a refusal');
};

describe('auth settings', () => {
  it('reads each kind of credentials, secrets from the environment, as Secrets that never print', () => {
    const c = loadConfig({
      env: { DOCS_PW: 'pw-docs-123', API_TOKEN: 'tok-api-456', KEY: 'k-789', WIKI_PW: 'pw-wiki' },
      overrides: {
        auth: [
          { match: 'HOST:^docs\\.intra$', basic: { username: 'alice', passwordEnv: 'DOCS_PW' } },
          { match: 'URL:^https://api\\.intra/', bearer: { tokenEnv: 'API_TOKEN' } },
          { match: 'HOST:^tools$', headers: { 'X-Key': { env: 'KEY' } } },
          {
            match: 'HOST:^wiki$',
            form: { url: 'https://wiki/login', fields: { user: 'alice' }, secretFields: { pass: 'WIKI_PW' }, loggedOut: { urlMatches: '/login' } },
          },
        ],
      },
    });
    const [docs, api, tools, wiki] = c.auth;
    assert.equal(docs!.basic!.username, 'alice');
    assert.ok(docs!.basic!.password instanceof Secret);
    assert.equal(docs!.basic!.password.reveal(), 'pw-docs-123');
    assert.equal(api!.bearer!.token.reveal(), 'tok-api-456');
    assert.equal(tools!.headers!['X-Key']!.reveal(), 'k-789');
    assert.equal(wiki!.form!.secretFields.pass!.reveal(), 'pw-wiki');
    assert.deepEqual(wiki!.form!.loggedOut.status, [401]);
    const printed = JSON.stringify(c);
    for (const s of ['pw-docs-123', 'tok-api-456', 'k-789', 'pw-wiki']) assert.ok(!printed.includes(s), s);
  });

  it('refuses a secret written inline, saying how to give it', () => {
    assert.match(
      problems({ auth: [{ match: 'HOST:x', basic: { username: 'a', password: 'hunter2' } }] }),
      /secrets are never written in the config; give passwordEnv .* or passwordFile/,
    );
    assert.match(problems({ auth: [{ match: 'HOST:x', bearer: { token: 'abc' } }] }), /give tokenEnv .* instead of token/);
    assert.match(problems({ server: { auth: { basic: { username: 'a', password: 'x' } } } }), /server\.auth\.basic: secrets are never written/);
  });

  it('names a secret that cannot be read, and the setting, never a value', () => {
    const m = problems({ auth: [{ match: 'HOST:x', basic: { username: 'a', passwordEnv: 'MISSING_PW' } }] });
    assert.match(m, /auth\.\[0\]\.basic\.password: the environment variable MISSING_PW is not set/);
    assert.match(problems({ auth: [{ match: 'HOST:x', bearer: { tokenFile: '/nonexistent/t' } }] }), /cannot read \/nonexistent\/t/);
  });

  it('refuses scopes without credentials, with two kinds of Authorization, or with a bad rule', () => {
    assert.match(problems({ auth: [{ match: 'HOST:x' }] }), /needs credentials/);
    assert.match(
      problems({ auth: [{ match: 'HOST:x', basic: { username: 'a', passwordEnv: 'P' }, bearer: { tokenEnv: 'T' } }] }, { P: 'p', T: 't' }),
      /at most one of basic, digest and bearer/,
    );
    assert.match(problems({ auth: [{ match: 'docs.intra', bearer: { tokenEnv: 'T' } }] }, { T: 't' }), /must start with HOST: or URL:/);
    assert.match(problems({ fetch: { proxy: 'proxy:3128' } }), /fetch\.proxy must be an http/);
  });
});
