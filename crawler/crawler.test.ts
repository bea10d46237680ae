// Integration: the crawler wired to real stages (through the Appliance, as in production)
// crawling the fake web on loopback.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Appliance } from '../appliance/index.ts';
import { loadConfig, type ConfigInput } from '../config/index.ts';
import { serveHandler, startFakeWeb, type FakeWeb } from '../testweb/index.ts';

const UA = 'TrawlBot/9.9 (+https://example.org/test)';
const open = async (seeds: string[], extra: ConfigInput = {}, dataDir = mkdtempSync(join(tmpdir(), 'trawl-crawl-'))) =>
  await Appliance.open(
    loadConfig({
      overrides: {
        seeds,
        userAgent: UA,
        concurrency: 4,
        perHost: { delayMs: 0, maxConnections: 4 },
        limits: { maxDepth: 6, maxBodyBytes: 100_000, timeoutMs: 2000 },
        retry: { maxAttempts: 3, baseDelayMs: 20 },
        dataDir,
        ...extra,
      },
    }),
    { lockFor: 'test' },
  );

describe('a full crawl of the fake web', () => {
  let web: FakeWeb;
  let other: FakeWeb;
  let app: Appliance;
  let reason: string;
  const count = (path: string) => web.paths().filter((p) => p === path).length;
  const found = async (q: string) => (await app.index.search(q)).hits.map((h) => new URL(h.url).pathname);
  const record = async (path: string) => (await app.store.urls.record(new URL(path, web.url).href));

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
    // The page never says these words; the home page, which links to it, does (as link text).
    assert.deepEqual((await found('zanzibar cartography')).sort(), ['/', '/anchored']);
    assert.equal((await app.store.anchors.of((await record('/anchored'))!.id)).sources, 1);
  });

  it('follows a meta refresh like a redirect, and does not index the stub', async () => {
    assert.deepEqual([(await record('/meta-refresh'))?.state, (await record('/meta-refresh'))?.reason], ['redirected', new URL('/refresh-target', web.url).href]);
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

  it('keeps a sitemap\'s <lastmod> on the URL record', async () => assert.equal((await record('/from-sitemap'))?.lastmod, '2026-01-01'));

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
    assert.ok((await app.store.documents.sequencesOf([(await record('/fr'))!.id], 'english')).get((await record('/fr'))!.id)!.length > 5);
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
    assert.equal((await app.status()).index.documents, (await app.store.documents.count()));
  });
});

describe('politeness', () => {
  it('keeps one request at a time per host and waits perHost.delayMs between them', async () => {
    const web = await startFakeWeb({ graphSize: 6, delayMs: 30 });
    const app = await open([new URL('/graph/0', web.url).href], { perHost: { delayMs: 150, maxConnections: 1 }, concurrency: 8, scope: { allow: ['URL:/graph/'] } });
    try {
      await (await app.createCrawler()).crawler.run();
      const at = web.requests.map((r) => r.at);
      assert.ok(at.length >= 7, `${at.length} requests`);
      // Each request starts at least response time (30 ms) + delay (150 ms) after the previous one.
      for (let i = 1; i < at.length; i++) assert.ok(at[i]! - at[i - 1]! >= 170, `gap ${at[i]! - at[i - 1]!} ms before ${web.requests[i]!.path}`);
    } finally {
      await app.close();
      await web.close();
    }
  });

  it('lets a host whose robots.txt is slow wait without holding up any other host', async () => {
    const slowRobots = await serveHandler((req, res) => {
      if (req.url === '/robots.txt') return void setTimeout(() => res.end('User-agent: *\nDisallow:\n'), 1500);
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>slow host page</title><p>slowhostword</p>');
    });
    const fast = await startFakeWeb({ graphSize: 6 });
    const app = await open([`${slowRobots.url}/page`, new URL('/graph/0', fast.url).href], { scope: { allow: ['URL:/graph/', 'URL:/page$'] } });
    try {
      const t0 = Date.now();
      await (await app.createCrawler()).crawler.run();
      const fastPages = fast.requests.filter((r) => r.path.startsWith('/graph/'));
      assert.equal(fastPages.length, 6);
      assert.ok(fastPages.every((r) => r.at - t0 < 1400), 'the fast host was crawled while the slow robots.txt loaded');
      assert.equal((await app.index.search('slowhostword')).total, 1, 'the slow host was crawled once its robots.txt came');
    } finally {
      await app.close();
      await slowRobots.close();
      await fast.close();
    }
  });

  it('does not let one slow host hold up another', async () => {
    const slow = await startFakeWeb({ graphSize: 4, delayMs: 400 });
    const fast = await startFakeWeb({ graphSize: 8 });
    const app = await open([new URL('/graph/0', slow.url).href, new URL('/graph/0', fast.url).href], { concurrency: 2, perHost: { delayMs: 0, maxConnections: 1 }, scope: { allow: ['URL:/graph/'] } });
    try {
      await (await app.createCrawler()).crawler.run();
      const fastDone = Math.max(...fast.requests.map((r) => r.at));
      const slowDone = Math.max(...slow.requests.map((r) => r.at));
      assert.ok(fastDone < slowDone, 'the fast host finished while the slow one was still being crawled');
    } finally {
      await app.close();
      await slow.close();
      await fast.close();
    }
  });
});

