// The admin actions and the URL lookup, on a real crawl of the fake web.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import type { Crawler } from '../crawler/index.ts';
import { Appliance } from './appliance.ts';

describe('controlling a crawl', () => {
  let web: FakeWeb;
  let app: Appliance;
  let crawler: Crawler;
  const turns = async (n: number) => {
    for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
  };
  const fetches = (path: string) => web.paths().filter((p) => p === path).length;

  before(async () => {
    web = await startFakeWeb();
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-control-'));
    app = await Appliance.open(
      loadConfig({ overrides: { dataDir, seeds: [`${web.url}/target`], perHost: { delayMs: 0 }, limits: { maxDepth: 0 }, parseWorkers: 0 } }),
      { lockFor: 'test' },
    );
    crawler = (await app.createCrawler()).crawler;
  });
  after(async () => {
    await app.close();
    await web.close();
  });

  it('requests nothing while paused, and crawls once resumed', async () => {
    await app.pause();
    const done = crawler.run();
    await turns(50);
    assert.equal(web.requests.length, 0);
    assert.equal((await app.status()).crawl.paused, true);
    await app.resume();
    assert.equal((await done).reason, 'exhausted');
    assert.equal((await app.index.search('redirectedword')).total, 1);
  });

  it('explains a URL: its record, or why it has none', async () => {
    const known = await app.explain(`${web.url}/target`);
    assert.ok(known.known);
    assert.equal(known.state, 'indexed');
    assert.equal(known.indexed, true);
    assert.equal(known.httpStatus, 200);
    const elsewhere = await app.explain('http://elsewhere.invalid/page');
    if (elsewhere.known) assert.fail('an out-of-scope URL has no record');
    assert.match(elsewhere.reason, /never queued: it is rejected \(.*scope/);
    const notYet = await app.explain(`${web.url}/never-linked`);
    if (notYet.known) assert.fail('a URL no page links to has no record');
    assert.match(notYet.reason, /never seen/);
    const garbage = await app.explain('not a url');
    if (garbage.known) assert.fail('garbage has no record');
    assert.match(garbage.reason, /not a URL Trawl can crawl/);
  });

  it('removes a page from the index and keeps the crawl from bringing it back', async () => {
    const stored = await app.store.documents.count();
    assert.deepEqual(await app.remove({ url: `${web.url}/target` }), { removed: 1 });
    assert.equal((await app.index.search('redirectedword')).total, 0);
    assert.equal(await app.store.documents.count(), stored - 1);
    const e = await app.explain(`${web.url}/target`);
    assert.ok(e.known && e.state === 'excluded' && e.reason === 'removed by an admin' && !e.indexed);
    const { queued } = await app.recrawl({ all: true });
    assert.ok(queued > 0, 'the pages found through the sitemaps');
    const removed = await app.explain(`${web.url}/target`);
    assert.ok(removed.known && removed.state === 'excluded', 'a recrawl of everything leaves it out');
  });

  it('runs the finished crawl again for new seeds', async () => {
    const done = once(crawler, 'done');
    const { queued } = await app.addSeeds([`${web.url}/anchored`]);
    assert.equal(queued.length, 1);
    await done;
    assert.equal((await app.index.search('particular')).total, 1);
  });

  it('recrawls a URL named by an admin, even one removed before', async () => {
    const before = fetches('/target');
    const done = once(crawler, 'done');
    assert.deepEqual(await app.recrawl({ url: `${web.url}/target` }), { queued: 1 });
    await done;
    assert.equal(fetches('/target'), before + 1);
    assert.equal((await app.index.search('redirectedword')).total, 1);
    const host = new URL(web.url).host;
    // Every URL Trawl knows is of this host; none is in flight or waiting.
    const c = (await app.status()).crawl;
    const known = c.fetched + c.failed + c.excluded + c.redirected;
    const again = once(crawler, 'done');
    const { queued } = await app.recrawl({ host });
    assert.ok(queued > 2 && queued === known, `every URL of the host (${queued} of ${known})`);
    await again;
    assert.equal(fetches('/target'), before + 2);
  });
});
