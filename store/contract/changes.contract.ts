/** The contract of the change log with many readers: pruning keeps what a live reader still needs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
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

    it(
      'wakes a watcher within a second of a commit, until it stops watching',
      test(async (s) => {
        let woken = 0;
        const stop = await s.changes.watch(() => woken++);
        try {
          // (A watcher may be called spuriously, e.g. once it starts: count from here.)
          await new Promise((r) => setTimeout(r, 100));
          const before = woken;
          await puts(s, 1);
          await s.sync();
          const until = Date.now() + 1000;
          while (woken === before && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
          assert.ok(woken > before, 'woken within 1 s');
        } finally {
          await stop();
        }
        const seen = woken;
        await puts(s, 1, 1);
        await s.sync();
        await new Promise((r) => setTimeout(r, 1200));
        assert.equal(woken, seen, 'no call after stop');
      }),
    );
  });
}
