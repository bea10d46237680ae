import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../model/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import { storedDocument } from '../indexer/test-document.ts';
import { Secret } from '../lib/secret.ts';
import { createApp, type UiDeps } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { idleStatus } from './status-fixture.ts';

const statusNow = () => idleStatus({ documents: 1 });
const docs = new Map<number, StoredDocument>([[1, storedDocument(1, { url: 'http://e.org/a', title: 'Corsword page', text: 'corsword body' })]]);
const index = new SearchIndex((id) => docs.get(id));
index.upsert(docs.get(1)!);
const ADMIN = 'admin-token-0123456789';
const noop = async () => undefined;
const admin = {
  addSeeds: async () => ({ queued: [], rejected: [] }),
  pause: noop,
  resume: noop,
  recrawl: async () => ({ queued: 0 }),
  remove: async () => ({ removed: 0 }),
};
const appWith = (more: Partial<UiDeps>) =>
  createApp({
    ...serverDefaults(),
    searcher: index,
    status: async () => statusNow(),
    version: 't',
    processMetrics: false,
    admin,
    adminToken: ADMIN,
    explain: async (url) => ({ known: false, url, reason: 'never seen' }),
    apiRate: 1000,
    ...more,
  });

const SITE = 'https://www.example.org';
const preflight = (origin: string, headers = 'if-none-match') => ({
  method: 'OPTIONS',
  headers: { origin, 'access-control-request-method': 'GET', 'access-control-request-headers': headers },
});

describe('CORS (server.corsOrigins)', () => {
  const app = appWith({ corsOrigins: [SITE] });

  it('lets an allowed origin read the search: its origin echoed, Vary: Origin, the ETag exposed', async () => {
    const res = await app.request('/api/search?q=corsword', { headers: { origin: SITE } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('access-control-allow-origin'), SITE);
    assert.match(res.headers.get('vary') ?? '', /\bOrigin\b/);
    assert.match(res.headers.get('access-control-expose-headers') ?? '', /ETag/);
    assert.equal(res.headers.get('access-control-allow-credentials'), null, 'credentials are never shared across origins');
    assert.equal(((await res.json()) as { total: number }).total, 1);
  });

  it('answers its preflight: the methods and headers it may use, for ten minutes', async () => {
    const res = await app.request('/api/search?q=corsword', preflight(SITE));
    assert.equal(res.status, 204);
    assert.equal(res.headers.get('access-control-allow-origin'), SITE);
    assert.equal(res.headers.get('access-control-allow-methods'), 'GET,HEAD');
    assert.match(res.headers.get('access-control-allow-headers') ?? '', /If-None-Match/i);
    assert.equal(res.headers.get('access-control-max-age'), '600');
  });

  it('gives another origin no CORS header at all, and says the answer varied with Origin', async () => {
    const res = await app.request('/api/search?q=corsword', { headers: { origin: 'https://evil.example' } });
    assert.equal(res.status, 200, 'the server answers; the browser keeps the page from reading it');
    assert.equal(res.headers.get('access-control-allow-origin'), null);
    assert.match(res.headers.get('vary') ?? '', /\bOrigin\b/);
    const pre = await app.request('/api/search?q=corsword', preflight('https://evil.example'));
    assert.equal(pre.headers.get('access-control-allow-origin'), null);
    assert.equal(pre.headers.get('access-control-allow-methods'), null);
    const sameSiteOtherPort = await app.request('/api/search?q=corsword', { headers: { origin: 'https://www.example.org:8443' } });
    assert.equal(sameSiteOtherPort.headers.get('access-control-allow-origin'), null, 'an origin is scheme, host and port');
  });

  it('never shares the status, the URL records, the event stream or the admin actions', async () => {
    const auth = { authorization: `Bearer ${ADMIN}` };
    for (const [method, path] of [
      ['GET', '/api/status'],
      ['GET', '/api/document?url=http://e.org/a'],
      ['GET', '/api/openapi.json'],
      ['POST', '/api/pause'],
      ['POST', '/api/seeds'],
      ['DELETE', '/api/documents?host=e.org'],
      ['GET', '/status'],
      ['GET', '/?q=corsword'],
    ] as const) {
      const res = await app.request(path, { method, headers: { origin: SITE, ...auth } });
      assert.equal(res.headers.get('access-control-allow-origin'), null, `${method} ${path}`);
      const pre = await app.request(path, preflight(SITE, 'authorization, content-type'));
      assert.equal(pre.headers.get('access-control-allow-origin'), null, `OPTIONS ${path}`);
      assert.notEqual(pre.status, 204, `OPTIONS ${path}`);
    }
    const events = await app.request('/api/events', preflight(SITE));
    assert.equal(events.headers.get('access-control-allow-origin'), null, 'OPTIONS /api/events');
  });

  it('shares with every origin for `*`, and with none by default', async () => {
    const any = await appWith({ corsOrigins: ['*'] }).request('/api/search?q=corsword', { headers: { origin: 'https://anyone.example' } });
    assert.equal(any.headers.get('access-control-allow-origin'), '*');
    const none = await appWith({}).request('/api/search?q=corsword', { headers: { origin: SITE } });
    assert.equal(none.headers.get('access-control-allow-origin'), null);
    const nonePre = await appWith({}).request('/api/search?q=corsword', preflight(SITE));
    assert.equal(nonePre.headers.get('access-control-allow-origin'), null);
  });

  it('answers a preflight behind server.auth (it carries no credentials), and lets the page read the 401 that follows', async () => {
    const locked = appWith({ corsOrigins: [SITE], serverAuth: { basic: { username: 'reader', password: Secret.of('pw', 'test') } } });
    const pre = await locked.request('/api/search?q=corsword', preflight(SITE));
    assert.equal(pre.status, 204);
    assert.equal(pre.headers.get('access-control-allow-origin'), SITE);
    const res = await locked.request('/api/search?q=corsword', { headers: { origin: SITE } });
    assert.equal(res.status, 401);
    assert.equal(res.headers.get('access-control-allow-origin'), SITE, 'the widget can say that the search needs a login');
    assert.equal(((await res.json()) as { code: string }).code, 'unauthorized');
  });

  it('serves the widget to any page: a script other origins may load', async () => {
    const res = await app.request('/widget.js');
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.equal(res.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.match(await res.text(), /customElements\.define\(\s*'trawl-search'/);
    assert.equal((await app.request('/static/app.js')).headers.get('cross-origin-resource-policy'), 'same-origin', "the pages' own script stays theirs");
  });
});
