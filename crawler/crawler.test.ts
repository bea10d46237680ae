// Integration: the crawler wired to real stages (through the Appliance, as in production)
// crawling the fake web on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Appliance } from '../appliance/index.ts';
import { analysisTag } from '../indexer/index.ts';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { open, UA } from './crawl-fixture.ts';

describe('a full crawl of the fake web', () => {
  let web: FakeWeb;
  let other: FakeWeb;
  let app: Appliance;
  let reason: string;
  const count = (path: string) => web.paths().filter((p) => p === path).length;
  const found = async (q: string) => (await app.index.search(q)).hits.map((h) => new URL(h.url).pathname);
  const record = async (path: string) => await app.store.urls.record(new URL(path, web.url).href);

  before(async () => {
    other = await startFakeWeb();
    web = await startFakeWeb({ graphSize: 20, bigBytes: 300_000, otherHost: other.url });
    app = await open([web.url]);
    ({ reason } = await (await app.createCrawler()).crawler.run());
  });
  after(async () => {
    await app.close();
    await web.close();
    await other.close();
  });

  it('ends because nothing in scope is left', () => assert.equal(reason, 'exhausted'));

  it('indexes every page of the link graph, each searchable by its own word', async () => {
    for (let i = 0; i < 20; i++) assert.deepEqual(await found(`graphword${i}`), [`/graph/${i}`], `graphword${i}`);
  });

  it('asks for robots.txt once, with the configured User-Agent on every request', () => {
    assert.equal(count('/robots.txt'), 1);
    assert.ok(web.requests.every((r) => r.userAgent === UA));
  });

  it('never fetches what robots.txt disallows, and records why', async () => {
    assert.equal(count('/private/secret'), 0);
    assert.equal((await record('/private/secret'))?.state, 'excluded');
    assert.match((await record('/private/secret'))?.reason ?? '', /robots/);
  });

  it('follows a redirect, recording the hop', async () => {
    assert.equal((await record('/redirect'))?.state, 'redirected');
    assert.equal((await record('/redirect'))?.reason, new URL('/target', web.url).href);
    assert.deepEqual(await found('redirectedword'), ['/target']);
  });

  it('finds a page by the text of the links to it', async () => {
    await app.refreshAnchors();
    // The page never says these words; the home page, which links to it, does — in its list of
    // links, which is navigation, not its text (crawler/parse/blocks.ts): only the anchored page is found.
    assert.deepEqual((await found('zanzibar cartography')).sort(), ['/anchored']);
    assert.equal((await app.store.anchors.of((await record('/anchored'))!.id)).sources, 1);
  });

  it('follows a meta refresh like a redirect, and does not index the stub', async () => {
    assert.deepEqual(
      [(await record('/meta-refresh'))?.state, (await record('/meta-refresh'))?.reason],
      ['redirected', new URL('/refresh-target', web.url).href],
    );
    assert.deepEqual(await found('refreshedword'), ['/refresh-target']);
    assert.deepEqual(await found('stubword'), []);
  });

  it('stops a redirect loop', () => {
    assert.equal(count('/loop-a'), 1);
    assert.equal(count('/loop-b'), 1);
  });

  it('records a broken link as dead with its status, without retrying it', async () => {
    assert.deepEqual([(await record('/broken'))?.state, (await record('/broken'))?.httpStatus, (await record('/broken'))?.error], ['dead', 404, 'http-4xx']);
    assert.equal(count('/broken'), 1);
  });

  it('retries a server error a bounded number of times, then records it dead', async () => {
    assert.equal(count('/error'), 3);
    assert.equal((await record('/error'))?.state, 'dead');
    assert.equal((await record('/error'))?.error, 'http-5xx');
    assert.equal((await record('/error'))?.reason, 'HTTP 500 (gave up after 3 attempts)');
  });

  it('keeps what each fetch learned on the URL record', async () => {
    const r = (await record('/target'))!;
    assert.equal(r.state, 'indexed');
    assert.deepEqual([r.contentType, r.charset, r.lang], ['text/html', 'utf-8', 'en']);
    assert.ok(r.size! > 100 && r.hash!.length === 64 && r.fetchedAt! >= r.discoveredAt && r.changedAt === r.fetchedAt);
    assert.equal((await record('/latin1'))?.charset, 'windows-1252');
    assert.deepEqual([(await record('/graph/1'))?.etag, (await record('/graph/1'))?.lastModified], ['"graph-1"', 'Thu, 01 Jan 2026 00:00:00 GMT']);
  });

  it('waits what Retry-After asks after a 429, then gets the page', async () => {
    const busy = web.requests.filter((r) => r.path === '/busy');
    assert.equal(busy.length, 2);
    assert.ok(busy[1]!.at - busy[0]!.at >= 1000, `retried after ${busy[1]!.at - busy[0]!.at} ms`);
    assert.deepEqual(await found('busyword'), ['/busy']);
  });

  it('obeys X-Robots-Tag: noindex', async () => {
    assert.deepEqual(await found('xrobotsword'), []);
    assert.equal((await record('/x-robots'))?.reason, 'noindex (X-Robots-Tag)');
  });

  it('indexes the canonical page instead of a page that names another as canonical', async () => {
    assert.deepEqual(await found('copyword'), []);
    assert.deepEqual(await found('canonicalword'), ['/canonical-target']);
    assert.equal((await record('/not-canonical'))?.reason, `canonical is ${new URL('/canonical-target', web.url).href}`);
  });

  it('decodes Shift_JIS and GB18030 pages declared in <meta>', async () => {
    assert.match((await app.store.documents.get((await record('/sjis'))!.id))!.text, /日本語のページ/);
    assert.match((await app.store.documents.get((await record('/gb18030'))!.id))!.text, /中文网页/);
  });

  it('keeps noindex pages out of the index', async () => {
    assert.deepEqual(await found('noindexword'), []);
    assert.equal((await record('/noindex'))?.reason, 'noindex');
  });

  it('does not follow rel=nofollow links', () => assert.equal(count('/nofollowed'), 0));

  it('stores the same content under two URLs once, and the document keeps both URLs', async () => {
    assert.equal((await app.index.search('dupword')).total, 1);
    const [a, b] = [(await record('/dup-a'))!, (await record('/dup-b'))!];
    const [stored, dup] = a.state === 'indexed' ? [a, b] : [b, a];
    assert.equal(dup.state, 'excluded');
    assert.equal(dup.reason, `duplicate of ${stored.url}`);
    assert.deepEqual(await app.store.documents.urlsOf((await app.store.documents.get(stored.id))!), [stored.url, dup.url]);
  });

  it('finds pages listed only in sitemaps: robots.txt → sitemap index → plain and gzipped sitemaps', async () => {
    assert.deepEqual(await found('sitemapword'), ['/from-sitemap']);
    assert.deepEqual(await found('gzsitemapword'), ['/from-gz-sitemap']);
    assert.match((await record('/sitemap-index.xml'))?.reason ?? '', /sitemap with 0 pages and 2 sitemaps/);
  });

  it("keeps a sitemap's <lastmod> on the URL record", async () => assert.equal((await record('/from-sitemap'))?.lastmod, '2026-01-01'));

  it('cuts an oversized body and records the cut', async () => {
    const big = (await app.store.documents.get((await record('/big'))!.id))!;
    assert.equal(big.truncated, true);
    assert.ok(big.bytes <= 100_000);
  });

  it('decodes gzip, windows-1252 and plain text', async () => {
    assert.deepEqual(await found('gzipword'), ['/gzip']);
    assert.deepEqual(await found('creme latinword'), ['/latin1']);
    assert.match((await app.store.documents.get((await record('/latin1'))!.id))!.text, /café crème “quoted”/);
    assert.deepEqual(await found('plaintextword'), ['/notes.txt']);
  });

  it('keeps a page\u2019s language (<html lang>, else Content-Language) and type, for the lang: and type: filters', async () => {
    assert.equal((await app.store.documents.get((await record('/fr'))!.id))!.lang, 'fr-FR');
    assert.equal((await app.store.documents.get((await record('/notes.txt'))!.id))!.lang, 'de');
    assert.equal((await record('/notes.txt'))?.lang, 'de');
    assert.deepEqual(await found('frenchword lang:fr'), ['/fr']);
    assert.deepEqual(await found('"bonjour frenchword"'), ['/fr'], 'a phrase, checked on the token sequence kept with the page');
    assert.ok((await app.store.documents.sequencesOf([(await record('/fr'))!.id], analysisTag())).get((await record('/fr'))!.id)!.length > 5);
    assert.deepEqual(await found('frenchword lang:en'), []);
    assert.deepEqual(await found('plaintextword type:text lang:de'), ['/notes.txt']);
    assert.deepEqual(await found('plaintextword type:html'), []);
    assert.deepEqual((await app.index.search('fake')).facets.lang[0], { value: 'en', count: (await app.index.search('fake lang:en')).total });
  });

  it('skips content types it cannot index, saying which', async () => {
    assert.equal((await record('/image.png'))?.state, 'excluded');
    assert.match((await record('/image.png'))?.reason ?? '', /unsupported content type image\/png/);
  });

  it('stops a crawler trap at limits.maxDepth', () => {
    const trap = web.paths().filter((p) => p.startsWith('/trap/'));
    assert.ok(trap.length > 0 && trap.length <= 6, `${trap.length} trap pages fetched`);
  });

  it('stays in scope: the other host is never asked', async () => {
    assert.equal(other.requests.length, 0);
    const reasons = (await app.store.rejections.all()).map((r) => r.reason);
    for (const r of ['out-of-scope', 'scheme', 'robots', 'already-seen', 'too-deep']) assert.ok(reasons.includes(r), `${r} counted (${reasons.join(', ')})`);
  });

  it('counts rejections and states', async () => {
    const c = (await app.status()).crawl;
    assert.equal(c.queued, 0);
    assert.equal(c.retrying, 0);
    assert.ok(c.stats && c.stats.stages.fetch.count >= c.fetched && c.stats.stages.parse.count > 0 && c.stats.stages.index.count === c.indexed);
    assert.equal(c.inFlight, 0);
    assert.ok(c.fetched >= 28, `fetched ${c.fetched}`);
    assert.equal((await app.status()).index.documents, await app.store.documents.count());
  });
});
