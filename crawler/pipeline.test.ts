// The crawl loop's pipeline: `concurrency` caps requests in flight, and a page waiting for the
// parser does not hold one of them. Real frontier, scheduler and store; a fake fetcher that counts
// requests in flight and a parser that takes its time.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { DocumentStore } from '../store/documents.ts';
import { openDb } from '../store/db.ts';
import { Crawler } from './crawler.ts';
import type { Fetcher, FetchResult } from './fetch/fetcher.ts';
import { Frontier } from './frontier/frontier.ts';
import { HostScheduler } from './frontier/hosts.ts';
import { extract, type Extracted, type PageParser, type ParseJob } from './parse/index.ts';
import type { RobotsCache, RobotsRules } from './robots/robots.ts';
import { buildScope, createNormalizer, defaultFilters } from './urls/index.ts';

const PAGES = 40;
const page = (i: number) =>
  Buffer.from(`<title>page ${i}</title><p>pipelineword${i}</p>${[1, 2, 3, 1].map((k) => `<a href="/p/${(i * 3 + k) % PAGES}">next</a>`).join('')}`);

describe('the crawl pipeline', () => {
  it('caps requests in flight at `concurrency` while more pages wait for the parser', async () => {
    const db = openDb(join(mkdtempSync(join(tmpdir(), 'trawl-pipeline-')), 'crawl.db'));
    let inFlight = 0;
    let maxInFlight = 0;
    let parsing = 0;
    let maxPipeline = 0;
    const fetcher = {
      async fetch(url: string): Promise<FetchResult> {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        maxPipeline = Math.max(maxPipeline, inFlight + parsing);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        const i = Number(new URL(url).pathname.split('/').pop());
        const body = page(i);
        return { kind: 'response', status: 200, contentType: 'text/html', headers: {}, body, truncated: false, wireBytes: body.length };
      },
    } as unknown as Fetcher;
    // A parser slower than the network (as a busy parse worker is): 30 ms a page, in parallel.
    const parser: PageParser = {
      async parse(job: ParseJob): Promise<Extracted> {
        parsing++;
        maxPipeline = Math.max(maxPipeline, inFlight + parsing);
        await new Promise((r) => setTimeout(r, 30));
        parsing--;
        return extract(job);
      },
      close: async () => undefined,
    };
    const allowAll: RobotsRules = { state: 'allow-all', isAllowed: () => true, sitemaps: [] };
    const robots = { cached: () => allowAll, load: async () => allowAll } as unknown as RobotsCache;
    const normalize = createNormalizer();
    const seed = 'http://pipeline.test/p/0';
    const frontier = new Frontier(db);
    const crawler = new Crawler({
      frontier,
      scheduler: new HostScheduler({ maxConnections: 16, delayMs: 0 }),
      robots,
      fetcher,
      documents: new DocumentStore(db),
      parser,
      policy: { normalize, filters: defaultFilters(buildScope({ allow: [], exclude: [], seeds: [seed] }), { maxUrlLength: 2000, maxDepth: 100 }) },
      limits: { concurrency: 3, maxPages: 0, maxRedirects: 5 },
      userAgent: 'TrawlBot/1.0',
    });
    const stored: number[] = [];
    crawler.on('document', (doc) => stored.push(doc.id));
    crawler.addSeeds([seed]);
    assert.equal((await crawler.run()).reason, 'exhausted');
    // 40 pages × 4 links reach 39 new URLs (the seed is linked too): every other link was already
    // seen, whether SQLite or the crawler's cache of seen links said so.
    const rejections = frontier.rejections();
    db.close();
    assert.deepEqual(rejections, [{ reason: 'already-seen', count: PAGES * 4 - (PAGES - 1) }]);
    assert.equal(stored.length, PAGES, 'every page crawled');
    assert.equal(maxInFlight, 3, 'never more requests in flight than `concurrency`');
    assert.ok(maxPipeline > 3, `requests went on while pages waited for the parser (at most ${maxPipeline} pages in the pipeline)`);
    assert.ok(maxPipeline <= 6, `pages waiting for the parser are bounded too (${maxPipeline})`);
  });
});
