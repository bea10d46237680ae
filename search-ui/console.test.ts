// The search console through the server (routes/console.ts, console-page.ts, console-access.ts):
// who may see it (the admin token once, then a cookie; server.auth's login), what its pages show
// of the log, and its chart library served by Trawl itself.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { PAUSE_MS, SearchLog } from '../appliance/search-log.ts';
import { SearchReports } from '../appliance/search-reports.ts';
import { Secret } from '../lib/secret.ts';
import { silentLog } from '../lib/log.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';
import { createApp } from './app.ts';
import { serverDefaults, vacuumIndex } from './server-fixture.ts';
import { STATIC_FILES } from './static-files.ts';
import { idleStatus } from './status-fixture.ts';

const index = vacuumIndex();
const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-console-')));
let clock = Date.now();
const searchLog = new SearchLog(store.searchLog, silentLog, 90, () => clock);
const reports = new SearchReports(store.searchReports, () => searchLog.flush(), searchLog.now);
after(async () => {
  await searchLog.close();
  await store.close();
});
const base = { ...serverDefaults(), searcher: index, status: async () => idleStatus({ documents: 2 }), version: '0.0.0-test', analytics: searchLog, reports };
const app = createApp({ ...base, adminToken: 'secret-token-123' });

/** Logs in with the token; returns the cookie header to send. */
async function login(token = 'secret-token-123', on = app): Promise<string> {
  const res = await on.request('/console/login', { method: 'POST', body: new URLSearchParams({ token, next: '/console?site=e.org' }) });
  assert.equal(res.status, 303);
  assert.equal(res.headers.get('location'), '/console?site=e.org');
  const set = res.headers.get('set-cookie') ?? '';
  assert.match(set, /^trawl_console=[\w-]{40,};.*HttpOnly/i);
  assert.match(set, /SameSite=Strict/i);
  assert.doesNotMatch(set, /secret-token-123/);
  return set.split(';')[0]!;
}

describe('the search console', () => {
  it('asks for the admin token, takes it once (a cookie, never the token), and refuses a wrong one', async () => {
    const off = await createApp(base).request('/console');
    assert.equal(off.status, 403);
    assert.match(await off.text(), /server\.adminToken/);
    const asked = await app.request('/console?since=2026-11-01');
    assert.equal(asked.status, 401);
    assert.match(await asked.text(), /name="next" value="\/console\?since=2026-11-01"/);
    const wrong = await app.request('/console/login', { method: 'POST', body: new URLSearchParams({ token: 'nope' }) });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /not the admin token/);
    const outside = await app.request('/console/login', {
      method: 'POST',
      body: new URLSearchParams({ token: 'secret-token-123', next: 'https://evil.example/' }),
    });
    assert.equal(outside.headers.get('location'), '/console', 'never sent elsewhere after the login');
    const cookie = await login();
    assert.equal((await app.request('/console', { headers: { cookie } })).status, 200);
    assert.equal((await app.request('/console', { headers: { cookie: 'trawl_console=forged-key-forged-key-forged-key-forged-key' } })).status, 401);
    const other = createApp({ ...base, adminToken: 'secret-token-123' });
    assert.equal((await other.request('/console', { headers: { cookie } })).status, 401, "another server's key is none here");
    assert.equal((await app.request('/console/logout', { method: 'POST', headers: { cookie } })).status, 303);
    assert.equal((await app.request('/console', { headers: { cookie } })).status, 401, 'logged out');
  });

  it('lists what was searched, clicked, found nothing and refined, with the chart\u2019s figures, and links each query to its page', async () => {
    const ask = async (q: string, session: string) => {
      const res = await app.request(`/api/search?q=${encodeURIComponent(q)}&session=${session}`);
      return (await res.json()) as { searchId: string; hits: { url: string }[] };
    };
    const a = await ask('zzyzx', 'tab-console1');
    assert.ok(a.searchId);
    clock += PAUSE_MS + 1; // (The next search is a new one, not typing on.)
    const b = await ask('autovacuum', 'tab-console1');
    await searchLog.click({ searchId: b.searchId, position: 1, url: b.hits[0]!.url });
    const cookie = await login();
    const res = await app.request('/console', { headers: { cookie } });
    const page = await res.text();
    assert.match(page, /<section id="top">[\s\S]*href="\/console\/query\?q=autovacuum"[\s\S]*<\/section>/);
    assert.match(page, /<section id="no-results">[\s\S]*zzyzx[\s\S]*<\/section>/);
    assert.match(page, /<section id="refinements">[\s\S]*zzyzx[\s\S]*autovacuum[\s\S]*<\/section>/);
    assert.match(page, /<code>zzyzx =&gt; autovacuum<\/code>/, 'a synonym to consider');
    const data = JSON.parse(/<script type="application\/json" id="days-data">(.*?)<\/script>/.exec(page)![1]!) as { days: string[]; searches: number[] };
    assert.deepEqual(data.days, [new Date(clock).toISOString().slice(0, 10)]);
    assert.ok(data.searches[0]! >= 2);
    assert.match(page, /src="\/static\/uplot\.js\?v=/);
    assert.match(page, /href="\/api\/analytics\/queries\?format=csv"/);
    const detail = await (await app.request('/console/query?q=Autovacuum', { headers: { cookie } })).text();
    assert.match(
      detail,
      /<section id="urls">[\s\S]*http:\/\/e\.org\/autovacuum\.html<\/a><\/td><td class="n">1<\/td>\s*<td class="n">1<\/td><td class="n">1<\/td>/,
    );
    assert.match(detail, /<section id="why">[\s\S]*Autovacuum<\/a>[\s\S]*autovacuum \d/);
    assert.equal((await app.request('/console/query?q=', { headers: { cookie } })).status, 400);
    assert.equal((await app.request('/console?since=soon', { headers: { cookie } })).status, 400);
  });

  it("opens to server.auth's login without the admin token, and serves its chart library itself", async () => {
    const locked = createApp({ ...base, serverAuth: { basic: { username: 'reader', password: Secret.of('pw', 'test') } } });
    const basic = `Basic ${Buffer.from('reader:pw').toString('base64')}`;
    assert.equal((await locked.request('/console')).status, 401);
    assert.equal((await locked.request('/console', { headers: { authorization: basic } })).status, 200);
    assert.equal((await locked.request('/api/analytics/days', { headers: { authorization: basic } })).status, 200);
    const lib = await app.request('/static/uplot.js');
    assert.equal(lib.status, 200);
    assert.match(await lib.text(), /uPlot/);
    assert.ok(STATIC_FILES.get('uplot.css')!.body.includes('.uplot'));
  });
});
