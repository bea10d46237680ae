import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance } from './edit-distance.ts';

describe('editDistance', () => {
  it('counts insertions, deletions, substitutions and adjacent transpositions as one edit each', () => {
    const table: [string, string, number][] = [
      ['', '', 0],
      ['kitten', 'kitten', 0],
      ['kitten', 'sitten', 1],
      ['kitten', 'kittens', 1],
      ['kitten', 'kiten', 1],
      ['recieve', 'receive', 1],
      ['vacum', 'vacuum', 1],
      ['kitten', 'sitting', 3],
      ['ca', 'abc', 3],
      ['', 'abc', 3],
    ];
    for (const [a, b, d] of table) {
      assert.equal(editDistance(a, b), d, `${a} → ${b}`);
      assert.equal(editDistance(b, a), d, `${b} → ${a} (symmetric)`);
    }
  });

  it('stops at the limit: limit + 1 as soon as the distance is known to exceed it', () => {
    assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
    assert.equal(editDistance('short', 'a much longer word', 2), 3);
    assert.equal(editDistance('vacum', 'vacuum', 1), 1);
    assert.equal(editDistance('kitten', 'sitting', 3), 3);
  });
});
