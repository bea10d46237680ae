import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BatchedReads } from './batched-reads.ts';

/** A store of squares that records the calls it answered. */
function squares(options: { missing?: number; failMany?: boolean } = {}) {
  const calls: { many: number[][]; one: number[] } = { many: [], one: [] };
  const reads = new BatchedReads<number, number>(
    async (keys) => {
      calls.many.push([...keys]);
      if (options.failMany) throw new Error('the batch failed');
      return new Map(keys.filter((k) => k !== options.missing).map((k) => [k, k * k]));
    },
    async (key) => {
      calls.one.push(key);
      return key * key;
    },
    4,
  );
  return { reads, calls };
}

describe('BatchedReads', () => {
  it('answers the keys asked for in one turn with one read of them all, in calls of at most maxKeys', async () => {
    const { reads, calls } = squares();
    const answers = await Promise.all([1, 2, 3, 2, 4, 5, 6].map((k) => reads.get(k)));
    assert.deepEqual(answers, [1, 4, 9, 4, 16, 25, 36]);
    // (2 asked twice: read once; 6 distinct keys, 4 a call.)
    assert.deepEqual(calls.many, [
      [1, 2, 3, 4],
      [5, 6],
    ]);
    assert.deepEqual(calls.one, []);
  });

  it('reads a key asked alone by itself, and keys asked on later turns in reads of their own', async () => {
    const { reads, calls } = squares();
    assert.equal(await reads.get(7), 49);
    const later = await Promise.all([reads.get(8), reads.get(9)]);
    assert.deepEqual(later, [64, 81]);
    assert.deepEqual(calls.one, [7]);
    assert.deepEqual(calls.many, [[8, 9]]);
  });

  it('reads by itself a key the batch did not answer', async () => {
    const { reads, calls } = squares({ missing: 3 });
    assert.deepEqual(await Promise.all([reads.get(2), reads.get(3)]), [4, 9]);
    assert.deepEqual(calls.one, [3]);
  });

  it('fails every caller of a batch that fails, and reads the next turn afresh', async () => {
    const { reads } = squares({ failMany: true });
    const results = await Promise.allSettled([reads.get(1), reads.get(2), reads.get(2)]);
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value)),
      ['the batch failed', 'the batch failed', 'the batch failed'],
    );
    assert.equal(await reads.get(5), 25, 'a key alone is read by itself');
  });
});
