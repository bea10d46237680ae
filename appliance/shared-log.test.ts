// Indexes on one PostgreSQL store (issue 22): each flushes its own snapshot, the change log is
// pruned only as far as every live reader holds it, and a snapshot replays only from its own
// store's log — pruned past it, or made from another store, it is rebuilt. A throwaway PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { logTo } from '../lib/log.ts';
import type { StoredDocument } from '../model/index.ts';
import { openPostgresStore } from '../store/postgres/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { onEvent, waitFor } from '../testweb/wait.ts';
import { Appliance } from './appliance.ts';
import { IndexFeed } from './index-feed.ts';
import { newIndex } from './index-load.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-shared-log-'));
const config = (dataDir: string, store: string) => loadConfig({ overrides: { dataDir, store } });
/** Stores a document the way the crawler does: its URL record, the document, then the index. */
async function store(app: Appliance, n: number, word: string): Promise<void> {
  const url = `http://e.org/${n}`;
  await app.store.enqueue({ urls: [{ url, depth: 0 }] }, 1);
  const q = (await app.store.urls.take('e.org', { kinds: ['queued'], now: 1 }))!;
  const d: StoredDocument = {
    id: q.id,
    url,
    title: `Doc ${n}`,
    description: '',
    headings: [],
    text: `${word} text`,
    contentType: 'text/html',
    bytes: 1,
    truncated: false,
    httpStatus: 200,
    fetchedAt: 1,
    hash: `h${n}`,
  };
  await app.feed.put(d, undefined, await app.store.documents.put(d));
}

