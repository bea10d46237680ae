import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { UNSPACED } from './language/segment.ts';
import { cjkWords, currentStemming, fold, MAX_TOKEN_LENGTH, setStemming, tokenize, tokenizeWithOffsets, stem } from './tokenize.ts';

/** The definition the fast scanner must match exactly: the Unicode regular expression, folded. */
function reference(text: string): { term: string; start: number; end: number }[] {
  const out: { term: string; start: number; end: number }[] = [];
  const push = (word: string, start: number) => {
    const term = fold(word);
    if (term && term.length <= MAX_TOKEN_LENGTH) out.push({ term, start, end: start + word.length });
  };
  for (const m of text.matchAll(/[\p{L}\p{N}][\p{L}\p{N}\p{M}]*/gu)) {
    // A word holding CJK or Thai characters is split by the segmenter.
    if (UNSPACED.test(m[0])) for (const s of cjkWords(m[0])) push(s.segment, m.index + s.index);
    else push(m[0], m.index);
  }
  return out;
}

// Pieces that meet at every kind of boundary: ASCII words and punctuation, accented letters
// precomposed and decomposed, superscripts, CJK, letters outside the BMP (surrogate pairs), emoji,
// Arabic digits, ß, the Turkish dotted I, lone surrogates and a long run.
const PIECES = [
  'a',
  'Z',
  '9',
  'max_wal_size',
  ' ',
  '\n',
  '-',
  '.',
  'é',
  'e\u0301',
  '\u0301',
  'x²',
  '²',
  'Straße',
  'İstanbul',
  '東京都',
  '𝐀𝐁',
  '😀',
  '١٢٣',
  'ÉCOLE',
  'naïve',
  '\ud800',
  '\udc00',
  'A'.repeat(70),
  'b'.repeat(64),
  'Ω',
  'ﬁ',
];

/** A small deterministic generator (the test must be reproducible). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('tokenize with stemming (the default)', () => {
  it('reduces English words to their Porter stems, in documents and queries alike', () => {
    assert.equal(currentStemming(), 'language');
    assert.deepEqual(tokenize('Indexes on Expressions'), ['index', 'on', 'express']);
    assert.deepEqual(tokenize('index expression'), ['index', 'express']);
    assert.deepEqual(
      tokenizeWithOffsets('Running').map((t) => t.term),
      ['run'],
    );
  });

  it('leaves alone what is not an English word: digits, identifiers with digits, other scripts', () => {
    assert.deepEqual(tokenize('utf8mb4 15712 東京 naïve'), ['utf8mb4', '15712', '東京', 'naiv']);
  });
});

describe('tokenize', () => {
  // The scanner against the regular expression: words as written.
  before(() => setStemming('none'));
  after(() => setStemming('language'));

  it('tokenizes Unicode letters and digits, folding case and diacritics', () => {
    assert.deepEqual(tokenize('Straße, ÉCOLE! max_wal_size 15712 naïve'), ['strasse', 'ecole', 'max', 'wal', 'size', '15712', 'naive']);
    assert.deepEqual(tokenize('東京 x² e\u0301te 𝐀b'), ['東京', 'x2', 'ete', 'ab']);
  });

  it('splits Chinese and Japanese text into words', () => {
    const ja = tokenize('東京都に住んでいます');
    assert.deepEqual(ja.slice(0, 3), ['東京', '都', 'に'], ja.join(' '));
    assert.deepEqual(tokenize('我喜欢搜索引擎'), ['我', '喜欢', '搜索', '引擎']);
  });

  it('drops tokens longer than the limit', () => {
    assert.deepEqual(tokenize(`${'a'.repeat(MAX_TOKEN_LENGTH)} ${'b'.repeat(MAX_TOKEN_LENGTH + 1)} c`), ['a'.repeat(MAX_TOKEN_LENGTH), 'c']);
  });

  it('gives exactly what the regular expression gives, with offsets, on 5,000 generated strings', () => {
    const next = random(42);
    for (let n = 0; n < 5000; n++) {
      const parts = Array.from({ length: 1 + Math.floor(next() * 12) }, () => PIECES[Math.floor(next() * PIECES.length)]!);
      const text = parts.join('');
      assert.deepEqual(tokenizeWithOffsets(text), reference(text), JSON.stringify(text));
      assert.deepEqual(
        tokenize(text),
        reference(text).map((t) => t.term),
        JSON.stringify(text),
      );
    }
  });

  it('gives exactly what the regular expression gives on every code point of the BMP', () => {
    const all = Array.from({ length: 0x10000 }, (_, c) => String.fromCharCode(c)).join('');
    for (let i = 0; i < all.length; i += 4096) {
      const chunk = all.slice(i, i + 4096);
      assert.deepEqual(tokenizeWithOffsets(chunk), reference(chunk));
    }
  });
});

describe('stem (locate.ts skips words that cannot match)', () => {
  it('rests on Porter keeping a word\u2019s first letter, and its second but for y → i: true of 50,000 random words and the tricky ones', () => {
    const next = random(7);
    const words = ['ies', 'ties', 'yes', 'ying', 'eed', 'ated', 'ization', 'ational', 'abilities', 'sky', 'ays', 'y', 'ee', 'sses', 'ing', 'ed', 'ate'];
    for (let n = 0; n < 50_000; n++) words.push(Array.from({ length: 1 + Math.floor(next() * 12) }, () => 'aeiouybcdlnstz'[Math.floor(next() * 14)]).join(''));
    for (const w of words) {
      const s = stem(w);
      assert.equal(s[0], w[0], w);
      // And its second, unless the stem is shorter or it is a y made an i ("ays" → "ai").
      if (s.length > 1) assert.ok(s[1] === w[1] || (w[1] === 'y' && s[1] === 'i'), w);
    }
  });
});
