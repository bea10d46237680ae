// The postings kept exact through adds, replacements, appends, partial drops and removals — made
// here from the terms the caller gives, FlexSearch keeping no register of references — and the
// same after a rebuild from vectors (a loaded snapshot).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Postings } from './postings.ts';

/** A seeded generator, so that a failure repeats. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const VOCABULARY = Array.from({ length: 60 }, (_, i) => `t${i}`);

function check(postings: Postings, model: Map<number, Set<string>>) {
  for (const term of VOCABULARY) {
    const expected = [...model]
      .filter(([, ts]) => ts.has(term))
      .map(([id]) => id)
      .sort((a, b) => a - b);
    const got = [...postings.docsWith(term, model.size + 10)].sort((a, b) => a - b);
    assert.deepEqual(got, expected, `documents holding ${term}`);
  }
}

describe('Postings', () => {
  it('holds exactly the documents of each term through replacements, appends, drops and removals', () => {
    const rnd = random(7);
    const postings = new Postings();
    const model = new Map<number, Set<string>>();
    const someTerms = () => [
      ...new Set(Array.from({ length: 1 + Math.floor(rnd() * 12) }, () => VOCABULARY[Math.floor(rnd() * (rnd() < 0.5 ? 8 : VOCABULARY.length))]!)),
    ];
    for (let step = 0; step < 3000; step++) {
      const id = Math.floor(rnd() * 80);
      const had = model.get(id);
      const op = rnd();
      if (op < 0.45) {
        const terms = someTerms();
        postings.set(id, terms, had ? [...had] : []);
        model.set(id, new Set(terms));
      } else if (op < 0.6 && had) {
        const more = someTerms().filter((t) => !had.has(t));
        postings.append(id, more);
        for (const t of more) had.add(t);
      } else if (op < 0.75 && had && had.size > 1) {
        const gone = [...had].filter(() => rnd() < 0.4).slice(0, had.size - 1);
        for (const t of gone) had.delete(t);
        postings.drop(id, gone, () => [...had]);
      } else if (had) {
        postings.remove(id, [...had]);
        model.delete(id);
      } else postings.remove(id, []); // (an id it does not hold: nothing happens)
      if (step % 250 === 0) check(postings, model);
    }
    check(postings, model);
    // A term no document holds any more answers nothing (FlexSearch 0.8.212's remove-then-search crash).
    const lonely = 'zzlonely';
    postings.set(999, [lonely], []);
    postings.remove(999, [lonely]);
    assert.deepEqual(postings.docsWith(lonely, 5), []);
  });

  it('rebuilt from vectors holds the same, and goes on being updated', () => {
    const terms = ['alpha', 'beta', 'gamma', 'delta'];
    const docs = new Map([
      [1, { termIds: Uint32Array.from([0, 1]) }],
      [2, { termIds: Uint32Array.from([1, 2, 3]) }],
      [5, { termIds: Uint32Array.from([3]) }],
    ]);
    const postings = new Postings();
    postings.rebuild(docs, terms);
    assert.deepEqual([...postings.docsWith('beta', 10)].sort(), [1, 2]);
    postings.set(2, ['alpha'], ['beta', 'gamma', 'delta']);
    postings.remove(5, ['delta']);
    assert.deepEqual([...postings.docsWith('alpha', 10)].sort(), [1, 2]);
    assert.deepEqual([...postings.docsWith('beta', 10)], [1]);
    assert.deepEqual([...postings.docsWith('delta', 10)], []);
  });
});
