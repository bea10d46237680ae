import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../indexer/index.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { allowedMethods, hostAllowed, StreamGate } from './guards.ts';
import { listen } from './server.ts';
import { idleStatus } from './status-fixture.ts';

const statusNow = () => idleStatus({ running: true });
const index = new SearchIndex(() => undefined);
const TOKEN = 'correct-horse-battery-staple';
const noop = async () => undefined;
const admin = {
  addSeeds: async (urls: readonly string[]) => ({ queued: [...urls], rejected: [] }),
  pause: noop,
  resume: noop,
  recrawl: async () => ({ queued: 1 }),
  remove: async () => ({ removed: 0 }),
};
const app = createApp({
  ...serverDefaults(),
  searcher: index,
  status: async () => statusNow(),
  version: 't',
  admin,
  adminToken: TOKEN,
  apiRate: 1000,
  hosts: { bound: 'search.intra', allowed: ['docs.example.org', '*.corp.example'] },
});

describe('the Host check (DNS rebinding)', () => {
  it('answers 421 to a name it was not given, on pages and on the API', async () => {
    for (const host of [
      'evil.example',
      'evil.example:8080',
      '127.0.0.1.evil.example',
      'corp.example',
      'xdocs.example.org',
      'localhost.evil.example',
      'a b',
      '[zz]',
    ]) {
      for (const path of ['/', '/status', '/api/status', '/api/search?q=x', '/metrics']) {
        const res = await app.request(`http://127.0.0.1${path}`, { headers: { host } });
        assert.equal(res.status, 421, `${host} ${path}`);
        const body = await res.text();
        assert.match(body, /server\.allowedHosts/, `${host} ${path}`);
        if (path.startsWith('/api/')) assert.equal((JSON.parse(body) as { code: string }).code, 'unknown-host');
      }
    }
  });

  it('answers IP addresses, localhost, the name it is bound to and server.allowedHosts', async () => {
    for (const host of [
      '127.0.0.1',
      '127.0.0.1:8080',
      '10.1.2.3',
      '[::1]:8080',
      '[::1]',
      'localhost',
      'LOCALHOST:80',
      'search.intra',
      'Search.Intra:8080',
      'docs.example.org',
      'docs.example.org.',
      'a.corp.example',
      'b.a.corp.example:9',
    ]) {
      assert.equal((await app.request('http://127.0.0.1/api/status', { headers: { host } })).status, 200, host);
    }
  });

  it('takes `*` for any name, and lets a request without Host through', () => {
    assert.ok(hostAllowed('anything.example', { allowed: ['*'] }));
    assert.ok(hostAllowed(undefined, {}));
    assert.ok(!hostAllowed('anything.example', {}));
    assert.ok(!hostAllowed('anything.example', { bound: '0.0.0.0' }));
  });

  it('holds on a real socket, whatever URL the client used', async () => {
    const server = await listen(app, '127.0.0.1', 0);
    try {
      const { request } = await import('node:http');
      const status = (host: string) =>
        new Promise<number>((resolve, reject) => {
          const req = request(`${server.url}api/status`, { headers: { host } }, (res) => {
            res.resume();
            resolve(res.statusCode ?? 0);
          });
          req.on('error', reject);
          req.end();
        });
      assert.equal(await status('rebound.example'), 421);
      assert.equal(await status(new URL(server.url).host), 200);
    } finally {
      await server.close();
    }
  });
});