describe('a host that keeps failing', () => {
  it('is suspended, then given up, with the reason on its URLs', async () => {
    const web = await serveHandler((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        return res.end();
      }
      res.writeHead(503);
      res.end();
    });
    const app = await open([`${web.url}/a`, `${web.url}/b`, `${web.url}/c`], {
      retry: { maxAttempts: 10, baseDelayMs: 10 },
      perHost: { delayMs: 0, maxConnections: 1, suspendAfterErrors: 2, suspendMs: 1000, maxSuspensions: 2 },
    });
    try {
      const t = Date.now();
      await (await app.createCrawler()).crawler.run();
      assert.ok(Date.now() - t >= 1000, 'it waited out the first suspension');
      const c = (await app.status()).crawl;
      assert.equal(c.dead, 4, 'the three pages and /sitemap.xml');
      assert.equal(c.retrying, 0);
      assert.equal((await app.store.urls.record(`${web.url}/c`))?.error, 'host-suspended');
      assert.ok(web.hits.filter((h) => h !== '/robots.txt').length <= 5, `${web.hits.length} requests: the host was given up, not hammered`);
      assert.equal(c.hosts[0]?.suspensions, 2);
      assert.equal(c.hosts[0]?.lastError, 'http-5xx');
    } finally {
      await app.close();
      await web.close();
    }
  });
});

describe('rel=nofollow', () => {
  it('is followed when followNofollow is set', async () => {
    const web = await startFakeWeb({ graphSize: 2 });
    const app = await open([web.url], { followNofollow: true, scope: { allow: ['URL:/$', 'URL:/nofollowed$'] } });
    try {
      await (await app.createCrawler()).crawler.run();
      assert.ok(web.paths().includes('/nofollowed'));
    } finally {
      await app.close();
      await web.close();
    }
  });
});

describe('a page with more links than limits.maxLinksPerPage', () => {
  it('follows the first ones, and records how many were cut: on the URL record, in the explanation, in the status', async () => {
    const web = await serveHandler((req, res) => {
      const page = (body: string) => (res.writeHead(200, { 'content-type': 'text/html' }), res.end(body));
      if (req.url === '/') return page(`<title>index</title>${Array.from({ length: 30 }, (_, i) => `<a href="/item/${i}">item ${i}</a>`).join('')}`);
      if (req.url?.startsWith('/item/')) return page(`<title>${req.url}</title><p>an item</p>`);
      res.writeHead(404);
      res.end();
    });
    const app = await open([`${web.url}/`], { limits: { maxLinksPerPage: 12 } });
    try {
      await (await app.createCrawler()).crawler.run();
      const items = web.hits.filter((h) => h.startsWith('/item/'));
      assert.equal(items.length, 12, 'the first 12 links followed');
      assert.ok(!items.includes('/item/12'));
      const root = await app.explain(`${web.url}/`);
      assert.ok(root.known && root.linksCut === 18, JSON.stringify(root));
      assert.deepEqual((await app.status()).crawl.linksCut, { pages: 1, links: 18 });
    } finally {
      await app.close();
      await web.close();
    }
  });
});

describe('private addresses (fetch.allowPrivateAddresses)', () => {
  it('never reach a private or link-local address through a link or a redirect, even with a scope that allows everything', async () => {
    const web = await serveHandler((req, res) => {
      const page = (body: string) => (res.writeHead(200, { 'content-type': 'text/html' }), res.end(body));
      if (req.url === '/') return page('<title>home</title><a href="http://10.255.255.1/admin">router</a><a href="/metadata">metadata</a><a href="/fine">fine</a>');
      if (req.url === '/metadata') return (res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }), res.end());
      if (req.url === '/fine') return page('<title>fine</title><p>finepageword</p>');
      res.writeHead(404);
      res.end();
    });
    const app = await open([`${web.url}/`], { scope: { allow: ['URL:.*'] }, limits: { timeoutMs: 20_000 } });
    try {
      const t0 = performance.now();
      await (await app.createCrawler()).crawler.run();
      assert.ok(performance.now() - t0 < 10_000, 'no connection attempt timed out');
      assert.equal((await app.index.search('finepageword')).total, 1, 'the loopback seed\u2019s own host is crawled');
      for (const url of ['http://10.255.255.1/admin', 'http://169.254.169.254/latest/meta-data/']) {
        const r = await app.explain(url);
        assert.ok(r.known && r.state === 'dead' && r.error === 'blocked-address', JSON.stringify(r));
      }
    } finally {
      await app.close();
      await web.close();
    }
  });
});

