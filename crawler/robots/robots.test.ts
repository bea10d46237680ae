import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { serveHandler, type HandlerServer } from '../../testweb/index.ts';
import { openSqliteStore } from '../../store/sqlite/index.ts';
import { Fetcher } from '../fetch/fetcher.ts';
import { productToken, RobotsCache } from './robots.ts';

const fetcher = new Fetcher({ userAgent: 'TrawlBot/1.0', timeoutMs: 500, maxBodyBytes: 1_000_000 });
const servers: HandlerServer[] = [];
const robotsServer = async (status: number, body = '', headers: Record<string, string> = {}) => {
  const s = await serveHandler((req, res) => {
    if (req.url === '/moved-robots') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('User-agent: *\nDisallow: /via-redirect/\n');
    }
    res.writeHead(status, { 'content-type': 'text/plain', ...headers });
    res.end(body);
  });
  servers.push(s);
  return s;
};
const cache = (now = () => Date.now()) =>
  new RobotsCache(openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-robots-'))).robots, fetcher, 'TrawlBot/1.0 (+https://example.org)', now);

describe('RobotsCache', () => {
  after(async () => {
    await fetcher.close();
    await Promise.all(servers.map((s) => s.close()));
  });

  it('uses the group of its product token, and its Crawl-delay and sitemaps', async () => {
    const s = await robotsServer(
      200,
      'User-agent: *\nDisallow: /\n\nUser-agent: TrawlBot\nDisallow: /private/\nCrawl-delay: 3\n\nSitemap: http://x.org/sitemap.xml\n',
    );
    const rules = await cache().load(s.url);
    assert.ok(rules.state === 'rules', rules.state);
    assert.equal(rules.isAllowed(`${s.url}/public`), true);
    assert.equal(rules.isAllowed(`${s.url}/private/x`), false);
    assert.equal(rules.crawlDelaySeconds, 3);
    assert.deepEqual(rules.sitemaps, ['http://x.org/sitemap.xml']);
  });

  it('allows everything when robots.txt is 4xx', async () => {
    const s = await robotsServer(404);
    const rules = await cache().load(s.url);
    assert.equal(rules.state, 'allow-all');
  });

  it('fetches nothing when robots.txt is 5xx, and asks again after a minute', async () => {
    const s = await robotsServer(503);
    let now = 1_000_000;
    const c = cache(() => now);
    assert.deepEqual(await c.load(s.url), { state: 'unavailable', detail: 'robots.txt answered 503' });
    assert.equal((await c.cached(s.url))?.state, 'unavailable');
    now += 61_000;
    assert.equal(await c.cached(s.url), undefined, 'stale: load again');
  });

  it('reads only the first 500 KiB', async () => {
    const s = await robotsServer(200, `User-agent: *\nDisallow: /early/\n${'# padding\n'.repeat(60_000)}Disallow: /late/\n`);
    const rules = await cache().load(s.url);
    assert.ok(rules.state === 'rules');
    assert.equal(rules.isAllowed(`${s.url}/early/x`), false);
    assert.equal(rules.isAllowed(`${s.url}/late/x`), true, 'a rule past 500 KiB does not count');
  });

  it('follows redirects to the robots.txt', async () => {
    const s = await robotsServer(301, '', { location: '/moved-robots' });
    const rules = await cache().load(s.url);
    assert.ok(rules.state === 'rules' && !rules.isAllowed(`${s.url}/via-redirect/a`));
  });

  it('caches per host for 24 hours, in the database', async () => {
    const s = await robotsServer(200, 'User-agent: *\nDisallow: /x\n');
    let now = 0;
    const c = cache(() => now);
    await c.load(s.url);
    now = 23 * 3600_000;
    assert.equal((await c.cached(s.url))?.state, 'rules');
    now = 25 * 3600_000;
    assert.equal(await c.cached(s.url), undefined);
    assert.equal(s.hits.length, 1);
  });

  it('takes the product token from the User-Agent', () => {
    assert.equal(productToken('TrawlBot/0.1.0 (+https://x)'), 'TrawlBot');
    assert.equal(productToken('MyCrawler'), 'MyCrawler');
  });
});
