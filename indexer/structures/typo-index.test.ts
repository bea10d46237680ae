import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance } from '../../lib/edit-distance.ts';
import { TypoIndex } from './typo-index.ts';

/** A typo index over `terms` (ids: their positions), and its answers as [term, distance], sorted. */
function indexOf(terms: readonly string[]) {
  const index = new TypoIndex({ term: (id) => terms[id]! });
  terms.forEach((t, id) => {
    index.add(id, t);
  });
  const near = (word: string, max: number) =>
    index
      .near(word, max)
      .map((n) => [terms[n.id]!, n.distance] as const)
      .sort((a, b) => a[1] - b[1] || (a[0] < b[0] ? -1 : 1));
  return { index, near };
}

describe('TypoIndex (symmetric delete)', () => {
  it('finds the terms one edit away: substitution, deletion, insertion, transposition', () => {
    const { near } = indexOf(['vacuum', 'vacuums', 'analyze', 'serve', 'server', 'table', 'cable']);
    assert.deepEqual(near('vacumm', 1), [['vacuum', 1]], 'substitution');
    assert.deepEqual(near('vacum', 1), [['vacuum', 1]], 'a letter left out');
    assert.deepEqual(near('vaccuum', 1), [['vacuum', 1]], 'a letter too many');
    assert.deepEqual(near('vacuun', 1), [['vacuum', 1]]);
    assert.deepEqual(near('anaylze', 1), [['analyze', 1]], 'transposition');
    assert.deepEqual(near('tabel', 1), [['table', 1]]);
    assert.deepEqual(near('xable', 1), [
      ['cable', 1],
      ['table', 1],
    ]);
    assert.deepEqual(
      near('vacuum', 1),
      [
        ['vacuum', 0],
        ['vacuums', 1],
      ],
      'the word itself, at 0',
    );
  });

  it('finds the terms two edits away only when asked', () => {
    const { near } = indexOf(['replication', 'replica', 'publication']);
    assert.deepEqual(near('replcation', 1), [['replication', 1]]);
    assert.deepEqual(near('replcatoin', 1), []);
    assert.deepEqual(near('replcatoin', 2), [['replication', 2]], 'a deletion and a transposition');
    assert.deepEqual(near('repplicatiom', 2), [['replication', 2]], 'an insertion and a substitution');
    assert.deepEqual(near('rplicaton', 2), [['replication', 2]], 'two letters left out');
  });

  it('answers like a scan of the vocabulary with the real distance, as terms keep coming (the table grows)', () => {
    const terms: string[] = [];
    const seen = new Set<string>();
    let s = 11;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const index = new TypoIndex({ term: (id) => terms[id]! });
    const probes = ['abcab', 'bacca', 'ccabbac', 'aabbccaa'];
    for (let round = 0; round < 4; round++) {
      // 3,000 more terms each round: the table grows (moved a few slots at a time) while answering.
      while (terms.length < 3000 * (round + 1)) {
        const w = Array.from({ length: 3 + Math.floor(rnd() * 7) }, () => 'abcd'[Math.floor(rnd() * 4)]).join('');
        if (seen.has(w)) continue;
        seen.add(w);
        index.add(terms.length, w);
        terms.push(w);
      }
      for (const p of probes) {
        for (const max of [1, 2]) {
          const got = index
            .near(p, max)
            .map((n) => terms[n.id])
            .sort();
          const naive = terms.filter((t) => editDistance(p, t, max) <= max).sort();
          assert.deepEqual(got, naive, `${p} within ${max}, ${terms.length} terms`);
        }
      }
    }
    assert.equal(index.size().terms, 12_000);
  });

  it('holds a term once, however often it is added', () => {
    const terms = ['vacuum'];
    const index = new TypoIndex({ term: (id) => terms[id]! });
    index.add(0, 'vacuum');
    const { entries } = index.size();
    index.add(0, 'vacuum');
    assert.equal(index.size().entries, entries);
    assert.ok(index.has(0) && !index.has(1));
  });
});
