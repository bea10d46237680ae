import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from './analyze.ts';
import { SearchIndex } from '../search-index.ts';
import { sequenceHas, termHash } from './sequence.ts';
import { storedDocument } from '../test-document.ts';
import { tokenize } from './tokenize.ts';
import type { StoredDocument } from '../../model/index.ts';

const hashes = (text: string) => tokenize(text).map(termHash);

describe('token sequences', () => {
  it('hash terms to non-zero 32-bit numbers, the same every time', () => {
    assert.equal(termHash('vacuum'), termHash('vacuum'));
    assert.notEqual(termHash('vacuum'), termHash('analyz'));
    for (const t of ['', 'a', 'creat', '東京']) assert.ok(termHash(t) > 0 && termHash(t) < 2 ** 32, t);
  });

  it('come with the analysis: title, headings, description and body, in order, each after a 0', () => {
    const doc = storedDocument(1, {
      url: 'http://e.org/x',
      title: 'Create User',
      headings: ['Synopsis', 'Notes here'],
      description: 'About roles',
      text: 'CREATE USER adds a role.',
    });
    const expected = [0, ...hashes('Create User'), 0, ...hashes('Synopsis\nNotes here'), 0, ...hashes('About roles'), 0, ...hashes('CREATE USER adds a role.')];
    assert.deepEqual([...analyze(doc).sequence], expected);
  });

  it('hold a phrase only adjacent, in order and within one field', () => {
    const seq = analyze(storedDocument(1, { url: 'http://e.org/x', title: 'alpha beta', text: 'gamma delta alpha' })).sequence;
    const p = (s: string) => hashes(s);
    assert.ok(sequenceHas(seq, p('alpha beta')));
    assert.ok(sequenceHas(seq, p('gamma delta')));
    assert.ok(sequenceHas(seq, p('delta')), 'one word');
    assert.ok(!sequenceHas(seq, p('beta alpha')), 'order');
    assert.ok(!sequenceHas(seq, p('beta gamma')), 'across the title and the body');
    assert.ok(!sequenceHas(seq, p('gamma alpha')), 'a word between');
  });
});

describe('exact phrases checked on token sequences', () => {
  const docs = new Map<number, StoredDocument>();
  const words = 'alpha beta gamma delta river stone cloud'.split(' ');
  let s = 3;
  const r = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let id = 1; id <= 300; id++) {
    const text = Array.from({ length: 10 + Math.floor(r() * 30) }, () => words[Math.floor(r() * words.length)]).join(' ');
    docs.set(id, storedDocument(id, { url: `http://e.org/${id}`, title: words[id % words.length]!, text }));
  }
  let textReads = 0;
  const lookup = (id: number) => {
    textReads++;
    return docs.get(id);
  };
  const sequences = new Map([...docs].map(([id, d]) => [id, analyze(d).sequence]));
  const withSequences = new SearchIndex(lookup, undefined, {}, (ids) => new Map(ids.filter((id) => sequences.has(id)).map((id) => [id, sequences.get(id)!])));
  const withoutSequences = new SearchIndex((id) => docs.get(id));
  for (const d of docs.values()) {
    withSequences.upsert(d);
    withoutSequences.upsert(d);
  }
  const answer = async (index: SearchIndex, q: string) => {
    const res = await index.search(q, { size: 20 });
    return { total: res.total, lowerBound: res.totalIsLowerBound, hits: res.hits.map((h) => [h.id, h.score]) };
  };

  it('give the same answers as the text, reading the text of far fewer pages', async () => {
    const queries = ['"alpha beta"', '"stone cloud" river', '"river river"', '"delta alpha gamma"', 'cloud "beta stone"', '"alpha beta" -gamma'];
    let readWith = 0;
    for (const q of queries) {
      textReads = 0;
      const got = await answer(withSequences, q);
      readWith += textReads;
      assert.deepEqual(got, await answer(withoutSequences, q), q);
    }
    assert.ok(readWith < 600, `${readWith} pages read for ${queries.length} phrase queries`);
  });

  it('never show a page whose hashes match by accident: the text decides', async () => {
    // Every page's sequence claims the phrase, as a collision would.
    const claim = (ids: readonly number[]) => new Map(ids.map((id) => [id, Uint32Array.from([0, ...hashes('alpha beta')])]));
    const claims = new SearchIndex((id) => docs.get(id), undefined, {}, claim);
    // The same where candidates are many (the two-pass path, which confirms matches late).
    const claimsTwoPass = new SearchIndex((id) => docs.get(id), undefined, { exactLimit: 5, headDf: 5 }, claim);
    for (const d of docs.values()) {
      claims.upsert(d);
      claimsTwoPass.upsert(d);
    }
    const truth = await answer(withoutSequences, '"alpha beta"');
    assert.ok(truth.hits.length > 0 && (await withoutSequences.search('alpha beta')).total > truth.total, 'some pages have both words, not the phrase');
    assert.deepEqual(await answer(claims, '"alpha beta"'), truth);
    assert.deepEqual(await answer(claimsTwoPass, '"alpha beta"'), truth);
  });

  it('rule a page out by its sequence alone', async () => {
    const denies = new SearchIndex(
      (id) => docs.get(id),
      undefined,
      {},
      (ids) => new Map(ids.map((id) => [id, Uint32Array.from([0, ...hashes('never written anywhere')])])),
    );
    for (const d of docs.values()) denies.upsert(d);
    assert.deepEqual((await answer(denies, '"alpha beta"')).hits, []);
  });
});
