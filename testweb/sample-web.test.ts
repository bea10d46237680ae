// Integration: `trawl demo`'s sample web (the installed npm packages' docs on three loopback sites),
// crawled whole as the demo crawls it — its failures are exactly the deliberate ones (DELIBERATE),
// told apart: two broken links of the sites, two failures of the crawl; and the crawl's history is kept.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { Appliance } from '../appliance/appliance.ts';
import { loadConfig } from '../config/index.ts';
import type { ApplianceStatus } from '../model/index.ts';
import { DELIBERATE, startSampleWeb, type SampleWeb } from './sample-web.ts';

const MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));

describe('the sample web, crawled', () => {
  let web: SampleWeb;
  let app: Appliance;
  let status: ApplianceStatus;
  /** A deliberate failure's URL, on its site. */
  const urlOf = (d: (typeof DELIBERATE)[number]) => new URL(d.path, web.sites[d.site]).href;

  before(async () => {
    web = await startSampleWeb({ modulesDir: MODULES });
    const config = loadConfig({
      overrides: {
        dataDir: mkdtempSync(join(tmpdir(), 'trawl-sample-web-')),
        seeds: [...web.sites],
        // (A suspension short too: were a host suspended, the crawl would not wait minutes to say so.)
        perHost: { delayMs: 0, maxConnections: 4, suspendMs: 1000 },
        concurrency: 8,
        render: { mode: 'never' },
        // (The timeout and the waits before a retry, short: the attempts, as many as the demo's, come to the same.)
        limits: { timeoutMs: 1000 },
        retry: { baseDelayMs: 50 },
      },
    });
    app = await Appliance.open(config, { lockFor: 'test' });
    await (await app.createCrawler()).crawler.run();
    status = await app.status();
  });
  after(async () => {
    await app?.close();
    await web?.close();
  });

  it('fails only where it means to: two broken links of the sites, with the pages that link them, and two failures of the crawl', () => {
    const c = status.crawl;
    const broken = DELIBERATE.filter((d) => d.status === 404 || d.status === 410);
    assert.deepEqual(
      [...c.brokenLinks!.shown].sort((a, b) => a.url.localeCompare(b.url)).map((b) => ({ url: b.url, status: b.status, foundOn: b.foundOn })),
      broken.map((d) => ({ url: urlOf(d), status: d.status, foundOn: web.sites[d.site] })).sort((a, b) => a.url.localeCompare(b.url)),
    );
    assert.equal(c.brokenLinks!.count, 2);
    assert.deepEqual(
      [...c.fetchFailures!.shown].map((f) => [f.url, f.state, f.error]).sort(),
      [
        [urlOf(DELIBERATE[2]), 'dead', 'http-5xx'],
        [urlOf(DELIBERATE[3]), 'dead', 'timeout'],
      ].sort(),
    );
    assert.equal(c.fetchFailures!.count, 2);
    assert.equal(c.failed, 4, 'nothing else failed: no link to a file the sample web does not render');
    for (const h of c.hosts) assert.equal(h.suspensions, 0, `${h.host} was never suspended for failing in a row (${h.lastError})`);
  });

  it('crawls every page it serves, and excludes only the drafts robots.txt disallows', () => {
    const drafts = 3;
    const sitemaps = 3;
    assert.equal(status.crawl.fetched, web.pageCount - drafts + sitemaps, 'every page but the drafts, and each sitemap');
    assert.equal(status.crawl.excluded, drafts, 'a draft on each site');
  });

  it("keeps the crawl's history for the chart, ending with the crawl's figures", () => {
    const h = status.history!;
    assert.ok(h.length >= 2, `${h.length} samples`);
    assert.equal(h.at(-1)!.pages, status.crawl.fetched);
    assert.ok(h.some((s) => s.pagesPerSecond > 0));
  });
});