describe('indexes sharing a change log', () => {
  let server: ThrowawayPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server.stop());

  it('a flush prunes nothing another reader still needs; once both hold it, it goes', async () => {
    const db = await server.createDatabase();
    const a = await Appliance.open(config(tmp(), db), { lockFor: 'test' });
    const b = await Appliance.open(config(tmp(), db), { lockFor: 'test' });
    try {
      await store(a, 1, 'first');
      await store(a, 2, 'second');
      await a.caughtUp();
      await a.flush();
      assert.equal((await a.store.changes.since(0)).length, 2, 'b holds the log from 0: nothing pruned');
      // b has followed the log meanwhile; it flushes: now both hold everything.
      await b.caughtUp();
      await b.flush();
      assert.equal((await a.store.changes.since(0)).length, 0);
      assert.equal((await b.index.search('second')).total, 1);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it(
    'a search node finds a page another process stores, woken by the log’s notification, ' + 'and on restart replays only what is newer than its snapshot',
    async (t) => {
      // (The change log's watcher looks at the log every 5 s besides: that interval on a fake clock
      // that never moves, the node learns of a change from PostgreSQL's NOTIFY alone — what makes a
      // page searchable there within milliseconds; how soon is bench/scale's to measure.)
      t.mock.timers.enable({ apis: ['setInterval'] });
      const db = await server.createDatabase();
      const worker = await Appliance.open(config(tmp(), db), { lockFor: 'test', noIndex: true });
      const dir = tmp();
      let node = await Appliance.open(config(dir, db), { lockFor: 'serve', readOnlyStore: true });
      try {
        await store(worker, 1, 'zebra');
        /** Resolves once the node's index finds `word` in `n` pages, looked at after each change the node applies. */
        const found = (word: string, n: number) =>
          waitFor(async () => (await node.index.search(word, { exact: true })).total === n, onEvent(node.feed, 'applied'), {
            what: `the node to find "${word}" in ${n} page(s)`,
          });
        await found('zebra', 1);
        await worker.store.documents.remove((await worker.store.urls.record('http://e.org/1'))!.id);
        await found('zebra', 0);
        await store(worker, 2, 'yak');
        await found('yak', 1);
        await node.close();
        await store(worker, 3, 'walrus');
        const logs: string[] = [];
        node = await Appliance.open(config(dir, db), { lockFor: 'serve', readOnlyStore: true, log: logTo((m) => logs.push(m)) });
        assert.ok(
          logs.some((l) => /replayed 1 changes made after the last flush/.test(l)),
          logs.join('\n'),
        );
        assert.deepEqual([(await node.index.search('yak')).total, (await node.index.search('walrus')).total, node.index.documentCount], [1, 1, 2]);
        const yak = (await node.store.urls.record('http://e.org/2'))!.id;
        await assert.rejects(
          node.store.documents.put({ ...(await node.store.documents.get(yak))!, text: 'x' }),
          /read-only/,
          'a search node writes nothing of the crawl',
        );
      } finally {
        await node.close();
        await worker.close();
      }
    },
  );

  it('a search node reads the pages changed elsewhere in batches, not one statement a page', async () => {
    const db = await server.createDatabase();
    const worker = await Appliance.open(config(tmp(), db), { lockFor: 'test', noIndex: true });
    const node = await openPostgresStore(db, { readOnly: true });
    try {
      const word = (n: number) => `page${'abcdefghij'[Math.floor(n / 10)]}${'abcdefghij'[n % 10]}`;
      for (let n = 1; n <= 70; n++) await store(worker, n, word(n));
      await worker.store.documents.remove((await worker.store.urls.record('http://e.org/3'))!.id);
      const reads = { get: 0, getMany: 0 };
      const { documents } = node;
      const [get, getMany] = [documents.get.bind(documents), documents.getMany.bind(documents)];
      documents.get = (id) => {
        reads.get++;
        return get(id);
      };
      documents.getMany = (ids) => {
        reads.getMany++;
        return getMany(ids);
      };
      const index = newIndex(node, 'language');
      const feed = new IndexFeed(
        index,
        node,
        'language',
        logTo(() => undefined),
      );
      const last = new Map<number, number>();
      for (const c of await node.changes.since(0)) last.set(c.docId, c.seq);
      await feed.refreshMany([...last]);
      assert.deepEqual(reads, { get: 1, getMany: 2 }, '70 pages read 64 at a time; the removed one, not found, read again alone');
      assert.equal(index.documentCount, 69);
      assert.deepEqual([(await index.search(word(70), { exact: true })).total, (await index.search(word(3), { exact: true })).total], [1, 0]);
      assert.equal(feed.through, Math.max(...last.values()));
    } finally {
      await node.close();
      await worker.close();
    }
  });

  it('rebuilds a snapshot the log was pruned past while its reader was away, and one made from another store', async () => {
    const db = await server.createDatabase();
    const dir = tmp();
    const node = await Appliance.open(config(dir, db), { lockFor: 'test' });
    await store(node, 1, 'early');
    await node.close();
    // Another writer goes on; the node counts as gone (not heard from since the future), so the log is pruned past its snapshot.
    const other = await Appliance.open(config(tmp(), db), { lockFor: 'test' });
    await store(other, 2, 'later');
    await other.close();
    const raw = await openPostgresStore(db);
    await raw.changes.prune(await raw.changes.lastSeq(), Date.now() + 60_000);
    await raw.close();
    let logs: string[] = [];
    const back = await Appliance.open(config(dir, db), { lockFor: 'test', log: logTo((m) => logs.push(m)) });
    try {
      assert.ok(
        logs.some((l) => /the change log was pruned through \d+ meanwhile; rebuilding/.test(l)),
        logs.join('\n'),
      );
      assert.equal((await back.index.search('later')).total, 1, 'the page it never saw is in the rebuilt index');
      assert.equal(back.index.documentCount, 2);
    } finally {
      await back.close();
    }
    // The same data directory pointed at another database: its snapshot is not that store's.
    const elsewhere = await server.createDatabase();
    logs = [];
    const moved = await Appliance.open(config(dir, elsewhere), { lockFor: 'test', log: logTo((m) => logs.push(m)) });
    try {
      assert.ok(
        logs.some((l) => /was built from another store .*; rebuilding/.test(l)),
        logs.join('\n'),
      );
      assert.equal(moved.index.documentCount, 0);
    } finally {
      await moved.close();
    }
  });
});
