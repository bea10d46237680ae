// Integration: crawling a fake intranet (testweb/intranet.ts) behind Basic, Digest, a bearer token
// and a form login whose session expires, through a proxy, over TLS with a private CA — and the
// secrets appearing nowhere: not in the data directory, the log, the status or a URL's record.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { logTo } from '../lib/log.ts';
import { startIntranet, type Intranet } from '../testweb/intranet.ts';
import { Appliance } from './appliance.ts';

/** Every file under `dir`, as bytes. */
const filesOf = (dir: string): Buffer[] =>
  readdirSync(dir).flatMap((f) => (statSync(join(dir, f)).isDirectory() ? filesOf(join(dir, f)) : [readFileSync(join(dir, f))]));

async function crawl(overrides: Record<string, unknown>, env: Record<string, string> = {}) {
  const logs: string[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-auth-'));
  const config = loadConfig({
    env,
    overrides: { dataDir, perHost: { delayMs: 0 }, parseWorkers: 0, retry: { maxAttempts: 1, baseDelayMs: 10 }, render: 'never', ...overrides },
  });
  const app = await Appliance.open(config, { lockFor: 'test', log: logTo((m) => logs.push(m)) });
  await (await app.createCrawler()).crawler.run();
  return { app, dataDir, logs };
}

describe('a crawl behind logins', () => {
  let net: Intranet;
  let app: Appliance;
  let dataDir: string;
  let logs: string[];
  const SECRETS = () => [
    net.basic.password,
    net.digest.password,
    net.bearer.token,
    net.form.password,
    Buffer.from(`${net.basic.user}:${net.basic.password}`).toString('base64'),
  ];

  before(async () => {
    net = await startIntranet({ sessionRequests: 3, wikiPages: 6 });
    const hostRule = (u: string) => `HOST:^${new URL(u).host.replace(/\./g, '\\.')}$`;
    ({ app, dataDir, logs } = await crawl(
      {
        seeds: [net.basic.url, net.digest.url, net.bearer.url, `${net.form.url}/`],
        scope: { allow: [net.basic.url, net.digest.url, net.bearer.url, net.form.url, net.other.url].map(hostRule), exclude: ['URL:/logout$'] },
        auth: [
          { match: hostRule(net.basic.url), basic: { username: net.basic.user, passwordEnv: 'BASIC_PW' } },
          { match: hostRule(net.digest.url), digest: { username: net.digest.user, passwordEnv: 'DIGEST_PW' } },
          { match: hostRule(net.bearer.url), bearer: { tokenEnv: 'BEARER_TOKEN' } },
          {
            match: hostRule(net.form.url),
            form: { url: `${net.form.url}/login`, fields: { user: net.form.user }, secretFields: { pass: 'WIKI_PW' }, loggedOut: { urlMatches: '/login' } },
          },
        ],
      },
      { BASIC_PW: net.basic.password, DIGEST_PW: net.digest.password, BEARER_TOKEN: net.bearer.token, WIKI_PW: net.form.password },
    ));
  });
  after(async () => {
    await app?.close();
    await net?.close();
  });

  // exact: basicword must not also find basicworda as a word being typed.
  const found = async (q: string) => (await app.index.search(q, { exact: true })).hits.map((h) => h.url);

  it('indexes what each kind of credentials opens', async () => {
    for (const word of ['basicword', 'basicworda', 'basicwordb', 'digestword', 'digestworda', 'bearerword', 'bearerworda', 'wikihomeword'])
      assert.equal((await found(word)).length, 1, word);
    for (let n = 1; n <= 6; n++) assert.equal((await found(`wikiword${n}`)).length, 1, `wiki page ${n}`);
  });

  it('logs in again when the session ends, and never indexes the login page', async () => {
    assert.ok(net.form.logins >= 2, `${net.form.logins} logins for ${6 + 1} pages at 3 requests a session`);
    const form = (await app.status()).auth!.find((a) => a.kind === 'form')!;
    assert.ok(form.renewals >= 1 && form.loginFailures === 0, JSON.stringify(form));
    assert.deepEqual(await found('loginpageword'), []);
    const login = await app.explain(`${net.form.url}/login`);
    assert.ok(!login.known || (login.state === 'excluded' && /login page/.test(login.reason ?? '')), JSON.stringify(login));
  });

  it('sends credentials only where their scope covers: not after a redirect to another host, not to a sitemap elsewhere', async () => {
    assert.ok(
      net.other.log.some((r) => r.path === '/sitemap.xml'),
      'the sitemap robots.txt names on the other host was read',
    );
    assert.ok(
      net.other.log.some((r) => r.path === '/'),
      'the redirect from /moved was followed',
    );
    for (const r of net.other.log) assert.ok(!r.authorization && !r.cookie, `credentials reached the other host: ${JSON.stringify(r)}`);
    for (const r of net.bearer.log) assert.ok(!r.cookie, "the wiki's session cookie went to another scope");
    assert.ok(net.basic.log.filter((r) => r.path !== '/robots.txt').every((r) => r.authorization?.startsWith('Basic ')));
  });

  it('writes no secret anywhere: data directory, log, status, records', async () => {
    await app.flush();
    const places: [string, string][] = [
      ['log', logs.join('\n')],
      ['status', JSON.stringify(await app.status())],
      ['records', JSON.stringify(await Promise.all([net.basic.url, `${net.form.url}/login`, `${net.form.url}/wiki/2`].map((u) => app.explain(u))))],
      ...filesOf(dataDir).map((b, i): [string, string] => [`data file ${i}`, b.toString('latin1')]),
    ];
    for (const secret of SECRETS()) for (const [where, text] of places) assert.ok(!text.includes(secret), `${where} holds a secret`);
  });
});

describe('credentials refused, and company networks', () => {
  let net: Intranet;
  before(async () => {
    net = await startIntranet();
  });
  after(async () => {
    await net?.close();
  });

  it('records refused credentials and a failed login with the scope, never the secret', async () => {
    const rule = (u: string) => `HOST:^${new URL(u).host.replace(/\./g, '\\.')}$`;
    const { app, logs } = await crawl(
      {
        seeds: [net.basic.url, `${net.form.url}/`],
        auth: [
          { match: rule(net.basic.url), basic: { username: net.basic.user, passwordEnv: 'PW' } },
          { match: rule(net.form.url), form: { url: `${net.form.url}/login`, fields: { user: net.form.user }, secretFields: { pass: 'PW' } } },
        ],
      },
      { PW: 'wrong-password-4711' },
    );
    try {
      const basic = await app.explain(net.basic.url);
      assert.ok(basic.known && basic.error === 'auth-failed', JSON.stringify(basic));
      assert.match(basic.reason ?? '', /HTTP 401 with the credentials of scope HOST:/);
      const wiki = await app.explain(`${net.form.url}/`);
      assert.ok(wiki.known && wiki.error === 'auth-failed' && /login failed .*still on the login page/.test(wiki.reason ?? ''), JSON.stringify(wiki));
      const scopes = (await app.status()).auth!;
      assert.equal(scopes.find((a) => a.kind === 'form')!.loginFailures, 1);
      assert.ok(!JSON.stringify([basic, wiki, scopes, logs]).includes('wrong-password-4711'));
    } finally {
      await app.close();
    }
  });

  /** The wiki's form login under a `match` rule, its pages in scope and its logout not. */
  const wikiBehind = (match: string) => ({
    seeds: [`${net.form.url}/`],
    scope: { allow: [`HOST:^${new URL(net.form.url).host.replace(/\./g, '\\.')}$`], exclude: ['URL:/logout$'] },
    auth: [
      { match, form: { url: `${net.form.url}/login`, fields: { user: net.form.user }, secretFields: { pass: 'PW' }, loggedOut: { urlMatches: '/login' } } },
    ],
  });

  it('applies a HOST: scope that names the host without its port (regression, issue 35: HOST:^wiki\\.intra$ missed wiki.intra:8443)', async () => {
    const { hostname, port } = new URL(net.form.url);
    assert.notEqual(port, '', 'the wiki answers on a port of its own');
    const { app, logs } = await crawl(wikiBehind(`HOST:^${hostname.replace(/\./g, '\\.')}$`), { PW: net.form.password });
    try {
      for (let n = 1; n <= net.form.pages; n++) assert.equal((await app.index.search(`wikiword${n}`, { exact: true })).total, 1, `wiki page ${n}`);
      const scope = (await app.status()).auth![0]!;
      assert.ok(scope.requests > net.form.pages && scope.logins >= 1, JSON.stringify(scope));
      assert.ok(!logs.some((l) => /covers none|never applied/.test(l)), logs.join('\n'));
    } finally {
      await app.close();
    }
  });

  it('warns at the start of a scope that covers none of the seeds’ hosts, and at the end that pages were sent to its login page', async () => {
    const { app, logs } = await crawl(wikiBehind('HOST:^wiki\\.intra$'), { PW: net.form.password });
    try {
      const host = new URL(net.form.url).host;
      const start = logs.find((l) => /auth scope HOST:\^wiki\\\.intra\$ covers none of the seeds' hosts/.test(l));
      assert.ok(start?.includes(`(${host})`), `the host as Trawl sees it, with its port: ${logs.join('\n')}`);
      const scope = (await app.status()).auth![0]!;
      assert.equal(scope.requests, 0, 'its credentials went nowhere');
      assert.ok(scope.loginRedirectsOutside >= 1, JSON.stringify(scope));
      assert.deepEqual(scope.hostsOutside, [host]);
      const end = logs.filter((l) => /sent to the login page of auth scope HOST:\^wiki\\\.intra\$, which never applied/.test(l));
      assert.equal(end.length, 1, logs.join('\n'));
      assert.match(end[0]!, new RegExp(`^${scope.loginRedirectsOutside} pages? (was|were) sent .*\\(${host.replace(/\./g, '\\.')}\\)`));
      assert.equal(app.index.documentCount, 0, 'nothing behind the login was indexed');
    } finally {
      await app.close();
    }
  });

  it('logs in through the browser (form.browser), and hands the session to the plain fetcher', async () => {
    const rule = `HOST:^${new URL(net.form.url).host.replace(/\./g, '\\.')}$`;
    const before = net.form.logins;
    const { app } = await crawl(
      {
        seeds: [`${net.form.url}/`],
        scope: { allow: [rule], exclude: ['URL:/logout$'] },
        auth: [
          {
            match: rule,
            form: {
              url: `${net.form.url}/login`,
              fields: { user: net.form.user },
              secretFields: { pass: 'PW' },
              loggedOut: { urlMatches: '/login' },
              browser: true,
            },
          },
        ],
      },
      { PW: net.form.password },
    );
    try {
      assert.ok(net.form.logins > before, 'the browser logged in');
      for (let n = 1; n <= net.form.pages; n++) assert.equal((await app.index.search(`wikiword${n}`)).total, 1, `wiki page ${n}`);
      const wikiRequests = net.form.log.filter((r) => /^\/wiki\//.test(r.path));
      assert.ok(
        wikiRequests.every((r) => /sid=/.test(r.cookie ?? '')),
        "the plain fetcher sent the browser's session cookie",
      );
    } finally {
      await app.close();
    }
  });

  it('goes through fetch.proxy: names only the proxy resolves, plain and TLS', async () => {
    const { app } = await crawl({ seeds: [net.other.nameUrl], fetch: { proxy: net.proxy.url, allowPrivateAddresses: true } });
    try {
      assert.equal((await app.index.search('otherword')).total, 1);
      assert.ok(
        net.proxy.log.some((r) => r.target.includes('other.intranet.test')),
        JSON.stringify(net.proxy.log.slice(0, 3)),
      );
    } finally {
      await app.close();
    }
  });

  it('trusts a private CA from fetch.caFile, and a self-signed host only when named in fetch.insecureHosts', async () => {
    const refused = await crawl({ seeds: [net.tls.url, net.selfSigned.url] });
    try {
      for (const u of [net.tls.url, net.selfSigned.url]) {
        const r = await refused.app.explain(u);
        assert.ok(r.known && r.error === 'tls', JSON.stringify(r));
      }
    } finally {
      await refused.app.close();
    }
    const trusted = await crawl({ seeds: [net.tls.url, net.selfSigned.url], fetch: { caFile: net.tls.caFile, insecureHosts: [net.selfSigned.host] } });
    try {
      assert.equal((await trusted.app.index.search('tlsworda', { exact: true })).total, 1);
      assert.equal((await trusted.app.index.search('selfsignedword', { exact: true })).total, 1);
      assert.ok(trusted.logs.some((l) => /insecureHosts: the TLS certificate of .* is NOT checked/.test(l)));
    } finally {
      await trusted.app.close();
    }
  });
});
