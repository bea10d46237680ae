// The change log's numbers on PostgreSQL (changes.ts): given after the commit, so that writers'
// commits never wait for each other, and still such that a reader that applied number n never
// finds a change numbered n or below later — whatever the order in which transactions commit.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startPostgres } from '../../testweb/postgres.ts';
import { doc, taken } from '../contract/harness.ts';
import { logChanges, numberChanges } from './sequencer.ts';
import { openPostgresStore } from './store.ts';

const server = await startPostgres();
after(() => server.stop());

/** A writer of its own (not the store's pool): a transaction that logs a change and commits when told. */
async function openWriter(url: string): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  return c;
}

describe('the PostgreSQL change log: numbers given after the commit', () => {
  it("does not hold a writer's commit back behind another transaction that logged changes and is still open", async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const other = await openWriter(url);
    try {
      const b = await taken(store, 'http://a.org/b');
      await other.query('BEGIN');
      const logged = (await logChanges(other, [{ docId: 1_000_001, op: 'put' }]))!;
      // (The old design's put waited here for the other transaction's lock on the head of the log.)
      const put = store.documents.put(doc(b.id, 'b'));
      const outcome = await Promise.race([put.then(() => 'committed'), new Promise((r) => setTimeout(() => r('waiting'), 3000))]);
      assert.equal(outcome, 'committed', 'the put commits while the other transaction is open');
      const seqB = await put;
      assert.deepEqual(await store.changes.since(0), [{ seq: seqB, docId: b.id, op: 'put' }], "the open transaction's change is not seen");
      await other.query('COMMIT');
      const [seqA] = (await numberChanges(store.pool, logged))!;
      assert.ok(seqA! > seqB, 'the change committed later takes the later number');
      assert.deepEqual(
        (await store.changes.since(0)).map((c) => c.docId),
        [b.id, 1_000_001],
      );
      assert.equal(await store.changes.lastSeq(), seqA);
    } finally {
      await other.end();
      await store.close();
    }
  });

  it('tells a writer the numbers another run gave its changes without waiting for the lock of a run in progress', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const [writer, holder] = await Promise.all([openWriter(url), openWriter(url)]);
    try {
      await writer.query('BEGIN');
      const logged = (await logChanges(writer, [{ docId: 7, op: 'put' }]))!;
      await writer.query('COMMIT');
      assert.deepEqual(await store.changes.since(0), [{ seq: 1, docId: 7, op: 'put' }], "a reader's run numbered it");
      // A run whose client has not come round to its commit yet (a crawler's event loop busy): it holds the sequencer's lock.
      await holder.query('BEGIN');
      await holder.query(`SELECT pg_advisory_xact_lock(${0x7472_6177_6c01})`);
      const numbers = numberChanges(store.pool, logged);
      const outcome = await Promise.race([numbers, new Promise((r) => setTimeout(() => r('waiting'), 3000))]);
      assert.deepEqual(outcome, [1], 'told at once');
      await holder.query('COMMIT');
    } finally {
      await Promise.all([writer.end(), holder.end()]);
      await store.close();
    }
  });

  it('never makes a reader that polls in between skip a change, when transactions commit out of the order they began', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    const writers = await Promise.all([openWriter(url), openWriter(url), openWriter(url)]);
    const received: number[] = [];
    let position = 0;
    let reading = true;
    // (One poll at a time, as a follower reads: the background reader's and the rounds' own.)
    let polling = Promise.resolve();
    const poll = () =>
      (polling = polling.then(async () => {
        for (const c of await store.changes.since(position)) {
          assert.ok(c.seq > position, `change ${c.seq} arrived after ${position} was applied`);
          position = c.seq;
          received.push(c.docId);
        }
      }));
    const reader = (async () => {
      while (reading) await poll();
    })();
    try {
      const logged: number[] = [];
      for (let round = 0; round < 20; round++) {
        // Each round the writers begin in order and commit in the reverse order, the reader polling meanwhile.
        const tickets = [];
        for (const [k, w] of writers.entries()) {
          await w.query('BEGIN');
          const docId = round * 10 + k + 1;
          tickets.push((await logChanges(w, [{ docId, op: 'put' }]))!);
          logged.push(docId);
        }
        for (const w of [...writers].reverse()) {
          await poll();
          await w.query('COMMIT');
        }
        // (Every other round the writers number nothing: the reader's polls must.)
        if (round % 2) for (const t of tickets) await numberChanges(store.pool, t);
      }
      reading = false;
      await reader;
      await poll();
      assert.deepEqual(
        [...received].sort((x, y) => x - y),
        [...logged].sort((x, y) => x - y),
        'every change received, once',
      );
      assert.equal(position, logged.length);
    } finally {
      reading = false;
      await reader.catch(() => undefined);
      await Promise.all(writers.map((w) => w.end()));
      await store.close();
    }
  });
});
