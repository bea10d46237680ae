import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../ingest/analyze.ts';
import { FIELDS } from '../ingest/fields.ts';
import { IndexContents } from './index-contents.ts';
import { tfAt } from './vector.ts';

const doc = (id: number, text: string, title = 'T') => ({ id, url: `http://e.org/${id}`, title, description: '', headings: [], text });
const BODY = FIELDS.indexOf('body');

describe('IndexContents', () => {
  it('stores each document as a vector sorted by term id, with the frequencies of each term', () => {
    const s = new IndexContents();
    // Interned in this order, so the second document's terms arrive out of id order.
    s.add(1, analyze(doc(1, 'zeta eta theta iota kappa')));
    const words = ['kappa', 'alpha', 'zeta', 'beta', 'iota', 'gamma', 'eta'];
    const text = words
      .map((w, i) =>
        Array(i + 1)
          .fill(w)
          .join(' '),
      )
      .join(' ');
    const v = s.add(2, analyze(doc(2, text)));
    assert.deepEqual(
      [...v.termIds],
      [...v.termIds].sort((a, b) => a - b),
    );
    words.forEach((w, i) => {
      const at = v.termIds.indexOf(s.dictionary.termId(w)!);
      assert.equal(tfAt(v, at, BODY), i + 1, w);
      assert.ok(s.vectors.contains(2, s.dictionary.termId(w)!), w);
    });
    assert.ok(!s.vectors.contains(2, s.dictionary.termId('theta')!));
    assert.equal(s.dictionary.docFrequency('zeta'), 2);
    assert.equal(s.dictionary.docFrequency('alpha'), 1);
  });

  it('keeps document frequencies right through updates and removals', () => {
    const s = new IndexContents();
    s.add(1, analyze(doc(1, 'one two')));
    s.add(2, analyze(doc(2, 'two three')));
    s.add(1, analyze(doc(1, 'three four')));
    assert.deepEqual(
      ['one', 'two', 'three', 'four'].map((t) => s.dictionary.docFrequency(t)),
      [0, 1, 2, 1],
    );
    s.remove(2);
    assert.deepEqual(
      ['one', 'two', 'three', 'four'].map((t) => s.dictionary.docFrequency(t)),
      [0, 0, 1, 1],
    );
    assert.equal(s.documentCount, 1);
  });
});

describe('analyze', () => {
  it('indexes at most maxTerms distinct terms, still counting every token in the field length', () => {
    const a = analyze(doc(1, 'a b c d e a', ''), 5);
    // Fields in order: the URL's words (e, org, 1), then the body's (a, b; c, d and e are not new).
    assert.deepEqual(a.terms, ['e', 'org', '1', 'a', 'b']);
    assert.equal(a.lengths[BODY], 6);
  });
});

describe('withField', () => {
  it('replaces one field\u2019s counts, adds the terms that are new, and keeps the rest', async () => {
    const { withField } = await import('../ingest/analyze.ts');
    const ANCHOR = FIELDS.indexOf('anchor');
    const a = analyze(doc(1, 'alpha beta beta', 'Title'));
    const b = withField(a, ANCHOR, ['beta', 'gamma', 'gamma']);
    assert.deepEqual(b.terms, [...a.terms, 'gamma']);
    const row = (t: string) => Array.from(b.tf.subarray(b.terms.indexOf(t) * FIELDS.length, b.terms.indexOf(t) * FIELDS.length + FIELDS.length));
    assert.equal(row('beta')[BODY], 2);
    assert.equal(row('beta')[ANCHOR], 1);
    assert.equal(row('gamma')[ANCHOR], 2);
    assert.equal(row('alpha')[ANCHOR], 0);
    assert.equal(b.lengths[ANCHOR], 3);
    assert.equal(b.lengths[BODY], a.lengths[BODY]);
    // Replacing again with nothing empties the field; the new term's row stays, all zero.
    const c = withField(b, ANCHOR, []);
    assert.equal(c.lengths[ANCHOR], 0);
    assert.ok(Array.from(c.tf).every((v, i) => i % FIELDS.length !== ANCHOR || v === 0));
    // An identifier among the terms is no token: the field is as long as it is said to be.
    assert.equal(withField(a, ANCHOR, ['search', 'path', 'search_path'], 2).lengths[ANCHOR], 2);
  });

  it('is what setField does to a stored document, the field’s length given', () => {
    const s = new IndexContents();
    s.add(1, analyze(doc(1, 'alpha', 'Title')));
    const ANCHOR = FIELDS.indexOf('anchor');
    const { added } = s.setField(1, ANCHOR, ['search', 'path', 'search_path'], 3, 2);
    assert.deepEqual(added, ['search', 'path', 'search_path']);
    assert.equal(s.vectors.get(1)!.lengths[ANCHOR], 2);
  });
});

describe('analyze (each distinct word stemmed once)', () => {
  it('counts exactly what tokenizing every field with stemming counts', async () => {
    const { tokenize } = await import('../ingest/tokenize.ts');
    const d = {
      id: 1,
      url: 'http://e.org/Indexes/running-Tests',
      title: 'Running indexes: INDEXES and indexing',
      description: 'Runs, ran, runner',
      headings: ['Creating indexes', 'Café crème'],
      text: 'The indexes index indexed documents. Running runs; ran 15712 times. 東京都に住んでいます. Straße straße',
    };
    const reference = new Map<string, number[]>();
    const urlWords = 'e.org /Indexes/running-Tests';
    const fields = [d.title, d.headings.join('\n'), d.description, urlWords, '', d.text];
    fields.forEach((text, f) => {
      for (const t of tokenize(text)) {
        const row = reference.get(t) ?? Array(FIELDS.length).fill(0);
        row[f]++;
        reference.set(t, row);
      }
    });
    const a = analyze(d);
    // Besides the tokens' terms, one per stem written with diacritics, counting those occurrences.
    const diacritic = new Map([
      ['\u0001cafe', [0, 1, 0, 0, 0, 0]],
      ['\u0001creme', [0, 1, 0, 0, 0, 0]],
      ['\u0001strass', [0, 0, 0, 0, 0, 2]],
    ]);
    assert.deepEqual(
      a.terms.filter((t) => !diacritic.has(t)),
      [...reference.keys()],
    );
    a.terms.forEach((t, i) => {
      assert.deepEqual(Array.from(a.tf.subarray(i * FIELDS.length, (i + 1) * FIELDS.length)), reference.get(t) ?? diacritic.get(t), t);
    });
    assert.equal(a.terms.length, reference.size + diacritic.size);
    // (The headings field's length is one heading's on average, here 4 words over 2: analyze.ts headingsLength.)
    assert.deepEqual(
      Array.from(a.lengths),
      fields.map((t, f) => (FIELDS[f] === 'headings' ? Math.ceil(tokenize(t).length / d.headings.length) : tokenize(t).length)),
    );
  });
});
