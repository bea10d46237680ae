import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { StoredDocument } from '../model/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import { storedDocument } from '../indexer/test-document.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { chooseEncoding } from './compress.ts';
import { ifNoneMatch } from './http-cache.ts';
import { STATIC_FILES, staticUrl } from './static-files.ts';
import { idleStatus } from './status-fixture.ts';

const statusNow = () => idleStatus();
const docs = new Map<number, StoredDocument>();
const index = new SearchIndex((id) => docs.get(id));
const put = (id: number, text: string) => {
  docs.set(id, storedDocument(id, { url: `http://e.org/${id}`, title: `Page ${id}`, text, fetchedAt: Date.UTC(2026, 0, 2) }));
  index.upsert(docs.get(id)!);
};
for (let i = 1; i <= 30; i++) put(i, `cacheword page number ${i} ${'with words enough to make a snippet '.repeat(6)}`);
let searches = 0;
const counted = {
  search: (q: string, o?: { page?: number; size?: number }) => {
    searches++;
    return index.search(q, o);
  },
  get documentCount() {
    return index.documentCount;
  },
  get version() {
    return index.version;
  },
};
const app = createApp({ ...serverDefaults(), searcher: counted, status: async () => statusNow(), version: 't', processMetrics: false, apiRate: 1000 });
const get = (path: string, headers: Record<string, string> = {}) => app.request(path, { headers });

