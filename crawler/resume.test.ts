// Integration: stopping and resuming — limits, a crawl stopped and resumed, anchor text that
// must survive a restart — through the appliance, on loopback.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { startFakeWeb } from '../testweb/index.ts';
import { open } from './crawl-fixture.ts';

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
      for (let i = 0; i < 30; i++) assert.equal((await second.index.search(`graphword${i}`, { exact: true })).total, 1, `graphword${i}`);
      const pages = web.paths().filter((p) => p.startsWith('/graph/'));
      assert.equal(pages.length, new Set(pages).size, 'no page fetched twice');
    } finally {
      await second.close();
      await web.close();
    }
  });
});
