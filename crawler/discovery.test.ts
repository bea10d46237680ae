// Integration: what the crawl finds and follows — nofollow, pages with very many links, private
// addresses, sitemaps without robots.txt, host aliases — through the appliance, on loopback.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { serveHandler, startFakeWeb } from '../testweb/index.ts';
import { open } from './crawl-fixture.ts';

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
      const page = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
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
      const page = (body: string) => res.writeHead(200, { 'content-type': 'text/html' }).end(body);
      if (req.url === '/')
        return page('<title>home</title><a href="http://10.255.255.1/admin">router</a><a href="/metadata">metadata</a><a href="/fine">fine</a>');
      if (req.url === '/metadata') return res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
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
