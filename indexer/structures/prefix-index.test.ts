import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PrefixIndex } from './prefix-index.ts';

/** A dictionary of terms with weights, added to a prefix index in the order given. */
function indexOf(terms: readonly [string, number][]) {
  const index = new PrefixIndex((id) => terms[id]![0]);
  terms.forEach((_, id) => {
    index.add(id);
  });
  const weight = (id: number) => terms[id]![1];
  const complete = (prefix: string, limit = 50, shortest = 2) => index.complete(prefix, weight, limit, shortest).map((id) => terms[id]![0]);
  return { index, complete };
}

describe('PrefixIndex', () => {
  it('completes a prefix with the terms it begins, the heaviest first, whatever order they came in', () => {
    const { complete } = indexOf([
      ['vacuum', 50],
      ['value', 30],
      ['vacuumdb', 4],
      ['vacuumlo', 2],
      ['valid', 40],
      ['vac', 1],
      ['zebra', 9],
    ]);
    assert.deepEqual(complete('vacu'), ['vacuum', 'vacuumdb', 'vacuumlo']);
    assert.deepEqual(complete('vac'), ['vacuum', 'vacuumdb', 'vacuumlo', 'vac'], 'the prefix itself, when it is a term');
    assert.deepEqual(complete('va'), ['vacuum', 'valid', 'value', 'vacuumdb', 'vacuumlo', 'vac'], 'two characters: across the buckets under them');
    assert.deepEqual(complete('va', 2), ['vacuum', 'valid'], 'capped');
    assert.deepEqual(complete('vacuumx'), []);
    assert.deepEqual(complete('v'), [], 'one character completes nothing');
    assert.deepEqual(complete('v', 3, 1), ['vacuum', 'valid', 'value'], '... unless asked: across every bucket under it');
    assert.deepEqual(complete('z', 50, 1), ['zebra']);
  });

  it('skips terms of weight 0 (no document holds them any more), and breaks ties shorter first', () => {
    const { complete } = indexOf([
      ['table', 0],
      ['tablespace', 5],
      ['tables', 5],
      ['tab', 5],
    ]);
    assert.deepEqual(complete('tab'), ['tab', 'tables', 'tablespace']);
  });

  it('takes terms added one by one among thousands, placed in order (an incremental dictionary)', () => {
    const terms: [string, number][] = [];
    let s = 3;
    const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
    const seen = new Set<string>();
    while (terms.length < 5000) {
      const w = Array.from({ length: 2 + Math.floor(rnd() * 8) }, () => 'abcde'[Math.floor(rnd() * 5)]).join('');
      if (seen.has(w)) continue;
      seen.add(w);
      terms.push([w, 1 + Math.floor(rnd() * 100)]);
    }
    const { complete } = indexOf(terms);
    for (const prefix of ['ab', 'abc', 'edca', 'ddddd']) {
      // Against a scan of all terms: the same set, in weight order.
      const naive = terms
        .filter(([t]) => t.startsWith(prefix))
        .sort((a, b) => b[1] - a[1] || a[0].length - b[0].length || (a[0] < b[0] ? -1 : 1))
        .slice(0, 20)
        .map(([t]) => t);
      assert.deepEqual(complete(prefix, 20), naive, prefix);
    }
  });
});
