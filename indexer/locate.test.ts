import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adjacentPairs, hasPhrase, locate } from './locate.ts';
import { tokenize, tokenizeWithOffsets } from './tokenize.ts';

// English words in several forms (so stems and skipped words meet), other scripts, digits,
// upper case, a word over the token length limit, punctuation.
const PIECES = ['Connections', 'connect', 'pooled', 'pool', 'POOLING', 'the', 'tables', 'Table', 'créé', 'crème', 'Straße', '東京都', 'x²', '15712', 'utf8mb4', 'A'.repeat(70), 'yes', 'ties', 'sky', 'ays', 'ayed', 'ies', 'i'];
const SEPARATORS = [' ', '\n', ', ', '-', '. ', ''];

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
}

describe('locate (where a query\u2019s terms are in a text)', () => {
  it('finds exactly what tokenizing the whole text and filtering finds, on 3,000 generated texts', () => {
    const next = random(11);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const vocabulary = PIECES.flatMap((p) => tokenize(p));
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 30) }, () => pick(PIECES) + pick(SEPARATORS)).join('');
      const all = tokenizeWithOffsets(text);
      // Terms of the text, and one it does not hold.
      const terms = [...new Set([...Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(vocabulary)), 'absent'])];
      const o = locate(text, terms);
      assert.equal(o.tokens, all.length, text);
      const expected = all.flatMap((t, i) => (terms.includes(t.term) ? [{ i, term: t.term }] : []));
      assert.deepEqual([...o.at].map((i, k) => ({ i, term: o.terms[k] })), expected, `${text} / ${terms.join(' ')}`);
      assert.deepEqual([...o.starts], all.map((t) => t.start));
      assert.deepEqual([...o.ends], all.map((t) => t.end));
    }
  });

  it('hasPhrase needs the words adjacent and in order', () => {
    const o = locate('Create the user; user create; a create user b', tokenize('create user'));
    assert.ok(hasPhrase(o, ['user', 'creat']));
    assert.ok(hasPhrase(o, ['creat', 'user']), 'the second occurrence of the pair');
    assert.ok(!hasPhrase(locate('create the user', ['creat', 'user']), ['creat', 'user']), 'a word between');
    assert.ok(!hasPhrase(locate('user create', ['creat', 'user']), ['creat', 'user']), 'order');
    assert.ok(hasPhrase(locate('a b', ['b']), ['b']), 'a phrase of one word');
    assert.ok(hasPhrase(locate('go go gadget', ['go', 'gadget']), ['go', 'go', 'gadget']), 'a repeated word');
    assert.ok(!hasPhrase(locate('go gadget', ['go', 'gadget']), ['go', 'go', 'gadget']));
  });

  it('adjacentPairs counts each pair found side by side once', () => {
    const pairs = new Set(['alter tabl', 'tabl drop']);
    assert.equal(adjacentPairs(locate('alter table add; alter table', ['alter', 'tabl', 'drop']), pairs), 1);
    assert.equal(adjacentPairs(locate('alter table drop', ['alter', 'tabl', 'drop']), pairs), 2);
    assert.equal(adjacentPairs(locate('drop table alter', ['alter', 'tabl', 'drop']), pairs), 0);
  });
});
