// Integration: politeness — per-host limits and delays, slow hosts and failing hosts — through
// the appliance, against test webs on loopback.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serveHandler, startFakeWeb } from '../testweb/index.ts';
import { open } from './crawl-fixture.ts';

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
      assert.ok(
        fastPages.every((r) => r.at - t0 < 1400),
        'the fast host was crawled while the slow robots.txt loaded',
      );
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
    const app = await open([new URL('/graph/0', slow.url).href, new URL('/graph/0', fast.url).href], {
      concurrency: 2,
      perHost: { delayMs: 0, maxConnections: 1 },
      scope: { allow: ['URL:/graph/'] },
    });
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
