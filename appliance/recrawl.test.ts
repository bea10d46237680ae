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

describe('recrawling a site that changed', () => {
  it('updates edited pages, adds new ones, drops deleted (confirmed) and moved ones, keeps the unchanged', async () => {
    const web = await startFakeWeb();
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-recrawl-'));
    const app = Appliance.open(
      loadConfig({ overrides: { dataDir, seeds: [`${web.url}site/`], scope: { allow: ['URL:/site/'] }, perHost: { delayMs: 0 }, retry: { baseDelayMs: 50, maxAttempts: 2 }, parseWorkers: 0 } }),
      { lockFor: 'test' },
    );
    try {
      const { crawler } = app.createCrawler();
      await crawler.run();
      const found = (word: string) => app.index.search(word).hits.map((h) => new URL(h.url).pathname);
      assert.deepEqual(found('deletedword'), ['/site/deleted']);
      assert.deepEqual(found('movedword'), ['/site/moved']);

      web.setSiteVersion(2);
      const mark = web.requests.length;
      const done = once(crawler, 'done');
      app.recrawl({ all: true });
      await done;
      const second = web.requests.slice(mark);
      const answers = (path: string) => second.filter((r) => r.path === path).map((r) => r.status);

      assert.deepEqual(found('revisedword'), ['/site/edited'], 'the edit is searchable');
      assert.deepEqual(found('original'), [], 'the old text is gone');
      assert.deepEqual(found('addedword'), ['/site/added'], 'a page linked from a recrawled page is crawled');
      assert.deepEqual(found('deletedword'), [], 'a deleted page leaves the index');
      assert.deepEqual(answers('/site/deleted'), [404, 404], 'after a second 404');
      assert.deepEqual(found('movedword'), ['/site/new-home'], 'a moved page is found at its new address only');
      assert.deepEqual(found('steadyword'), ['/site/unchanged']);
      assert.deepEqual(found('flakyword'), ['/site/flaky'], 'a page answering 503 stays');
      assert.deepEqual(answers('/site/flaky'), [503, 503], 'retried, then given up for this pass');
      assert.deepEqual(answers('/site/unchanged'), [304]);
      assert.ok(second.filter((r) => r.path === '/site/unchanged').every((r) => r.ifNoneMatch === '"unchanged"'));

      const deleted = app.explain(`${web.url}site/deleted`);
      assert.ok(deleted.known && deleted.state === 'dead' && /gone from the site, removed from the index/.test(deleted.reason ?? ''), JSON.stringify(deleted));
      const moved = app.explain(`${web.url}site/moved`);
      assert.ok(moved.known && moved.state === 'redirected' && !moved.indexed, JSON.stringify(moved));
    } finally {
      await app.close();
      await web.close();
    }
  });
});
