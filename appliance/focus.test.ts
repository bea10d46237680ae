// A focused crawl of a fake web that mixes pages about coins with much more that is not
// (testweb/topic-web.ts), judged by the shipped example topic config/topics/numismatics.txt.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { serveHandler, type HandlerServer } from '../testweb/index.ts';
import { topicWebHandler, topicWebPages } from '../testweb/topic-web.ts';
import { StatusSchema } from '../search-ui/api/status-schema.ts';
import { statusLine } from '../search-ui/index.ts';
import { Appliance } from './appliance.ts';

const TOPIC = new URL('../config/topics/numismatics.txt', import.meta.url).pathname;
const { onTopic, offTopic } = topicWebPages();

/** Crawls the fake topic web from `seed` into a fresh data directory, to the end. */
async function crawl(
  web: HandlerServer,
  seed: string,
  focus?: Record<string, unknown>,
  dataDir = mkdtempSync(join(tmpdir(), 'trawl-focus-')),
): Promise<{ app: Appliance; pages: string[] }> {
  const first = web.hits.length;
  const app = await Appliance.open(
    loadConfig({ overrides: { dataDir, seeds: [`${web.url}${seed}`], perHost: { delayMs: 0 }, parseWorkers: 0, concurrency: 4, ...(focus ? { focus } : {}) } }),
    { lockFor: 'test' },
  );
  await app.loadFocus();
  await (await app.createCrawler()).crawler.run();
  const pages = web.hits.slice(first).filter((p) => p !== '/robots.txt' && !p.startsWith('/sitemap'));
  return { app, pages };
}

const indexedPaths = async (app: Appliance, web: HandlerServer) => {
  const paths: string[] = [];
  for await (const d of app.store.documents.all()) paths.push(d.url.slice(web.url.length));
  return paths.sort();
};

