import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../indexer/index.ts';
import { Secret } from '../lib/secret.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { idleStatus } from './status-fixture.ts';

const statusNow = () => idleStatus();
const ADMIN = 'admin-token-0123456789';
const noop = async () => undefined;
const admin = {
  addSeeds: async () => ({ queued: [], rejected: [] }),
  pause: noop,
  resume: noop,
  recrawl: async () => ({ queued: 0 }),
  remove: async () => ({ removed: 0 }),
};
const basic = (user: string, pw: string) => `Basic ${Buffer.from(`${user}:${pw}`).toString('base64')}`;

describe('server.auth', () => {
  const app = createApp({
    ...serverDefaults(),
    searcher: new SearchIndex(() => undefined),
    status: async () => statusNow(),
    version: 't',
    processMetrics: false,
    admin,
    adminToken: ADMIN,
    serverAuth: { basic: { username: 'reader', password: Secret.of('s3cret pw', 'test') } },
  });
  const get = (path: string, authorization?: string, method = 'GET') => app.request(path, { method, headers: authorization ? { authorization } : {} });

  it('asks for a login on every page, the API and the dashboard, and lets /healthz through', async () => {
    for (const path of ['/', '/?q=x', '/status', '/api/status', '/api/search?q=x', '/metrics', '/api/openapi.json', '/static/app.js']) {
      const res = await get(path);
      assert.equal(res.status, 401, path);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm="Trawl search"/, path);
    }
    assert.equal(((await (await get('/api/status')).json()) as { code: string }).code, 'unauthorized');
    assert.equal((await get('/healthz')).status, 200);
  });

  it('answers with the right login, refuses a wrong one, and takes the admin token too', async () => {
    assert.equal((await get('/', basic('reader', 's3cret pw'))).status, 200);
    assert.equal((await get('/api/status', basic('reader', 's3cret pw'))).status, 200);
    for (const wrong of [basic('reader', 'nope'), basic('other', 's3cret pw'), 'Bearer s3cret pw', ''])
      assert.equal((await get('/', wrong)).status, 401, wrong);
    assert.equal((await get('/api/pause', `Bearer ${ADMIN}`, 'POST')).status, 200, 'an admin passes with the admin token');
    assert.equal((await get('/api/pause', basic('reader', 's3cret pw'), 'POST')).status, 401, 'a reader is no admin');
  });

  it('takes a bearer token instead', async () => {
    const b = createApp({
      ...serverDefaults(),
      searcher: new SearchIndex(() => undefined),
      status: async () => statusNow(),
      version: 't',
      processMetrics: false,
      serverAuth: { bearer: { token: Secret.of('tok-xyz', 'test') } },
    });
    assert.equal((await b.request('/')).status, 401);
    assert.match((await b.request('/')).headers.get('www-authenticate') ?? '', /^Bearer/);
    assert.equal((await b.request('/', { headers: { authorization: 'Bearer tok-xyz' } })).status, 200);
  });
});
