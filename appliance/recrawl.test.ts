// A second pass over pages Trawl holds: conditional requests, and nothing reindexed that did not change.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { startFakeWeb } from '../fakeweb/index.ts';
import { Appliance } from './appliance.ts';

describe('recrawling unchanged pages', () => {
  const cleanup: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanup) await c();
  });

  it('asks conditionally, takes a 304 or the same text as "unchanged", and reindexes nothing', async () => {
    const web = await startFakeWeb({ graphSize: 6 });
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-recrawl-'));
    const app = Appliance.open(
      loadConfig({ overrides: { dataDir, seeds: [`${web.url}graph/0`, `${web.url}target`], scope: { allow: ['URL:/graph/', 'URL:/target$'] }, perHost: { delayMs: 0 }, parseWorkers: 0 } }),
      { lockFor: 'test' },
    );
    cleanup.push(
      () => app.close(),
      () => web.close(),
    );
    const { crawler } = app.createCrawler();
    let indexed = 0;
    crawler.on('document', () => indexed++);
    await crawler.run();
    assert.equal(indexed, 7, 'six graph pages and the target');
    const firstPass = web.requests.length;
    const fetchedAt = app.documents.get(app.frontier.idOf(`${web.url}graph/1`)!)!.fetchedAt;

    const done = once(crawler, 'done');
    assert.equal(app.recrawl({ all: true }).queued, 7);
    await done;
    const second = web.requests.slice(firstPass).filter((r) => r.path !== '/robots.txt');
    const graph = second.filter((r) => r.path.startsWith('/graph/'));
    assert.equal(graph.length, 6);
    assert.ok(graph.every((r) => r.ifNoneMatch === `"graph-${r.path.split('/')[2]}"` && r.status === 304), JSON.stringify(graph));
    const target = second.filter((r) => r.path === '/target');
    assert.deepEqual(target.map((r) => [r.ifNoneMatch, r.status]), [[undefined, 200]], 'no validators: a plain GET, and the same text');
    assert.equal(indexed, 7, 'nothing was stored or indexed again');
    const g1 = app.explain(`${web.url}graph/1`);
    assert.ok(g1.known && g1.state === 'not-modified' && g1.httpStatus === 304 && g1.indexed);
    const t = app.explain(`${web.url}target`);
    assert.ok(t.known && t.state === 'indexed' && t.reason === 'unchanged');
    assert.ok(app.documents.get(app.frontier.idOf(`${web.url}graph/1`)!)!.fetchedAt >= fetchedAt, 'the fetch time moves on');
    assert.equal(app.index.search('graphword1').total, 1);
  });
});
