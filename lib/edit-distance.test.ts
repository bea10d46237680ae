import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance, oneEditAway } from './edit-distance.ts';

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

describe('oneEditAway', () => {
  it('makes every string one deletion, transposition, substitution or insertion away, each once', () => {
    const got = oneEditAway('abc', 'ax');
    for (const s of got) assert.equal(editDistance('abc', s), 1, s);
    assert.equal(new Set(got).size, got.length, 'distinct');
    assert.ok(!got.includes('abc'));
    for (const s of ['bc', 'ac', 'ab', 'bac', 'acb', 'xbc', 'axc', 'abx', 'xabc', 'aabc', 'abxc', 'abcx']) assert.ok(got.includes(s), s);
  });

  it('leaves the start of the word as typed when asked', () => {
    const got = oneEditAway('abcd', 'z', 2);
    assert.ok(
      got.every((s) => s.startsWith('ab')),
      got.join(' '),
    );
    assert.ok(got.includes('abdc') && got.includes('abc') && got.includes('abzd') && got.includes('abcdz'));
  });
});
