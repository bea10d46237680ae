// The crawl loop's pipeline, with real frontier, scheduler and store, a fake fetcher that counts
// requests in flight and parsers that take their time or fail.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { normalizerOf } from '../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { openSqliteStore } from '../store/sqlite/index.ts';
import { Crawler } from './crawler.ts';
import type { Fetcher, FetchResult } from './fetch/fetcher.ts';
import { Frontier } from './frontier/frontier.ts';
import { HostScheduler } from './frontier/hosts.ts';
import { extract } from './parse/extract.ts';
import { ParseFailure, type Extracted, type ParseJob } from './parse/index.ts';
import type { RobotsCache, RobotsRules } from './robots/robots.ts';
import { buildScope, defaultFilters } from './urls/index.ts';

const PAGES = 40;
const SEED = 'http://pipeline.test/p/0';
const page = (i: number) =>
  Buffer.from(`<title>page ${i}</title><p>pipelineword${i}</p>${[1, 2, 3, 1].map((k) => `<a href="/p/${(i * 3 + k) % PAGES}">next</a>`).join('')}`);

/** Crawls the 40-page web with `concurrency` and the given parser; returns what happened. */
async function crawl(concurrency: number, parse: (job: ParseJob, state: { inFlight: number }) => Promise<Extracted>) {
  const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-pipeline-')));
  const state = { inFlight: 0, maxInFlight: 0 };
  const fetcher = {
    async fetch(url: string): Promise<FetchResult> {
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      await new Promise((r) => setTimeout(r, 5));
      state.inFlight--;
      const body = page(Number(new URL(url).pathname.split('/').pop()));
      return { kind: 'response', status: 200, contentType: 'text/html', headers: {}, body, truncated: false, wireBytes: body.length };
    },
  } as unknown as Fetcher;
  const allowAll: RobotsRules = { state: 'allow-all', isAllowed: () => true, sitemaps: [] };
  const robots = { cached: async () => allowAll, load: async () => allowAll } as unknown as RobotsCache;
  const frontier = new Frontier(store);
  const crawler = new Crawler({
    store,
    frontier,
    scheduler: new HostScheduler({ maxConnections: 16, delayMs: 0 }),
    robots,
    fetcher,
    parser: { parse: (job) => parse(job, state), close: async () => undefined },
    policy: {
      normalize: normalizerOf(DEFAULT_CONFIG),
      filters: defaultFilters(buildScope({ allow: [], exclude: [], seeds: [SEED] }), { ...DEFAULT_CONFIG.limits, maxUrlLength: 2000, maxDepth: 100 }),
    },
    limits: { concurrency, maxPages: 0, maxRedirects: 5, maxLinksPerPage: DEFAULT_CONFIG.limits.maxLinksPerPage, documents: DEFAULT_CONFIG.documents },
    userAgent: 'TrawlBot/1.0',
  });
  const stored: number[] = [];
  crawler.on('document', (doc) => stored.push(doc.id));
  await crawler.addSeeds([SEED]);
  const { reason } = await crawler.run();
  const result = {
    reason,
    stored,
    maxInFlight: state.maxInFlight,
    rejections: await store.rejections.all(),
    record: (path: string) => store.urls.record(new URL(path, SEED).href),
  };
  return { ...result, close: () => store.close() };
}

describe('the crawl pipeline', () => {
  it('caps requests in flight at `concurrency` while more pages wait for the parser', async () => {
    let parsing = 0;
    let maxPipeline = 0;
    // A parser slower than the network (as a busy parse worker is): 30 ms a page, in parallel.
    const r = await crawl(3, async (job, state) => {
      parsing++;
      maxPipeline = Math.max(maxPipeline, state.inFlight + parsing);
      await new Promise((res) => setTimeout(res, 30));
      parsing--;
      return extract(job);
    });
    await r.close();
    assert.equal(r.reason, 'exhausted');
    assert.equal(r.stored.length, PAGES, 'every page crawled');
    assert.equal(r.maxInFlight, 3, 'never more requests in flight than `concurrency`');
    assert.ok(maxPipeline > 3, `requests went on while pages waited for the parser (at most ${maxPipeline} pages in the pipeline)`);
    assert.ok(maxPipeline <= 6, `pages waiting for the parser are bounded too (${maxPipeline})`);
    // 40 pages × 4 links reach 39 new URLs (the seed is linked too): every other link was already
    // seen, whether SQLite or the crawler's cache of seen links said so.
    assert.deepEqual(r.rejections, [{ reason: 'already-seen', count: PAGES * 4 - (PAGES - 1) }]);
  });

  it('records a page whose parsing killed the parser as dead (unparsable), and crawls the rest', async () => {
    const r = await crawl(3, async (job) => {
      if (job.url.endsWith('/p/7')) throw new ParseFailure('the parse worker died while parsing it (out of memory)');
      return extract(job);
    });
    const rec = await r.record('/p/7');
    await r.close();
    assert.equal(r.reason, 'exhausted');
    assert.deepEqual([rec?.state, rec?.error, rec?.reason], ['dead', 'unparsable', 'the parse worker died while parsing it (out of memory)']);
    // Every page is linked from three others: all the rest are reached and stored.
    assert.equal(r.stored.length, PAGES - 1);
  });
});
