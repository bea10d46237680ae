import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../../indexer/index.ts';
import type { AdminActions, AdminTarget } from './admin.ts';
import { createApp } from '../app.ts';
import { serverDefaults } from '../server-fixture.ts';
import { idleStatus } from '../status-fixture.ts';

const statusNow = () => idleStatus({ running: true });

/** Admin actions that record what they were asked. */
function recorder() {
  const calls: string[] = [];
  const actions: AdminActions = {
    addSeeds: async (urls) => {
      calls.push(`seeds ${urls.join(' ')}`);
      return { queued: [...urls], rejected: [] };
    },
    pause: async () => void calls.push('pause'),
    resume: async () => void calls.push('resume'),
    recrawl: async (t: AdminTarget) => {
      calls.push(`recrawl ${JSON.stringify(t)}`);
      return { queued: 3 };
    },
    remove: async (t) => {
      calls.push(`remove ${JSON.stringify(t)}`);
      return { removed: 1 };
    },
  };
  return { calls, actions };
}

const TOKEN = 'correct-horse-battery-staple';
const index = new SearchIndex(() => undefined);

describe('the admin API', () => {
  const { calls, actions } = recorder();
  const app = createApp({
    ...serverDefaults(),
    searcher: index,
    status: async () => statusNow(),
    version: 't',
    admin: actions,
    adminToken: TOKEN,
    apiRate: 1000,
  });
  const send = (method: string, path: string, opts: { token?: string; body?: unknown; raw?: string } = {}) =>
    app.request(path, {
      method,
      headers: { ...(opts.token !== undefined ? { authorization: `Bearer ${opts.token}` } : {}), 'content-type': 'application/json' },
      ...(opts.body !== undefined || opts.raw !== undefined ? { body: opts.raw ?? JSON.stringify(opts.body) } : {}),
    });

  it('does each action with the token', async () => {
    calls.length = 0;
    assert.deepEqual(await (await send('POST', '/api/seeds', { token: TOKEN, body: { urls: ['http://a.test/'] } })).json(), {
      queued: ['http://a.test/'],
      rejected: [],
    });
    assert.deepEqual(await (await send('POST', '/api/pause', { token: TOKEN })).json(), { paused: true });
    assert.deepEqual(await (await send('POST', '/api/resume', { token: TOKEN })).json(), { paused: false });
    assert.deepEqual(await (await send('POST', '/api/recrawl', { token: TOKEN, body: { host: 'A.test:8080' } })).json(), { queued: 3 });
    assert.equal((await send('POST', '/api/recrawl', { token: TOKEN, body: { all: true } })).status, 200);
    assert.deepEqual(await (await send('DELETE', '/api/documents?url=http%3A%2F%2Fa.test%2Fx', { token: TOKEN })).json(), { removed: 1 });
    assert.deepEqual(calls, [
      'seeds http://a.test/',
      'pause',
      'resume',
      'recrawl {"host":"a.test:8080"}',
      'recrawl {"all":true}',
      'remove {"url":"http://a.test/x"}',
    ]);
  });

  it('answers 401 without the right token, and changes nothing', async () => {
    calls.length = 0;
    for (const token of [undefined, '', 'wrong-token-wrong-token', `${TOKEN}x`]) {
      for (const [method, path, body] of [
        ['POST', '/api/seeds', { urls: ['http://a.test/'] }],
        ['POST', '/api/pause'],
        ['POST', '/api/recrawl', { all: true }],
        ['DELETE', '/api/documents?host=a.test'],
      ] as const) {
        const res = await send(method, path, { ...(token !== undefined ? { token } : {}), ...(body ? { body } : {}) });
        assert.equal(res.status, 401, `${method} ${path} with ${String(token)}`);
        assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
      }
    }
    assert.deepEqual(calls, []);
  });

  it('refuses bad bodies with 400 and a stable code, and big ones with 413', async () => {
    const cases: [string, string, { body?: unknown; raw?: string }, string][] = [
      ['POST', '/api/seeds', { raw: '{not json' }, 'bad-body'],
      ['POST', '/api/seeds', { body: { urls: [] } }, 'bad-body'],
      ['POST', '/api/seeds', { body: { urls: [1] } }, 'bad-body'],
      ['POST', '/api/seeds', { body: [] }, 'bad-body'],
      ['POST', '/api/recrawl', { body: {} }, 'bad-target'],
      ['POST', '/api/recrawl', { body: { url: 'javascript:alert(1)' } }, 'bad-target'],
      ['POST', '/api/recrawl', { body: { url: 'http://a.test/', host: 'a.test' } }, 'bad-target'],
      ['DELETE', '/api/documents', {}, 'bad-target'],
      ['DELETE', '/api/documents?host=a%20b', {}, 'bad-target'],
    ];
    for (const [method, path, opts, code] of cases) {
      const res = await send(method, path, { token: TOKEN, ...opts });
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(opts)}`);
      assert.equal(((await res.json()) as { code: string }).code, code);
    }
    const big = await send('POST', '/api/seeds', {
      token: TOKEN,
      raw: JSON.stringify({ urls: Array.from({ length: 3000 }, (_, i) => `http://a.test/${'x'.repeat(20)}${i}`) }),
    });
    assert.equal(big.status, 413);
  });

  it('is off without a configured token: 403, and nothing changes', async () => {
    const off = recorder();
    const closed = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => statusNow(),
      version: 't',
      admin: off.actions,
      adminToken: undefined,
    });
    const res = await closed.request('/api/pause', { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 403);
    assert.equal(((await res.json()) as { code: string }).code, 'admin-disabled');
    assert.deepEqual(off.calls, []);
    assert.match(await (await closed.request('/status')).text(), /Admin actions are off/);
  });
});

describe('API rate limit', () => {
  it('answers 429 with Retry-After past the burst, for the API only', async () => {
    const app = createApp({ ...serverDefaults(), searcher: index, status: async () => statusNow(), version: 't', apiRate: 5 });
    const codes: number[] = [];
    for (let i = 0; i < 12; i++) codes.push((await app.request('/api/status')).status);
    assert.deepEqual(codes.slice(0, 10), Array(10).fill(200), 'a burst of twice the rate');
    const limited = await app.request('/api/status');
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal(((await limited.json()) as { code: string }).code, 'rate-limited');
    assert.equal((await app.request('/')).status, 200, 'pages are not limited');
  });
});