describe('sitemaps without robots.txt', () => {
  it('asks for /sitemap.xml when robots.txt names no sitemap', async () => {
    const web = await serveHandler((req, res) => {
      if (req.url === '/sitemap.xml') {
        res.writeHead(200, { 'content-type': 'text/xml' });
        return res.end(`<urlset><url><loc>http://${req.headers.host}/only-in-sitemap</loc></url></urlset>`);
      }
      if (req.url === '/' || req.url === '/only-in-sitemap') {
        res.writeHead(200, { 'content-type': 'text/html' });
        return res.end(`<title>${req.url}</title><p>${req.url === '/' ? 'home' : 'onlyinsitemapword'}</p>`);
      }
      res.writeHead(404);
      res.end();
    });
    const app = await open([`${web.url}/`]);
    try {
      await (await app.createCrawler()).crawler.run();
      assert.ok(web.hits.includes('/sitemap.xml'));
      assert.equal((await app.index.search('onlyinsitemapword')).total, 1);
    } finally {
      await app.close();
      await web.close();
    }
  });
});

describe('host aliases', () => {
  it('fetches a page once when two host names of one site link to it', async () => {
    const web = await startFakeWeb({ graphSize: 8 });
    const port = new URL(web.url).port;
    const app = await open([`http://localhost:${port}/graph/0`, `http://127.0.0.1:${port}/graph/0`], {
      urls: { hostAliases: ['synonym(localhost)=127.0.0.1'] },
      scope: { allow: ['URL:/graph/'] },
    });
    try {
      await (await app.createCrawler()).crawler.run();
      const pages = web.paths().filter((p) => p.startsWith('/graph/'));
      assert.equal(pages.length, 8, pages.join(' '));
      assert.equal(new Set(pages).size, 8, 'no page fetched twice');
      assert.equal((await app.index.search('graphword5')).total, 1);
    } finally {
      await app.close();
      await web.close();
    }
  });
});

describe('anchor text across a restart', () => {
  it('reaches the flushed index even when the appliance is closed right after the crawl', async () => {
    const web = await startFakeWeb({ graphSize: 3 });
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-crawl-'));
    const app = await open([web.url], { scope: { allow: ['URL:/$', 'URL:/anchored$'] } }, dataDir);
    try {
      await (await app.createCrawler()).crawler.run();
    } finally {
      await app.close();
      await web.close();
    }
    // A later process loads the flush (no crawl, no refresh of its own).
    const reader = await open([web.url], {}, dataDir);
    try {
      assert.ok((await reader.index.search('zanzibar')).hits.some((h) => new URL(h.url).pathname === '/anchored'));
    } finally {
      await reader.close();
    }
  });
});

describe('limits and resuming', () => {
  it('stops at limits.maxPages', async () => {
    const web = await startFakeWeb({ graphSize: 30 });
    const app = await open([new URL('/graph/0', web.url).href], { limits: { maxPages: 5 }, scope: { allow: ['URL:/graph/'] } });
    try {
      const { reason } = await (await app.createCrawler()).crawler.run();
      assert.equal(reason, 'limit');
      assert.equal((await app.status()).crawl.fetched, 5);
    } finally {
      await app.close();
      await web.close();
    }
  });

  it('stops gracefully and resumes where it stopped, fetching nothing twice', async () => {
    const web = await startFakeWeb({ graphSize: 30, delayMs: 20 });
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-resume-'));
    const seed = new URL('/graph/0', web.url).href;
    const first = await open([seed], { perHost: { delayMs: 10, maxConnections: 2 }, scope: { allow: ['URL:/graph/'] } }, dataDir);
    const { crawler } = await first.createCrawler();
    const done = crawler.run();
    await new Promise<void>((resolve) => crawler.on('document', () => first.index.documentCount >= 8 && resolve()));
    await first.close();
    assert.equal((await done).reason, 'stopped');
    const stoppedAt = (await first.status()).crawl;
    assert.ok(stoppedAt.queued > 0, 'work was left');
    assert.equal(stoppedAt.inFlight, 0);

    const second = await open([], { scope: { allow: ['URL:/graph/'] } }, dataDir);
    try {
      assert.ok(second.index.documentCount >= 8, 'the index flushed on stop is loaded again');
      assert.equal((await (await second.createCrawler()).crawler.run()).reason, 'exhausted');
      for (let i = 0; i < 30; i++) assert.equal((await second.index.search(`graphword${i}`)).total, 1, `graphword${i}`);
      const pages = web.paths().filter((p) => p.startsWith('/graph/'));
      assert.equal(pages.length, new Set(pages).size, 'no page fetched twice');
    } finally {
      await second.close();
      await web.close();
    }
  });
});
