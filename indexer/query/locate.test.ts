import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adjacentPairs, hasPhrase, locate, phraseTest, sparseLocator } from './locate.ts';
import { tokenize, tokenizeWithOffsets } from '../ingest/tokenize.ts';

// English words in several forms (so stems and skipped words meet), other scripts, digits,
// upper case, a word over the token length limit, punctuation.
const PIECES = [
  'Connections',
  'connect',
  'pooled',
  'pool',
  'POOLING',
  'the',
  'tables',
  'Table',
  'créé',
  'crème',
  'Straße',
  '東京都',
  'x²',
  '15712',
  'utf8mb4',
  'A'.repeat(70),
  'yes',
  'ties',
  'sky',
  'ays',
  'ayed',
  'ies',
  'i',
];
const SEPARATORS = [' ', '\n', ', ', '-', '. ', ''];

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
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
      assert.deepEqual(
        [...o.at].map((i, k) => ({ i, term: o.terms[k] })),
        expected,
        `${text} / ${terms.join(' ')}`,
      );
      assert.deepEqual(
        [...o.starts],
        all.map((t) => t.start),
      );
      assert.deepEqual(
        [...o.ends],
        all.map((t) => t.end),
      );
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

// ASCII words in several forms, separators of every kind (underscore, non-ASCII punctuation,
// emoji), and now and then what the quick check must leave to locate: a non-ASCII letter, an
// overlong run.
const WORDS = [
  'Connections',
  'connect',
  'pooled',
  'pool',
  'POOLING',
  'the',
  'tables',
  'Table',
  'yes',
  'ties',
  'ays',
  'ayed',
  'ies',
  'i',
  'x2',
  '15712',
  'Sky',
  'skies',
];
const GAPS = [' ', '\n', ', ', '_', ' \u00a0', ' \u201c', '\u00a9 ', ' \ud83d\ude00 ', '. '];
const QUICK_RARE = ['cr\u00e8me', 'A'.repeat(70), '\u6771\u4eac'];

describe('phraseTest (the quick phrase check of ASCII text)', () => {
  const RARE = QUICK_RARE;

  it('answers as locate does, on 5,000 generated texts, and answers most of them itself', () => {
    const next = random(5);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const vocabulary = WORDS.flatMap((w) => tokenize(w));
    let answered = 0;
    let found = 0;
    for (let n = 0; n < 5000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 25) }, () => (next() < 0.03 ? pick(RARE) : pick(WORDS)) + pick(GAPS)).join('');
      const phrase = Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(vocabulary));
      const exact = hasPhrase(locate(text, phrase), phrase);
      const quick = phraseTest(phrase)(text);
      if (exact) found++;
      if (quick !== undefined) {
        answered++;
        assert.equal(quick, exact, `${JSON.stringify(text)} / ${phrase.join(' ')}`);
      } else
        assert.ok(
          RARE.some((r) => text.includes(r)),
          `left to locate: ${JSON.stringify(text)}`,
        );
      // An overlong run right after the phrase's first word joins it to the next one.
      if (n % 10 === 0 && phrase.length === 2) {
        // Each term spelled as a word of WORDS that tokenizes to it, when one does.
        const spelled = (term: string | undefined) => WORDS.find((w) => tokenize(w)[0] === term) ?? term;
        const joined = `x ${spelled(phrase[0])} ${'B'.repeat(70)} ${spelled(phrase[1])}`;
        assert.equal(phraseTest(phrase)(joined) ?? hasPhrase(locate(joined, phrase), phrase), true, joined);
      }
    }
    assert.ok(answered > 3000, `answered ${answered} of 5000`);
    assert.ok(found > 500 && found < 4500, `${found} of 5000 hold their phrase: both answers are tested`);
  });

  it('finds a phrase whose first word Porter changed beyond its first two letters', () => {
    assert.equal(phraseTest(tokenize('ays pool'))('Ays, pooling.'), true);
    assert.equal(phraseTest(tokenize('pool connect'))('pool the connection'), false);
    assert.equal(phraseTest(tokenize('cr\u00e8me'))('cr\u00e8me'), undefined, 'a folded term is left to locate');
  });
});

describe('sparseLocator (finding terms in a long stretch by their characters)', () => {
  // The quick phrase check's words and separators; and what it must leave to locate, a combining mark too.
  const RARE = [...QUICK_RARE, 'x\u0301'];

  it('finds where locate finds, from any starting point, on 3,000 generated texts — or leaves a stretch with non-ASCII words to it', () => {
    const next = random(17);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const vocabulary = [...WORDS.flatMap((w) => tokenize(w)), 'cr\u00e8me', 'absent'];
    let compared = 0;
    let occurrences = 0;
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 30) }, () => (next() < 0.02 ? pick(RARE) : pick(WORDS)) + pick(GAPS)).join('');
      const terms = [...new Set(Array.from({ length: 1 + Math.floor(next() * 3) }, () => pick(vocabulary)))];
      // From a token's start (or the text's), to the end or a token's end.
      const all = locate(text, terms);
      const cut = Math.floor(next() * (all.tokens + 1));
      const from = cut < all.tokens ? all.starts[cut]! : text.length;
      const sparse = sparseLocator(terms)(text, from, text.length);
      const hasNonAscii = /[^\x00-\x7f]/.test(text.slice(from).replace(/[\u00a0\u201c\u00a9\ud83d\ude00]/gu, ''));
      if (hasNonAscii) {
        assert.equal(sparse, undefined, JSON.stringify(text.slice(from)));
        continue;
      }
      assert.ok(sparse, JSON.stringify(text.slice(from)));
      const expected = [...all.at].flatMap((i, k) => (all.starts[i]! >= from ? [{ at: all.starts[i], term: all.terms[k] }] : []));
      assert.deepEqual(
        sparse.starts.map((at, k) => ({ at, term: sparse.terms[k] })),
        expected,
        `${JSON.stringify(text)} from ${from} / ${terms.join(' ')}`,
      );
      compared++;
      occurrences += expected.length;
    }
    assert.ok(compared > 1500 && occurrences > 1500, `${compared} texts, ${occurrences} occurrences compared`);
  });

  it('stops at the stretch\u2019s end and finds a word Porter changed past its first two letters', () => {
    const find = sparseLocator(tokenize('ays pool'));
    assert.deepEqual(find('Ays, pooling. pool', 0, 12), { starts: [0, 5], terms: ['ai', 'pool'] });
    assert.equal(find('pool cr\u00e8me', 0, 11), undefined);
  });
});
