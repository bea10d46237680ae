import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fold, foldedDiacritics } from './fold.ts';
import { UNSPACED, unspacedWords } from './segment.ts';

describe('fold', () => {
  it('folds case, compatibility forms and the diacritics of Latin, Greek and Cyrillic letters', () => {
    const cases: [string, string, boolean][] = [
      ['Résumé', 'resume', true],
      ['resume', 'resume', false],
      ['Straße', 'strasse', true],
      ['ÉCOLE', 'ecole', true],
      ['e\u0301cole', 'ecole', true],
      ['Ἀθῆναι', 'αθηναι', true],
      ['ёлка', 'елка', true],
      ['ﬁle', 'file', false],
      ['Ｐｏｓｔｇｒｅｓ', 'postgres', false],
      ['𝐀b', 'ab', false],
    ];
    for (const [word, folded, marked] of cases) {
      assert.equal(fold(word), folded, word);
      assert.equal(foldedDiacritics(), marked, `${word}: a diacritic folded away?`);
    }
  });

  it('keeps й, a letter of its own (the Russian stemmer reads it)', () => {
    assert.equal(fold('Новый'), 'новый');
    assert.equal(foldedDiacritics(), false);
    assert.equal(fold('ЙОД'), 'йод');
  });

  it('keeps the marks that are part of other scripts\u2019 letters: dakuten, Thai vowels and tones, Indic vowel signs', () => {
    assert.equal(fold('が'), 'が', 'が is not か');
    assert.equal(fold('ｶﾞｽ'), 'ガス', 'half-width kana made whole');
    assert.equal(fold('ที่'), 'ที่');
    assert.equal(fold('हिन्दी'), 'हिन्दी');
    assert.equal(foldedDiacritics(), false);
  });
});

describe('segmentation of unspaced scripts', () => {
  const segments = (text: string) => unspacedWords(text).map((s) => s.segment);

  it('splits Chinese, Japanese and Thai sentences into words', () => {
    assert.ok(UNSPACED.test('ภาษา') && UNSPACED.test('東京') && UNSPACED.test('ひらがな') && !UNSPACED.test('Straße'));
    assert.deepEqual(segments('中国历史和文化'), ['中国', '历史', '和', '文化']);
    assert.deepEqual(segments('東京の図書館では'), ['東京', 'の', '図書館', 'では']);
    assert.deepEqual(segments('เรียนภาษาไทยที่มหาวิทยาลัย'), ['เรียน', 'ภาษา', 'ไทย', 'ที่', 'มหาวิทยาลัย']);
  });
});
