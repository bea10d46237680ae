// The levers through the server (curation-api.ts, console-levers.ts, routes/console.ts): PUT and GET
// /api/synonyms and /api/rules behind the admin token, refused changes with their reason, the
// history with who made each change; the console's forms change the next search, without JavaScript.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Curation, CuratedSearcher, leversOf } from '../appliance/curation.ts';
import { SearchLog } from '../appliance/search-log.ts';
import { SearchReports } from '../appliance/search-reports.ts';
import { SearchIndex } from '../indexer/index.ts';
import { storedDocument } from '../indexer/test-document.ts';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { silentLog } from '../lib/log.ts';
import { normalizerOf } from '../appliance/wiring.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { idleStatus } from './status-fixture.ts';

const TOKEN = 'secret-token-123';
const pages = [
  storedDocument(1, { url: 'http://e.org/kill.html', title: 'Kill a query', text: 'kill query kill' }),
  storedDocument(2, { url: 'http://e.org/terminate.html', title: 'pg_terminate_backend', text: 'terminate a backend' }),
];
const index = new SearchIndex((id) => pages[id - 1]);
index.idsOf = (urls) => new Map(urls.flatMap((u) => pages.filter((p) => p.url === u).map((p) => [u, p.id] as const)));
for (const p of pages) index.upsert(p);
const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-levers-')));
const normalize = normalizerOf(DEFAULT_CONFIG);
const curation = await Curation.open(store.curation, { synonyms: [] }, normalize, silentLog);
const searchLog = new SearchLog(store.searchLog, silentLog, 90);
const reports = new SearchReports(store.searchReports, () => searchLog.flush(), searchLog.now);
after(async () => {
  curation.close();
  await searchLog.close();
  await store.close();
});
const app = createApp({
  ...serverDefaults(),
  searcher: new CuratedSearcher(index, curation),
  levers: leversOf(curation),
  status: async () => idleStatus({ documents: 2 }),
  version: '0.0.0-test',
  analytics: searchLog,
  reports,
  adminToken: TOKEN,
});
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const put = (path: string, body: unknown, headers: Record<string, string> = auth) => app.request(path, { method: 'PUT', headers, body: JSON.stringify(body) });
const urls = async (q: string) =>
  ((await (await app.request(`/api/search?q=${encodeURIComponent(q)}`)).json()) as { hits: { url: string }[] }).hits.map((h) => h.url);

describe('the levers over HTTP', () => {
  it('PUT /api/synonyms and /api/rules change the next search; refused with a reason; admin only; in the history', async () => {
    assert.equal((await put('/api/synonyms', { synonyms: ['kill => terminate'] }, { 'content-type': 'application/json' })).status, 401);
    assert.equal((await app.request('/api/rules')).status, 401);
    assert.equal((await put('/api/synonyms', { synonyms: ['a, b'.repeat(1)], pad: 'x'.repeat(5 * 1024 * 1024) })).status, 413);
    assert.deepEqual(await urls('kill'), ['http://e.org/kill.html']);
    const bad = await put('/api/synonyms', { synonyms: ['kill => kill'] });
    assert.equal(bad.status, 400);
    assert.match(((await bad.json()) as { error: string }).error, /adds nothing/);
    const ok = await put('/api/synonyms', { synonyms: ['kill => terminate'] });
    assert.deepEqual(await ok.json(), { synonyms: ['kill => terminate'] });
    assert.deepEqual(await urls('kill'), ['http://e.org/kill.html', 'http://e.org/terminate.html']);
    assert.equal((await put('/api/rules', { queries: [{ match: { query: 'kill' }, pin: Array(11).fill('http://e.org/a') }] })).status, 400);
    const rules = await put('/api/rules', { queries: [{ match: { query: 'Kill' }, pin: ['http://e.org/terminate.html'] }] });
    assert.equal(rules.status, 200);
    assert.deepEqual(await rules.json(), { queries: [{ match: { query: 'kill' }, pin: ['http://e.org/terminate.html'], hide: [] }], prefixes: [] });
    assert.deepEqual(await urls('kill'), ['http://e.org/terminate.html', 'http://e.org/kill.html']);
    const answer = (await (await app.request('/api/search?q=kill&explain=1')).json()) as {
      hits: { adjusted?: unknown; explain: { words: { synonymOf?: string }[] } }[];
      synonyms: unknown;
    };
    assert.deepEqual(answer.hits[0]!.adjusted, { pinned: true });
    assert.equal(answer.hits[0]!.explain.words[0]!.synonymOf, 'kill');
    assert.deepEqual(answer.synonyms, [{ from: 'kill', to: ['terminate'] }]);
    const history = (await (await app.request('/api/curation/history', { headers: auth })).json()) as { changes: { what: string; by: string }[] };
    assert.deepEqual(
      history.changes.map((h) => h.what),
      ['rules', 'synonyms'],
    );
    assert.ok(history.changes.every((h) => h.by === 'admin token'));
    const spec = (await (await app.request('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    assert.ok(spec.paths['/api/synonyms']?.put && spec.paths['/api/rules']?.put && spec.paths['/api/curation/history']?.get);
  });

  it("the console's forms edit the synonyms and rules without JavaScript, and say why a change is refused", async () => {
    const login = await app.request('/console/login', { method: 'POST', body: new URLSearchParams({ token: TOKEN, next: '/console' }) });
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]!;
    const post = (path: string, fields: Record<string, string>) =>
      app.request(path, { method: 'POST', headers: { cookie }, body: new URLSearchParams(fields) });
    assert.equal((await app.request('/console/synonyms', { method: 'POST', body: new URLSearchParams({ synonyms: 'a, b' }) })).status, 401);
    const saved = await post('/console/synonyms', { synonyms: 'k8s, kubernetes\r\nkill => cancel' });
    assert.equal(saved.status, 303);
    assert.deepEqual(curation.current.synonyms, ['k8s, kubernetes', 'kill => cancel']);
    assert.equal((await post('/console/synonyms/add', { line: 'kill => terminate' })).status, 303);
    assert.deepEqual(curation.current.synonyms.at(-1), 'kill => terminate');
    const refused = await post('/console/synonyms', { synonyms: 'lonely' });
    assert.equal(refused.status, 400);
    assert.match(await refused.text(), /role="alert">synonyms &quot;lonely&quot;: a group has two entries/);
    assert.equal((await post('/console/rules/add', { kind: 'prefix', prefix: 'http://e.org/', factor: '2' })).status, 303);
    assert.equal((await post('/console/rules/add', { kind: 'query', query: 'backend', pin: 'http://e.org/kill.html' })).status, 303);
    assert.deepEqual(await urls('backend'), ['http://e.org/kill.html', 'http://e.org/terminate.html']);
    const shown = await (await app.request('/console', { headers: { cookie } })).text();
    assert.match(shown, /<textarea id="synonyms"[^>]*>k8s, kubernetes\nkill =&gt; cancel\nkill =&gt; terminate<\/textarea>/);
    assert.match(shown, /<table id="prefix-rules">.*http:\/\/e\.org\/.*× 2/s);
    assert.match(shown, /<table id="history">/);
    assert.equal((await post('/console/rules/remove', { kind: 'query', index: '1' })).status, 303);
    assert.deepEqual(await urls('backend'), ['http://e.org/terminate.html']);
  });
});
