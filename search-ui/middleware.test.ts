import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../indexer/index.ts';
import { Secret } from '../lib/secret.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { idleStatus } from './status-fixture.ts';

const SITE = 'https://www.example.org';
const LOGIN = `Basic ${Buffer.from('reader:pw').toString('base64')}`;

/** Everything on: a login, CORS for SITE, a rate of 1 a second (a burst of 2); counts the statuses the routes ask for. */
function guarded() {
  let statuses = 0;
  const app = createApp({
    ...serverDefaults(),
    searcher: new SearchIndex(() => undefined),
    status: async () => {
      statuses++;
      return idleStatus();
    },
    version: 't',
    processMetrics: false,
    hosts: { bound: 'search.intra' },
    corsOrigins: [SITE],
    apiRate: 1,
    serverAuth: { basic: { username: 'reader', password: Secret.of('pw', 'test') } },
  });
  return { app, statuses: () => statuses };
}

const preflight = { method: 'OPTIONS', headers: { origin: SITE, 'access-control-request-method': 'GET', 'access-control-request-headers': 'if-none-match' } };

describe('the middleware, in the order of their table', () => {
  it('answers a wrong Host 421 before anything else: no preflight, no login asked, no token spent, no handler run', async () => {
    const { app, statuses } = guarded();
    const rebound = { host: 'rebound.example' };
    const pre = await app.request('/api/search?q=x', { ...preflight, headers: { ...preflight.headers, ...rebound } });
    assert.equal(pre.status, 421);
    assert.equal(pre.headers.get('access-control-allow-origin'), null, 'no CORS answer to a rebound name');
    for (let i = 0; i < 4; i++) {
      const res = await app.request('/api/status', { headers: { ...rebound, authorization: LOGIN } });
      assert.equal(res.status, 421, 'still 421 once the burst would be spent: the rate limit never saw them');
      assert.equal(res.headers.get('www-authenticate'), null);
    }
    assert.equal(statuses(), 0);
    assert.equal((await app.request('/api/status', { headers: { authorization: LOGIN } })).status, 200, 'no token was spent');
  });

  it('answers a preflight before the login (it carries no credentials)', async () => {
    const { app } = guarded();
    const pre = await app.request('/api/search?q=x', preflight);
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), SITE);
    assert.equal((await app.request('/api/search?q=x', { headers: { origin: SITE } })).status, 401, 'the search itself needs the login');
  });

  it('asks for the login before the rate limit: requests without it spend no token', async () => {
    const { app } = guarded();
    for (let i = 0; i < 5; i++) assert.equal((await app.request('/api/status')).status, 401);
    const codes: number[] = [];
    for (let i = 0; i < 3; i++) codes.push((await app.request('/api/status', { headers: { authorization: LOGIN } })).status);
    assert.deepEqual(codes, [200, 200, 429], 'the whole burst of 2 was left for the requests with the login');
  });

  it('answers 429 before the handler runs', async () => {
    const { app, statuses } = guarded();
    const ask = () => app.request('/api/status', { headers: { authorization: LOGIN } });
    assert.deepEqual([(await ask()).status, (await ask()).status], [200, 200]);
    assert.equal(statuses(), 2);
    const limited = await ask();
    assert.equal(limited.status, 429);
    assert.equal(((await limited.json()) as { code: string }).code, 'rate-limited');
    assert.equal(statuses(), 2, 'the route did not run');
  });
});
