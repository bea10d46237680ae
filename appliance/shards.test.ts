// A search node that holds one shard (issue 22, cluster.shard): only the documents whose URL
// hashes to it, whether its index is built from the documents table or follows the change log;
// its snapshot records the shard, and a node started with another share rebuilds rather than
// serve the wrong documents. A throwaway PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { readManifest } from '../indexer/index.ts';
import { logTo } from '../lib/log.ts';
import { shardOf } from '../lib/shard.ts';
import type { StoredDocument } from '../model/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { Appliance } from './appliance.ts';

const dirs: string[] = [];
const tmp = () => {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-shards-'));
  dirs.push(dir);
  return dir;
};
const config = (dataDir: string, store: string | undefined, shard = '') =>
  loadConfig({ overrides: { dataDir, ...(store ? { store } : {}), cluster: { shard } } });
const urlOf = (n: number) => `http://e.org/page-${n}`;

/** Stores pages the way the crawler does: the URL record, the document, then the index. */
async function store(app: Appliance, from: number, to: number): Promise<void> {
  for (let n = from; n <= to; n++) {
    const url = urlOf(n);
    await app.store.enqueue({ urls: [{ url, depth: 0 }] }, 1);
    const q = (await app.store.urls.take('e.org', { kinds: ['queued'], now: 1 }))!;
    const d: StoredDocument = {
      id: q.id,
      url,
      title: `Page ${n}`,
      description: '',
      headings: [],
      text: `common words and word${n}`,
      contentType: 'text/html',
      bytes: 1,
      truncated: false,
      httpStatus: 200,
      fetchedAt: 1,
      hash: `h${n}`,
    };
    await app.feed.put(d, undefined, await app.store.documents.put(d));
  }
}

/** The pages a node finds, by number. */
async function pagesOf(node: Appliance): Promise<number[]> {
  const r = await node.index.search('common', { size: 100, exact: true });
  return r.hits.map((h) => Number(/page-(\d+)$/.exec(h.url)![1])).sort((a, b) => a - b);
}
const shareOf = (k: number, from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i).filter((n) => shardOf(urlOf(n), 2) === k);

describe('a search node holding one shard', () => {
  let server: ThrowawayPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(async () => {
    await server.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('indexes its share only, from the documents table and from the change log, and the two shards hold every page once', async () => {
    const db = await server.createDatabase();
    const worker = await Appliance.open(config(tmp(), db), { lockFor: 'test', noIndex: true });
    const nodes: Appliance[] = [];
    try {
      await store(worker, 1, 30);
      for (const k of [1, 2]) nodes.push(await Appliance.open(config(tmp(), db, `${k}/2`), { lockFor: 'serve', readOnlyStore: true }));
      assert.deepEqual(await pagesOf(nodes[0]!), shareOf(1, 1, 30), 'built from the documents table');
      assert.deepEqual(await pagesOf(nodes[1]!), shareOf(2, 1, 30));
      assert.ok(shareOf(1, 1, 30).length > 5 && shareOf(2, 1, 30).length > 5, 'both shards hold some');
      await store(worker, 31, 60);
      for (const n of nodes) await n.caughtUp();
      assert.deepEqual(await pagesOf(nodes[0]!), shareOf(1, 1, 60), 'and what the change log brings');
      assert.deepEqual(await pagesOf(nodes[1]!), shareOf(2, 1, 60));
      // A page removed from the store leaves its shard.
      const gone = shareOf(2, 1, 60)[0]!;
      await worker.store.documents.remove((await worker.store.urls.record(urlOf(gone)))!.id);
      for (const n of nodes) await n.caughtUp();
      assert.deepEqual(
        await pagesOf(nodes[1]!),
        shareOf(2, 1, 60).filter((n) => n !== gone),
      );
    } finally {
      for (const n of nodes) await n.close();
      await worker.close();
    }
  });

  it('records its shard in its snapshot: restarted with another, it rebuilds; with the same, it loads', async () => {
    const db = await server.createDatabase();
    const worker = await Appliance.open(config(tmp(), db), { lockFor: 'test', noIndex: true });
    const dir = tmp();
    try {
      await store(worker, 1, 20);
      const first = await Appliance.open(config(dir, db, '1/2'), { lockFor: 'serve', readOnlyStore: true });
      await first.flush();
      await first.close();
      assert.equal(readManifest(join(dir, 'index'))?.shard, '1/2');
      let logs: string[] = [];
      const other = await Appliance.open(config(dir, db, '2/2'), { lockFor: 'serve', readOnlyStore: true, log: logTo((m) => logs.push(m)) });
      try {
        assert.ok(
          logs.some((l) => /holds shard 1\/2 of the documents, but this node serves shard 2\/2 of the documents \(cluster\.shard\); rebuilding/.test(l)),
          logs.join('\n'),
        );
        assert.deepEqual(await pagesOf(other), shareOf(2, 1, 20));
        await other.flush();
      } finally {
        await other.close();
      }
      logs = [];
      const again = await Appliance.open(config(dir, db, '2/2'), { lockFor: 'serve', readOnlyStore: true, log: logTo((m) => logs.push(m)) });
      try {
        assert.ok(!logs.some((l) => /rebuilding/.test(l)), logs.join('\n'));
        assert.deepEqual(await pagesOf(again), shareOf(2, 1, 20));
      } finally {
        await again.close();
      }
      logs = [];
      const whole = await Appliance.open(config(dir, db), { lockFor: 'serve', readOnlyStore: true, log: logTo((m) => logs.push(m)) });
      try {
        assert.ok(
          logs.some((l) => /holds shard 2\/2 of the documents, but this node serves every document/.test(l)),
          logs.join('\n'),
        );
        assert.equal(whole.index.documentCount, 20);
      } finally {
        await whole.close();
      }
    } finally {
      await worker.close();
    }
  });

  it('needs a shared store', async () => {
    await assert.rejects(
      Appliance.open(config(tmp(), undefined, '1/2'), { lockFor: 'test' }),
      (e: Error & { code?: string }) => e.code === 'ERR_SHARD' && /needs a store the shards share/.test(e.message),
    );
  });
});
