// Integration: a crawl of pages in eight languages that do not say which (testweb/languages-web.ts):
// the parse workers detect each page's language, the crawl records it, the index stems each page
// by it, and a search in each language finds its page.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { LANGUAGE_PAGES, languagesWebHandler, serveHandler, type HandlerServer } from '../testweb/index.ts';
import { Appliance } from './appliance.ts';

/** Crawls the languages web into a fresh data directory, with `parseWorkers` (0: on the main thread). */
async function crawl(web: HandlerServer, parseWorkers: number): Promise<Appliance> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-languages-'));
  const app = await Appliance.open(loadConfig({ overrides: { dataDir, seeds: [`${web.url}/`], perHost: { delayMs: 0 }, concurrency: 4, parseWorkers } }), {
    lockFor: 'test',
  });
  await (await app.createCrawler()).crawler.run();
  return app;
}

describe('a crawl of pages in many languages that do not say which', () => {
  let web: HandlerServer;
  const apps: Appliance[] = [];
  before(async () => {
    web = await serveHandler(languagesWebHandler);
    apps.push(await crawl(web, 2), await crawl(web, 0));
  });
  after(async () => {
    for (const app of apps) await app.close();
    await web.close();
  });

  it('records each page\u2019s language as detected, or as its server gave it, in parse workers and on the main thread alike', async () => {
    for (const app of apps) {
      for (const [path, page] of Object.entries(LANGUAGE_PAGES)) {
        const record = await app.store.urls.record(`${web.url}${path}`);
        const expected = path === '/fr-header' ? 'fr-CH' : `${page.lang}-x-detected`;
        assert.equal(record?.lang, expected, `${path}: the URL's record`);
        assert.equal((await app.store.documents.get(record!.id))?.lang, expected, `${path}: the stored page`);
      }
    }
  });

  it('finds each page by its words in other forms, inside unspaced sentences, without accents', async () => {
    for (const app of apps) {
      for (const [path, page] of Object.entries(LANGUAGE_PAGES)) {
        for (const q of page.finds) {
          const hits = (await app.index.search(q, { exact: true })).hits.map((h) => new URL(h.url).pathname);
          assert.deepEqual(hits, [path], `${path}: ${q}`);
        }
      }
    }
  });

  it('counts and filters pages by language', async () => {
    const [app] = apps;
    const facets = (await app!.index.search('lang:de')).facets.lang;
    assert.deepEqual(facets, [{ value: 'de', count: 1 }]);
    assert.equal((await app!.index.search('lang:fr')).total, 2, 'detected and given alike');
  });

  it('keeps the index through a restart: flushed with the stemmers it was built with', async () => {
    const [app] = apps;
    await app!.flush();
    const again = await Appliance.open(app!.config, {});
    try {
      assert.deepEqual(
        (await again.index.search('Haus', { exact: true })).hits.map((h) => new URL(h.url).pathname),
        ['/de'],
      );
    } finally {
      await again.close();
    }
  });
});