describe('a focused crawl', () => {
  let web: HandlerServer;
  const open: Appliance[] = [];
  before(async () => {
    web = await serveHandler(topicWebHandler);
  });
  after(async () => {
    for (const app of open) await app.close();
    await web.close();
  });

  it('indexes the pages on topic, skips the rest, and fetches far fewer pages than an unfocused crawl', async () => {
    const unfocused = await crawl(web, '/');
    open.push(unfocused.app);
    assert.equal(await unfocused.app.store.documents.count(), onTopic.length + offTopic.length, 'unfocused, every page is indexed');
    assert.equal((await unfocused.app.status()).focus, null);

    const focused = await crawl(web, '/', { topicFile: TOPIC, cutoff: 30 });
    open.push(focused.app);
    const { app, pages } = focused;
    assert.deepEqual(await indexedPaths(app, web), [...onTopic].sort(), 'exactly the pages about coins, those behind the directory included');
    assert.ok(pages.length * 3 < unfocused.pages.length, `focused: ${pages.length} pages fetched; unfocused: ${unfocused.pages.length}`);
    assert.deepEqual((await app.status()).focus, {
      classifier: 'topic numismatics (plain scorer, cutoff 30)',
      cutoff: 30,
      relevant: onTopic.length,
      notRelevant: new Set(pages).size - onTopic.length,
    });
    // The status a real crawl reports is what the API's schema describes, field for field (strict).
    const status = await app.status();
    assert.deepEqual(StatusSchema.parse({ ...status, summary: statusLine(status) }), { ...status, summary: statusLine(status) });

    // Tunnelling: an off-topic page linked from one on topic passes its links on (one level), no further.
    assert.ok(pages.includes('/news/7') && pages.includes('/news/15'), 'a news page linked from /coins/1, and its link');
    assert.ok(!pages.includes('/news/12') && !pages.includes('/news/31'), 'two off-topic pages in a row: not followed');
    // The seed (the portal, off topic) passes its links on like a relevant page.
    assert.ok(pages.includes('/sports/2') && !pages.includes('/sports/3'), "the seed's links, and theirs, no further");
    assert.ok(pages.includes('/collectors/3'), 'the cluster behind the off-topic directory');

    // Not relevant: recorded with its score and why, not indexed; negative terms pull a page about "coins" down.
    const crypto = await app.explain(`${web.url}/crypto`);
    assert.ok(crypto.known);
    assert.deepEqual(
      [crypto.state, crypto.indexed, crypto.relevant, crypto.topicScore, crypto.reason],
      ['excluded', false, false, -32, 'off topic: score -32 below the cutoff 30'],
    );
    const home = await app.explain(`${web.url}/`);
    // 10: "coins" once in its text; the list of links (/coins/0 …) is a link-dense block, not text.
    assert.ok(home.known && home.relevant === false && home.topicScore === 10, JSON.stringify(home.known && home.topicScore));

    // Relevant: stored and indexed with its classes and their scores; classes are facets and topic: filters.
    const coin = await app.explain(`${web.url}/coins/0`);
    // (The list of links under the text is a link-dense block: links and anchors, not text the topic scores.)
    assert.ok(coin.known && coin.relevant === true && coin.indexed && coin.topicScore === 183, JSON.stringify(coin.known && coin.topicScore));
    assert.deepEqual(
      coin.classes.map((c) => c.name),
      ['coins', 'ancient', 'numismatics', 'minting', 'bullion'],
    );
    const all = await app.index.search('coin', { size: 100 });
    assert.equal(all.total, onTopic.length);
    assert.deepEqual(
      all.facets.topic.find((f) => f.value === 'coins'),
      { value: 'coins', count: onTopic.length },
    );
    // (/coins/7 says what /coins/3 says, but for its number: a near-duplicate, folded under it.)
    const medals = (await app.index.search('topic:medals', { size: 100 })).hits
      .flatMap((h) => [h.url, ...(h.similar ?? []).map((s) => s.url)])
      .map((u) => u.slice(web.url.length))
      .sort();
    assert.deepEqual(medals, ['/coins/3', '/coins/7', '/collectors/3'], 'the pages whose text speaks of medals');
  });

  it('with focus.tunnel 0, follows only the links of relevant pages', async () => {
    const { app, pages } = await crawl(web, '/coins/0', { topicFile: TOPIC, cutoff: 30, tunnel: 0 });
    open.push(app);
    assert.ok(pages.includes('/directory') && pages.includes('/news/7'), 'linked from relevant pages: fetched');
    assert.ok(!pages.some((p) => p.startsWith('/collectors/')) && !pages.includes('/news/8'), 'nothing behind an off-topic page');
    assert.deepEqual(await indexedPaths(app, web), onTopic.filter((p) => p.startsWith('/coins/')).sort());
  });

  it('judges pages again when the topic changes: new classes and scores, and pages now off topic leave the index', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-focus-'));
    const first = await crawl(web, '/coins/0', { topicFile: TOPIC, cutoff: 30, tunnel: 0 }, dataDir);
    await first.app.close();
    // Now only ancient coins count: the medal pages fall below the cutoff.
    const narrower = join(dataDir, 'ancient.txt');
    writeFileSync(narrower, '20: denarius=ancient\n20: drachmas?=ancient\n10: roman @and coins?=ancient\n');
    const app = await Appliance.open(
      loadConfig({ overrides: { dataDir, perHost: { delayMs: 0 }, parseWorkers: 0, focus: { topicFile: narrower, cutoff: 30 } } }),
      { lockFor: 'test' },
    );
    open.push(app);
    const { crawler } = await app.createCrawler([], 'off');
    const done = crawler.run();
    await app.recrawl({ all: true });
    await done;
    const coin0 = await app.store.documents.get((await app.store.urls.record(`${web.url}/coins/0`))!.id);
    // denarius in the text (20) + roman @and coins? in the text (10)
    assert.deepEqual(coin0?.topic, { score: 30, classes: [{ name: 'ancient', score: 30 }] }, 'the same text, stored again with its new verdict');
    assert.equal((await app.index.search('topic:coins')).total, 0, 'the old classes are gone from the index');
    assert.ok((await app.index.search('topic:ancient')).total > 0);
    const medal = await app.explain(`${web.url}/coins/3`);
    assert.ok(medal.known && !medal.indexed && medal.relevant === false, 'off topic now: out of the index');
  });
});
