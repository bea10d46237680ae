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
import { Appliance } from './appliance.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-shared-log-'));
const config = (dataDir: string, store: string) => loadConfig({ overrides: { dataDir, store } });
/** Stores a document the way the crawler does: its URL record, the document, then the index. */
async function store(app: Appliance, n: number, word: string): Promise<void> {
  const url = `http://e.org/${n}`;
  await app.store.enqueue({ urls: [{ url, depth: 0 }] }, 1);
  const q = (await app.store.urls.take('e.org', { kinds: ['queued'], now: 1 }))!;
  const d: StoredDocument = { id: q.id, url, title: `Doc ${n}`, description: '', headings: [], text: `${word} text`, contentType: 'text/html', bytes: 1, truncated: false, httpStatus: 200, fetchedAt: 1, hash: `h${n}` };
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
      await a.flush();
      assert.equal((await a.store.changes.since(0)).length, 2, 'b holds the log from 0: nothing pruned');
      // b catches up (what a search node's follower does), flushes: now both hold everything.
      for (const c of await b.store.changes.since(0)) await b.feed.refresh(c.docId, c.seq);
      await b.flush();
      assert.equal((await a.store.changes.since(0)).length, 0);
      assert.equal((await b.index.search('second')).total, 1);
    } finally {
      await a.close();
      await b.close();
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
      assert.ok(logs.some((l) => /the change log was pruned through \d+ meanwhile; rebuilding/.test(l)), logs.join('\n'));
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
      assert.ok(logs.some((l) => /was built from another store .*; rebuilding/.test(l)), logs.join('\n'));
      assert.equal(moved.index.documentCount, 0);
    } finally {
      await moved.close();
    }
  });
});
