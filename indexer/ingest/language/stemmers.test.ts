import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { words } from '../tokenize.ts';
import { setStemming, stemmerByKey, stemmerFor } from './stemmers.ts';

/** A word's stem as a page in `lang` has it (folded first, as the tokenizer does). */
const stem = (lang: string, word: string) => stemmerFor(lang).stem(words(word)[0]!);

/** A small deterministic generator (the test must be reproducible). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

describe('stemmers by language', () => {
  after(() => setStemming('language'));

  it('picks the stemmer of a page\u2019s language tag: Snowball\u2019s, Porter for English and unknown, none for others', () => {
    assert.equal(stemmerFor('de-AT').key, 'de');
    assert.equal(stemmerFor('fr-x-detected').key, 'fr');
    assert.equal(stemmerFor('PT-br').key, 'pt');
    assert.equal(stemmerFor('nb').key, 'no', 'Bokmål is Norwegian');
    for (const tag of ['en-US', '', undefined, 'x']) assert.equal(stemmerFor(tag).key, 'en', String(tag));
    for (const tag of ['ja', 'zh-x-detected', 'pl']) assert.equal(stemmerFor(tag).key, 'none', tag);
    assert.equal(stemmerFor('ja').stem('indexes'), 'indexes', 'no stemmer: words as written');
  });

  it('conflates the forms Snowball conflates in each language', () => {
    const pairs: [string, string, string][] = [
      ['de', 'Häuser', 'Haus'],
      ['de', 'Gärten', 'Garten'],
      ['fr', 'chevaux', 'cheval'],
      ['fr', 'carottes', 'carotte'],
      ['es', 'niños', 'niño'],
      ['it', 'ricette', 'ricetta'],
      ['pt', 'crianças', 'criança'],
      ['nl', 'katten', 'kat'],
      ['sv', 'bilarna', 'bil'],
      ['ru', 'книгами', 'книга'],
      ['ru', 'Новый', 'новая'],
      ['da', 'husene', 'hus'],
      ['en', 'indexes', 'index'],
    ];
    for (const [lang, a, b] of pairs) assert.equal(stem(lang, a), stem(lang, b), `${lang}: ${a} / ${b}`);
    assert.notEqual(stem('en', 'Häuser'), stem('en', 'Haus'), 'English\u2019s stemmer does not know German plurals');
  });

  it('follows index.stemming: every page as English, or no stemming', () => {
    setStemming('english');
    assert.equal(stemmerFor('de').key, 'en');
    setStemming('none');
    assert.equal(stemmerFor('de').stem('hauser'), 'hauser');
    setStemming('language');
    assert.equal(stemmerFor('de').stem('hauser'), 'haus');
  });

  it('keeps a word\u2019s first two letters, which locate.ts relies on: 50,000 random words per language', () => {
    const next = random(11);
    for (const key of ['da', 'de', 'es', 'fr', 'hu', 'it', 'nl', 'no', 'pt', 'ro', 'ru', 'sv']) {
      const alphabet = key === 'ru' ? 'аеиоуыэюяйбвгдклмнпрстьъшщчж' : 'aeiouybcdlnstzghkmqrw';
      const { stem: s } = stemmerByKey(key)!;
      for (let n = 0; n < 50_000; n++) {
        const w = Array.from({ length: 1 + Math.floor(next() * 12) }, () => alphabet[Math.floor(next() * alphabet.length)]).join('');
        const x = s(w);
        assert.ok(x[0] === w[0] && (x.length < 2 || x[1] === w[1]), `${key}: ${w} → ${x}`);
      }
    }
  });
});

describe('the stem cache', () => {
  /** Stems the last words of a 40 MB page; long words (13 characters and more) are views of the text in V8. */
  const stemLongWordsOfAPage = () => {
    const text = `${'filler '.repeat(6_000_000)}zyxwvutsrqponmlkjing quuxificationally`;
    for (const w of words(text).slice(-2)) stemmerFor('en').stem(w);
  };

  it('keeps no page alive through a word sliced from its text', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const used = () => {
      gc();
      return getHeapStatistics().used_heap_size;
    };
    const before = used();
    stemLongWordsOfAPage();
    // (V8 keeps the subject of the last regular expression run — RegExp.input — whatever it was.)
    /./.test('another subject');
    const grown = used() - before;
    assert.ok(grown < 8_000_000, `the heap grew by ${(grown / 1e6).toFixed(1)} MB after the page was dropped`);
    assert.equal(stemmerFor('en').stem('quuxificationally'), 'quuxification', 'the cached stem');
  });
});
