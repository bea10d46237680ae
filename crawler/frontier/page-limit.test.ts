// limits.maxPages as the frontier asks it before every URL: the store's count is read once while the
// limit is far, this process's own URLs counted on top; a limit that seems reached is read again.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { taken, T0 } from '../../store/contract/harness.ts';
import { openSqliteStore } from '../../store/sqlite/index.ts';
import { PageLimit } from './page-limit.ts';

/** A store that counts its reads of pages fetched. */
function counted() {
  const store = openSqliteStore(mkdtempSync(join(tmpdir(), 'trawl-page-limit-')));
  const reads = { n: 0 };
  const read = store.urls.pagesFetched.bind(store.urls);
  store.urls.pagesFetched = () => {
    reads.n++;
    return read();
  };
  return { store, reads };
}

async function fetchPage(store: ReturnType<typeof openSqliteStore>, url: string): Promise<void> {
  const q = await taken(store, url);
  await store.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: null }, T0);
}

describe('PageLimit', () => {
  it('reads the count once while the limit is far, however often it is asked', async () => {
    const { store, reads } = counted();
    try {
      await fetchPage(store, 'http://a.org/1');
      let t = 0;
      const limit = new PageLimit(store, 100, () => t);
      for (let i = 0; i < 50; i++) assert.equal(await limit.reached(10), false);
      assert.equal(reads.n, 1);
      // A read is good for a second: then read again.
      t = 999;
      await limit.reached(10);
      assert.equal(reads.n, 1);
      t = 1000;
      await limit.reached(10);
      assert.equal(reads.n, 2);
    } finally {
      await store.close();
    }
  });

  it('counts the URLs this process finished since, and reads again before it says the limit is reached', async () => {
    const { store, reads } = counted();
    try {
      await fetchPage(store, 'http://a.org/1');
      const limit = new PageLimit(store, 3, () => 0);
      assert.equal(await limit.reached(0), false);
      assert.equal(reads.n, 1);
      // Two URLs finished here that were not pages (say, failed): 1 + 2 seems to reach 3 — read again: not reached.
      limit.finished();
      limit.finished();
      assert.equal(await limit.reached(0), false);
      assert.equal(reads.n, 2);
      // Two pages stored and finished: reached, by the count just read.
      await fetchPage(store, 'http://a.org/2');
      await fetchPage(store, 'http://a.org/3');
      limit.finished();
      limit.finished();
      assert.equal(await limit.reached(0), true);
      assert.equal(reads.n, 3);
      // Pages in flight count as they may yet be pages.
      assert.equal(await new PageLimit(store, 5).reached(2), true);
    } finally {
      await store.close();
    }
  });

  it('never reads without a limit', async () => {
    const { store, reads } = counted();
    try {
      assert.equal(await new PageLimit(store, 0).reached(1000), false);
      assert.equal(reads.n, 0);
    } finally {
      await store.close();
    }
  });
});
