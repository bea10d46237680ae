// Integration: politeness — per-host limits and delays, slow hosts and failing hosts — through
// the appliance, against test webs on loopback.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serveHandler, startFakeWeb } from '../testweb/index.ts';
import { open } from './crawl-fixture.ts';

/** A request held until a gate opens must not time out meanwhile, however slow the machine. */
const HELD_ANSWERS_LIMITS = { maxDepth: 6, timeoutMs: 60_000 };

/** A condition a test opens: what waits for it goes on then. */
function gate(): { readonly opened: Promise<void>; open(): void } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('politeness', () => {
  it('keeps one request at a time per host and waits perHost.delayMs between them', async () => {
    const web = await startFakeWeb({ graphSize: 6, delayMs: 30 });
    const app = await open([new URL('/graph/0', web.url).href], {
      perHost: { delayMs: 150, maxConnections: 1 },
      concurrency: 8,
      scope: { allow: ['URL:/graph/'] },
    });
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

  // (Each test below holds a host's answers until another host's pages are all fetched: a crawl
  // that let the held host hold up the other would never get there, and the test times out.)
  it('lets a host whose robots.txt is slow wait without holding up any other host', { timeout: 60_000 }, async () => {
    const fastCrawled = gate();
    const slowRobots = await serveHandler((req, res) => {
      if (req.url === '/robots.txt') return void fastCrawled.opened.then(() => res.end('User-agent: *\nDisallow:\n'));
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>slow host page</title><p>slowhostword</p>');
    });
    const fast = await startFakeWeb({ graphSize: 6 });
    const app = await open([`${slowRobots.url}/page`, new URL('/graph/0', fast.url).href], {
      scope: { allow: ['URL:/graph/', 'URL:/page$'] },
      limits: HELD_ANSWERS_LIMITS,
    });
    try {
      const { crawler } = await app.createCrawler();
      const fastPages: string[] = [];
      crawler.on('fetch', (e) => {
        if (e.url.startsWith(new URL('/graph/', fast.url).href)) fastPages.push(e.url);
        if (fastPages.length === 6) fastCrawled.open();
      });
      await crawler.run();
      assert.equal(fast.requests.filter((r) => r.path.startsWith('/graph/')).length, 6, 'the fast host was crawled while the slow robots.txt loaded');
      assert.deepEqual(slowRobots.hits, ['/robots.txt', '/page'], 'the slow host\u2019s page waited for its robots.txt');
      assert.equal((await app.index.search('slowhostword')).total, 1, 'the slow host was crawled once its robots.txt came');
    } finally {
      await app.close();
      await slowRobots.close();
      await fast.close();
    }
  });

  it('does not let one slow host hold up another', { timeout: 60_000 }, async () => {
    const fastCrawled = gate();
    // A host whose every page answers only once the other host's eight pages are fetched.
    const slow = await serveHandler((req, res) => {
      const n = /^\/graph\/(\d)$/.exec(req.url ?? '')?.[1];
      if (n === undefined) return void res.writeHead(404).end();
      void fastCrawled.opened.then(() =>
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<title>slow ${n}</title><p>slowword${n}</p><a href="/graph/${(Number(n) + 1) % 4}">next</a>`),
      );
    });
    const fast = await startFakeWeb({ graphSize: 8 });
    const app = await open([`${slow.url}/graph/0`, new URL('/graph/0', fast.url).href], {
      concurrency: 2,
      perHost: { delayMs: 0, maxConnections: 1 },
      scope: { allow: ['URL:/graph/'] },
      limits: HELD_ANSWERS_LIMITS,
    });
    try {
      const { crawler } = await app.createCrawler();
      let fastPages = 0;
      crawler.on('fetch', (e) => {
        if (e.url.startsWith(new URL('/graph/', fast.url).href) && ++fastPages === 8) fastCrawled.open();
      });
      await crawler.run();
      assert.equal(fastPages, 8, 'the fast host was crawled while the slow one held its first page');
      assert.deepEqual(slow.hits.filter((h) => h.startsWith('/graph/')).sort(), ['/graph/0', '/graph/1', '/graph/2', '/graph/3'], 'and the slow one after');
    } finally {
      await app.close();
      await slow.close();
      await fast.close();
    }
  });
});

describe('a host that keeps failing', () => {
  it('is suspended, then given up, with the reason on its URLs', async () => {
    const requestedAt: number[] = [];
    const web = await serveHandler((req, res) => {
      if (req.url === '/robots.txt') {
        res.writeHead(404);
        return res.end();
      }
      requestedAt.push(Date.now());
      res.writeHead(503);
      res.end();
    });
    const app = await open([`${web.url}/a`, `${web.url}/b`, `${web.url}/c`], {
      retry: { maxAttempts: 10, baseDelayMs: 10 },
      perHost: { delayMs: 0, maxConnections: 1, suspendAfterErrors: 2, suspendMs: 1000, maxSuspensions: 2 },
    });
    try {
      await (await app.createCrawler()).crawler.run();
      // Two failures suspend the host for a second: the gap after the second is the suspension.
      const gaps = requestedAt.slice(1).map((at, i) => at - requestedAt[i]!);
      assert.ok(gaps[1]! >= 1000, `it waited out the first suspension (requests ${gaps.join(', ')} ms apart)`);
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