describe('methods', () => {
  it('answers 405 with Allow to a method a path does not have', async () => {
    const cases: [string, string, string][] = [
      ['POST', '/api/search?q=x', 'GET, HEAD'],
      ['DELETE', '/api/status', 'GET, HEAD'],
      ['GET', '/api/pause', 'POST'],
      ['PUT', '/api/seeds', 'POST'],
      ['GET', '/api/documents', 'DELETE'],
      ['POST', '/', 'GET, HEAD'],
      ['PUT', '/status', 'GET, HEAD'],
      ['DELETE', '/static/app.js', 'GET, HEAD'],
    ];
    for (const [method, path, allow] of cases) {
      const res = await app.request(path, { method, headers: { authorization: `Bearer ${TOKEN}` } });
      assert.equal(res.status, 405, `${method} ${path}`);
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      if (path.startsWith('/api/')) assert.equal(((await res.json()) as { code: string }).code, 'method-not-allowed');
    }
  });

  it('still answers 404 where no method has the path, and HEAD where GET does', async () => {
    assert.equal((await app.request('/api/nope', { method: 'POST' })).status, 404);
    assert.equal((await app.request('/nope')).status, 404);
    assert.equal((await app.request('/static/nope.js')).status, 404);
    assert.equal((await app.request('/api/status', { method: 'HEAD' })).status, 200);
  });

  it('reads the methods from the routes, middleware aside', () => {
    const routes = [
      { method: 'ALL', path: '/api/*' },
      { method: 'GET', path: '/static/:file' },
      { method: 'POST', path: '/api/seeds' },
      { method: 'DELETE', path: '/api/seeds' },
    ];
    assert.deepEqual(allowedMethods(routes, '/static/x.css'), ['GET', 'HEAD']);
    assert.deepEqual(allowedMethods(routes, '/api/seeds'), ['DELETE', 'POST']);
    assert.deepEqual(allowedMethods(routes, '/static/a/b'), []);
    assert.deepEqual(allowedMethods(routes, '/api/other'), []);
  });
});

describe('static files', () => {
  it("finds nothing under the names of an object's own properties (was a 500 with a stack trace)", async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__']) {
      const res = await app.request(`/static/${name}`);
      assert.equal(res.status, 404, name);
      assert.doesNotMatch(await res.text(), /TypeError|at .*\.ts/, name);
    }
  });
});

describe('HSTS', () => {
  it('is sent over HTTPS only', async () => {
    assert.equal((await app.request('http://localhost/')).headers.get('strict-transport-security'), null);
    assert.match((await app.request('https://localhost/')).headers.get('strict-transport-security') ?? '', /^max-age=\d+/);
  });
});

describe('server-sent event streams', () => {
  it('are capped (server.maxEventStreams): 503 with Retry-After beyond, a place again once one closes', async () => {
    const capped = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => statusNow(),
      version: 't',
      maxEventStreams: 2,
      eventIntervalMs: 10,
      apiRate: 1000,
    });
    const open = async () => {
      const res = await capped.request('/api/events');
      if (res.status !== 200) return { res, reader: undefined };
      const reader = res.body!.getReader();
      await reader.read(); // the first event: the stream runs
      return { res, reader };
    };
    const a = await open();
    const b = await open();
    const c = await open();
    assert.deepEqual([a.res.status, b.res.status, c.res.status], [200, 200, 503]);
    assert.ok(Number(c.res.headers.get('retry-after')) > 0);
    assert.equal(((await c.res.json()) as { code: string }).code, 'too-many-streams');
    await a.reader!.cancel();
    const d = await open();
    assert.equal(d.res.status, 200, 'a closed stream gives its place back at once');
    assert.equal((await open()).res.status, 503, 'once');
    await b.reader!.cancel();
    await d.reader!.cancel();
  });
});

describe('the cap on event streams (StreamGate)', () => {
  it('gives a place back once, however often its end is told', () => {
    const gate = new StreamGate(2);
    const leave = gate.enter()!;
    assert.ok(gate.enter());
    assert.equal(gate.enter(), undefined, 'full');
    leave();
    leave();
    assert.equal(gate.count, 1);
    assert.ok(gate.enter());
    assert.equal(gate.enter(), undefined, 'full again: the second leave() gave nothing back');
  });
});

describe('the admin API takes JSON however it is labelled', () => {
  it('as curl -d sends it (form-urlencoded), or with no type at all', async () => {
    for (const type of ['application/x-www-form-urlencoded', undefined, 'text/plain']) {
      const res = await app.request('/api/recrawl', {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, ...(type ? { 'content-type': type } : {}) },
        body: '{"url":"http://a.test/"}',
      });
      assert.equal(res.status, 200, String(type));
    }
    const bad = await app.request('/api/recrawl', {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'url=http://a.test/',
    });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { code: string }).code, 'bad-body');
  });

  it('over a real socket too', async () => {
    const server = await listen(app, '127.0.0.1', 0);
    try {
      const res = await fetch(`${server.url}api/seeds`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: '{"urls":["http://a.test/"]}',
      });
      assert.deepEqual(await res.json(), { queued: ['http://a.test/'], rejected: [] });
    } finally {
      await server.close();
    }
  });
});