describe('conditional requests', () => {
  it('repeat a search as a 304, without running it, until the index changes', async () => {
    const first = await get('/api/search?q=cacheword');
    assert.equal(first.status, 200);
    const etag = first.headers.get('etag')!;
    assert.match(etag, /^W\/"[^"]+"$/, 'weak: the same results, not the same bytes (tookMs)');
    assert.equal(first.headers.get('cache-control'), 'no-cache');
    const before = searches;
    const again = await get('/api/search?q=cacheword', { 'if-none-match': etag });
    assert.equal(again.status, 304);
    assert.equal(await again.text(), '');
    assert.equal(again.headers.get('etag'), etag);
    assert.equal(searches, before, 'the search did not run');
    assert.equal((await get('/api/search?q=cacheword&page=2', { 'if-none-match': etag })).status, 200, 'another page is another answer');
    assert.equal((await get('/api/search?q=cacheword&size=20', { 'if-none-match': etag })).status, 200, 'and another size');
    put(31, 'cacheword a new page');
    const changed = await get('/api/search?q=cacheword', { 'if-none-match': etag });
    assert.equal(changed.status, 200, 'a page added: a new answer');
    assert.notEqual(changed.headers.get('etag'), etag);
    assert.equal(((await changed.json()) as { total: number }).total, 31);
  });

  it('tag another server start differently (it may hold another index, or rank otherwise)', async () => {
    const other = createApp({ ...serverDefaults(), searcher: counted, status: async () => statusNow(), version: 't', processMetrics: false });
    const etag = (await get('/api/search?q=cacheword')).headers.get('etag')!;
    assert.equal((await other.request('/api/search?q=cacheword', { headers: { 'if-none-match': etag } })).status, 200);
  });

  it('give the other JSON answers an ETag of their body, no-cache, and a 304 when held', async () => {
    for (const path of ['/api/status', '/api/openapi.json']) {
      const first = await get(path);
      const etag = first.headers.get('etag');
      assert.match(etag ?? '', /^"[\w-]+"$/, path);
      assert.equal(first.headers.get('cache-control'), 'no-cache', path);
      const again = await get(path, { 'if-none-match': `"other", ${etag}` });
      assert.equal(again.status, 304, path);
      assert.equal(again.headers.get('content-type'), null, path);
    }
  });

  it('keep static files a year under their versioned URL, an hour under a bare one, and revalidate them', async () => {
    const app_js = STATIC_FILES.get('app.js')!;
    const versioned = await get(staticUrl('app.js'));
    assert.equal(versioned.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(versioned.headers.get('etag'), app_js.etag);
    const page = await (await get('/')).text();
    assert.ok(page.includes(`src="${staticUrl('app.js')}"`) && page.includes(`href="${staticUrl('style.css')}"`), 'the pages link the versioned URLs');
    for (const path of ['/static/app.js', '/static/app.js?v=old', '/widget.js', '/favicon.ico']) {
      const res = await get(path);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=3600', path);
      const held = await get(path, { 'if-none-match': res.headers.get('etag')! });
      assert.equal(held.status, 304, path);
      assert.equal(held.headers.get('cache-control'), 'public, max-age=3600', path);
    }
  });

  it('compare ETags weakly, as If-None-Match asks', () => {
    assert.equal(ifNoneMatch('W/"a"', '"a"'), true);
    assert.equal(ifNoneMatch('"b", W/"a"', 'W/"a"'), true);
    assert.equal(ifNoneMatch('*', '"a"'), true);
    assert.equal(ifNoneMatch('"ab"', '"a"'), false);
    assert.equal(ifNoneMatch(undefined, '"a"'), false);
  });
});

describe('compression', () => {
  it('picks Brotli or gzip as the client prefers them', () => {
    assert.equal(chooseEncoding('gzip, deflate, br, zstd'), 'br');
    assert.equal(chooseEncoding('gzip'), 'gzip');
    assert.equal(chooseEncoding('br;q=0.5, gzip;q=0.8'), 'gzip');
    assert.equal(chooseEncoding('br;q=0, gzip;q=0'), undefined);
    assert.equal(chooseEncoding('*'), 'br');
    assert.equal(chooseEncoding('identity'), undefined);
    assert.equal(chooseEncoding(undefined), undefined);
  });

  it('compresses JSON, pages and static files when asked, and says it varied', async () => {
    const plain = await get('/api/search?q=cacheword&size=20');
    const text = await plain.text();
    assert.equal(plain.headers.get('content-encoding'), null);
    assert.match(plain.headers.get('vary') ?? '', /Accept-Encoding/);
    const br = await get('/api/search?q=cacheword&size=20', { 'accept-encoding': 'gzip, br' });
    assert.equal(br.headers.get('content-encoding'), 'br');
    const packed = Buffer.from(await br.arrayBuffer());
    assert.ok(packed.length < text.length / 3, `${packed.length} bytes of ${text.length}`);
    assert.equal(JSON.parse(brotliDecompressSync(packed).toString()).total, JSON.parse(text).total);
    assert.equal(br.headers.get('content-length'), String(packed.length));
    assert.equal(br.headers.get('etag'), plain.headers.get('etag'), 'a weak ETag holds for every encoding');
    const gz = await get('/static/widget.js', { 'accept-encoding': 'gzip' });
    assert.equal(gz.headers.get('content-encoding'), 'gzip');
    assert.equal(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString(), STATIC_FILES.get('widget.js')!.body);
    assert.match(gz.headers.get('etag') ?? '', /^W\//, 'a strong ETag becomes weak once compressed');
    const held = await get('/static/widget.js', { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.get('etag')! });
    assert.equal(held.status, 304, 'and still matches');
    assert.equal((await get('/?q=cacheword', { 'accept-encoding': 'br' })).headers.get('content-encoding'), 'br');
  });

  it('leaves small answers and event streams alone', async () => {
    assert.equal((await get('/healthz', { 'accept-encoding': 'br' })).headers.get('content-encoding'), null);
    const events = createApp({
      ...serverDefaults(),
      searcher: counted,
      status: async () => statusNow(),
      version: 't',
      processMetrics: false,
      eventIntervalMs: 10,
    });
    const res = await events.request('/api/events', { headers: { 'accept-encoding': 'br, gzip' } });
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    assert.equal(res.headers.get('content-encoding'), null);
    const reader = res.body!.getReader();
    const { value } = await reader.read();
    assert.match(new TextDecoder().decode(value), /^event: status/, 'each event arrives as it is sent');
    await reader.cancel();
  });
});
