import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byScore, topK } from './rank.ts';

/** The reference: every candidate sorted, the first k. */
const sorted = (ids: ArrayLike<number>, scores: Float64Array, k: number) =>
  Array.from(ids, (id, i) => ({ id, score: scores[i]! }))
    .sort(byScore)
    .slice(0, Math.max(0, k));

/** A seeded generator (tests must not depend on the clock). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('topK: the best k candidates without sorting them all', () => {
  it('equals sorting every candidate, for scores in any order, with ties, and any k', () => {
    const next = random(7);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(next() * 300);
      const ids = Uint32Array.from({ length: n }, () => Math.floor(next() * 1000));
      // (Few distinct scores in some rounds: ties decided by the lower id.)
      const levels = round % 3 === 0 ? 4 : 1e9;
      const scores = Float64Array.from({ length: n }, () => Math.floor(next() * levels) / levels);
      const k = Math.floor(next() * 40);
      assert.deepEqual(topK(ids, scores, k), sorted(ids, scores, k), `round ${round}: n ${n}, k ${k}`);
      assert.deepEqual(topK(Array.from(ids), scores, k), sorted(ids, scores, k), 'ids in a plain array');
    }
  });

  it('keeps the best when every candidate beats the last (scores ascending) or none does (descending)', () => {
    const n = 5000;
    const ids = Uint32Array.from({ length: n }, (_, i) => i);
    const ascending = Float64Array.from({ length: n }, (_, i) => i);
    const descending = Float64Array.from({ length: n }, (_, i) => n - i);
    assert.deepEqual(topK(ids, ascending, 3), [
      { id: 4999, score: 4999 },
      { id: 4998, score: 4998 },
      { id: 4997, score: 4997 },
    ]);
    assert.deepEqual(topK(ids, descending, 2), [
      { id: 0, score: 5000 },
      { id: 1, score: 4999 },
    ]);
  });

  it('returns every candidate when k is larger, and none when k is 0', () => {
    const scores = Float64Array.of(1, 3, 2);
    assert.deepEqual(
      topK([10, 11, 12], scores, 10).map((r) => r.id),
      [11, 12, 10],
    );
    assert.deepEqual(topK([10, 11, 12], scores, 0), []);
    assert.deepEqual(topK([], new Float64Array(0), 5), []);
  });
});
