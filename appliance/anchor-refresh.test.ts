// Integration: at a crawl's end, the anchor text of the pages indexed before their links were seen
// is brought up to date, and the log says so (bench/search-while-crawling waits for that line).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { logTo } from '../lib/log.ts';
import { type FakeWeb, startFakeWeb } from '../testweb/fake-web.ts';
import { onEvent, waitFor } from '../testweb/wait.ts';
import { Appliance } from './appliance.ts';

describe("the anchor text brought up to date at a crawl's end", () => {
  let web: FakeWeb;
  before(async () => {
    web = await startFakeWeb({ graphSize: 8 });
  });
  after(() => web.close());

  it('is logged with the count of pages it changed, once the refresh is over', async () => {
    const logs: string[] = [];
    const logged = new EventEmitter();
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-anchor-refresh-'));
    const config = loadConfig({
      overrides: { dataDir, seeds: [`${web.url}graph/0`], scope: { allow: ['URL:/graph/'] }, perHost: { delayMs: 0 }, parseWorkers: 0, render: 'never' },
    });
    const app = await Appliance.open(config, {
      lockFor: 'test',
      log: logTo((m) => {
        logs.push(m);
        logged.emit('line');
      }),
    });
    try {
      await (await app.createCrawler()).crawler.run();
      // (The refresh runs after the crawl's end, on its own: its log line is what says it is over.)
      const line = await waitFor(() => logs.find((m) => m.includes('anchor text:')), onEvent(logged, 'line'), { what: 'the anchor refresh logged' });
      const m = /anchor text: (\d+) pages brought up to date with the links found after them \(\d+ ms\)/.exec(line);
      assert.ok(m, line);
      // (Page 0 was indexed before any page linking to it was fetched.)
      assert.ok(Number(m[1]) >= 1, line);
    } finally {
      await app.close();
    }
  });
});
