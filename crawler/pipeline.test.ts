// The crawl pipeline through the crawler, with a real local frontier, scheduler and SQLite store, a
// scripted fetcher that counts requests in flight and parsers that take their time or fail. Time is
// fake (node:test's mock timers): a request takes 5 ms and a page 30 ms of it, and the clock moves a
// millisecond whenever nothing else is left to run.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, mock } from 'node:test';
import { openSqliteStore } from '../store/sqlite/index.ts';
import { Crawler } from './crawler.ts';
import type { FetchResult, PageFetcher } from './fetch/fetcher.ts';
import { HostScheduler } from './frontier/hosts.ts';
import { LocalFrontier } from './frontier/local/local-frontier.ts';
import { extract } from './parse/extract.ts';
import { ParseFailure, type Extracted, type ParseJob } from './parse/index.ts';
import type { RobotsRules, RobotsSource } from './robots/robots.ts';
import { crawlerLimits, frontierLimits, hostPolicy, urlPolicy } from './settings-fixture.ts';

const PAGES = 40;
const SEED = 'http://pipeline.test/p/0';
const FETCH_MS = 5;
const PARSE_MS = 30;
const page = (i: number) =>
  Buffer.from(`<title>page ${i}</title><p>pipelineword${i}</p>${[1, 2, 3, 1].map((k) => `<a href="/p/${(i * 3 + k) % PAGES}">next</a>`).join('')}`);
/** Time passing on the fake clock (onFakeClock): a request, a parse. */
const takes = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `work` on a fake clock that moves a millisecond at a time whenever nothing else is left to run. */
async function onFakeClock<T>(work: () => Promise<T>): Promise<T> {
  mock.timers.enable({ apis: ['setTimeout', 'setInterval', 'Date'], now: 1_000_000 });
  try {
    let settled = false;
    const result = work().finally(() => (settled = true));
    while (!settled) {
      await new Promise((resolve) => setImmediate(resolve));
      mock.timers.tick(1);
    }
    return await result;
  } finally {
    mock.timers.reset();
  }
}

/** Crawls the 40-page web with `concurrency` and the given parser; returns what happened. */
async function crawl(concurrency: number, parse: (job: ParseJob, state: { inFlight: number }) => Promise<Extracted>) {
  const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-pipeline-')));
  const state = { inFlight: 0, maxInFlight: 0 };
  const fetcher: PageFetcher = {
    async fetch(url: string): Promise<FetchResult> {
      state.inFlight++;
      state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
      await takes(FETCH_MS);
      state.inFlight--;
      const body = page(Number(new URL(url).pathname.split('/').pop()));
      return { kind: 'response', status: 200, contentType: 'text/html', headers: {}, body, truncated: false, wireBytes: body.length };
    },
  };
  const allowAll: RobotsRules = { state: 'allow-all', isAllowed: () => true, sitemaps: [] };
  const robots: RobotsSource = { cached: async () => allowAll, load: async () => allowAll };
  const frontier = new LocalFrontier({
    store,
    scheduler: new HostScheduler(hostPolicy({ maxConnections: 16, delayMs: 0 })),
    robots,
    revisits: 'off',
    ...frontierLimits({ limits: { maxPages: 0 } }),
  });
  await frontier.load();
  const crawler = new Crawler({
    store,
    frontier,
    fetcher,
    parser: { parse: (job) => parse(job, state), close: async () => undefined },
    policy: urlPolicy([SEED], { limits: { maxDepth: 100 } }, (host) => frontier.urlsOfHost(host)),
    limits: crawlerLimits({ concurrency }),
    userAgent: 'TrawlBot/1.0',
  });
  const stored: number[] = [];
  crawler.on('document', (doc) => stored.push(doc.id));
  const { reason } = await onFakeClock(async () => {
    await crawler.addSeeds([SEED]);
    return crawler.run();
  });
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
    // A parser slower than the network (as a busy parse worker is), pages parsed in parallel.
    const r = await crawl(3, async (job, state) => {
      parsing++;
      maxPipeline = Math.max(maxPipeline, state.inFlight + parsing);
      await takes(PARSE_MS);
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
