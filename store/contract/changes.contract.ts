/** The contract of the change log with many readers: pruning keeps what a live reader still needs. */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import { onEvent, waitFor } from '../../testweb/wait.ts';
import type { Store } from '../store.ts';
import { doc, T0, taken, withStore, type StoreFactory } from './harness.ts';

/** Stores `n` documents (one URL each); returns the sequence numbers of their changes. */
async function puts(s: Store, n: number, from = 0): Promise<number[]> {
  const seqs: number[] = [];
  for (let i = from; i < from + n; i++) {
    const q = await taken(s, `http://e.org/${i}`);
    seqs.push(await s.documents.put(doc(q.id, `text ${i}`)));
  }
  return seqs;
}

const kept = async (s: Store) => (await s.changes.since(0)).map((c) => c.seq);

export function changeLogContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('the change log and its readers', () => {
    it(
      'prunes only what every reader holds, and says how far it pruned',
      test(async (s) => {
        const seqs = await puts(s, 5);
        assert.equal(await s.changes.prunedThrough(), 0);
        assert.equal(await s.changes.hold('fast', seqs[4]!, T0), 0);
        assert.equal(await s.changes.hold('slow', seqs[1]!, T0), 0);
        assert.equal(await s.changes.prune(seqs[4]!, T0), seqs[1], 'the slow reader still needs the changes after its own');
        assert.deepEqual(await kept(s), seqs.slice(2));
        await s.changes.hold('slow', seqs[3]!, T0 + 10);
        assert.equal(await s.changes.prune(seqs[4]!, T0), seqs[3]);
        assert.deepEqual(await kept(s), seqs.slice(4));
        assert.equal(await s.changes.prunedThrough(), seqs[3]);
      }),
    );

    it(
      'forgets a reader not heard from since liveSince: the log is pruned past it, and its next hold tells it so',
      test(async (s) => {
        const seqs = await puts(s, 3);
        await s.changes.hold('away', seqs[0]!, T0);
        await s.changes.hold('here', seqs[2]!, T0 + 1000);
        assert.equal(await s.changes.prune(seqs[2]!, T0 + 500), seqs[2], '"away" was last heard from before T0 + 500');
        assert.deepEqual(await kept(s), []);
        assert.equal(await s.changes.hold('away', seqs[0]!, T0 + 2000), seqs[2], 'changes it needs are gone: it must rebuild');
        assert.equal(await s.changes.lastSeq(), seqs[2], 'pruning every change keeps the last sequence');
      }),
    );

    it(
      'never prunes past the seq asked for, and a prune with no reader prunes that far',
      test(async (s) => {
        const seqs = await puts(s, 3);
        assert.equal(await s.changes.prune(seqs[0]!), seqs[0]);
        assert.equal(await s.changes.prune(seqs[0]! - 1), seqs[0], 'pruned through never goes back');
        assert.deepEqual(await kept(s), seqs.slice(1));
      }),
    );

    it('has an identity that a reopening keeps and another store does not share', async () => {
      const a = await factory.fresh();
      const b = await factory.fresh();
      try {
        const id = await a.changes.identity();
        assert.notEqual(id, await b.changes.identity());
        await a.close();
        const again = await factory.reopen(a);
        try {
          assert.equal(await again.changes.identity(), id);
        } finally {
          await again.close();
        }
      } finally {
        await b.close();
      }
    });

    it('wakes a watcher within a second of a commit, until it stops watching (on a fake clock: by its timer, or told by the server)', async (t) => {
      // The watchers' intervals on a fake clock: a backend that looks for changes every while
      // (SQLite) looks when the test moves the clock on; one the server tells (PostgreSQL's NOTIFY)
      // wakes by itself, since its safety poll (every 5 s) never comes within the second ticked.
      t.mock.timers.enable({ apis: ['setInterval'] });
      const s = await factory.fresh();
      const calls = new EventEmitter();
      const counts = { first: 0, second: 0 };
      const watcher = (name: keyof typeof counts) => () => {
        counts[name]++;
        calls.emit('call');
      };
      /** Commits a change, moves the clock on a second, and waits for the watcher `name` to be woken. */
      const commitAndWake = async (name: keyof typeof counts, from: number) => {
        const before = counts[name];
        await puts(s, 1, from);
        await s.sync();
        t.mock.timers.tick(1000);
        await waitFor(() => counts[name] > before, onEvent(calls, 'call'), { what: `the ${name} watcher to be woken by the commit` });
      };
      try {
        // (A watcher may be called once it starts: counted from when watch() resolves.)
        const stop = await s.changes.watch(watcher('first'));
        try {
          await commitAndWake('first', 0);
        } finally {
          await stop();
        }
        const seen = counts.first;
        // No call after stop: proved by a second watcher, woken by the next commit as the first would have been.
        const stopSecond = await s.changes.watch(watcher('second'));
        try {
          await commitAndWake('second', 1);
        } finally {
          await stopSecond();
        }
        t.mock.timers.tick(10_000);
        assert.equal(counts.first, seen, 'no call after stop');
      } finally {
        await s.close();
      }
    });
  });
}
