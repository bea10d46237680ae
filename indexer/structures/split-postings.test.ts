import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { flushIndex, loadIndex } from '../persistence/snapshot.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { twinIndexes } from '../twin-indexes.ts';

const WORDS = 'alpha beta gamma delta river stone cloud table'.split(' ');

/** Documents of common words (each in many documents) and one rare word each. */
function docs(ids: readonly number[], seed: number): StoredDocument[] {
  let s = seed;
  const r = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  return ids.map((id) => {
    const text = `${Array.from({ length: 8 + Math.floor(r() * 20) }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ')} only${id}`;
    return storedDocument(id, { url: `http://h${id % 2}.example/${id}`, title: WORDS[id % WORDS.length]!, text });
  });
}

/** A split index (lists from 5 documents on) and one that keeps every posting in FlexSearch, fed alike. */
const pair = () => twinIndexes({ exactLimit: 5, headDf: 5 });

/** Every term's documents as each index reads them (sorted: a linked page moves to the end of a list, not of FlexSearch's; ranking breaks ties by id). */
function everyTermsDocs(index: SearchIndex): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (let t = 0; t < index.stats.termCount; t++) {
    const term = index.stats.dictionary.term(t);
    out.set(
      term,
      index.postings.docsWith(term, Math.max(1, index.stats.dictionary.docFrequencyOf(t))).sort((a, b) => a - b),
    );
  }
  return out;
}

/** Postings FlexSearch holds, for documents with dense ids, of the terms that have an impact list in `listedIn`. */
function doubled(index: SearchIndex, listedIn = index): number {
  let n = 0;
  for (let t = 0; t < listedIn.stats.termCount; t++) {
    if (!listedIn.impacts.has(t)) continue;
    n += index.postings.flex.docsWith(listedIn.stats.dictionary.term(t), 1e6).filter((id) => id < 50_000_000).length;
  }
  return n;
}

describe('postings split between impact lists and FlexSearch', () => {
  it("hold each (term, document) once, and read every term's documents as FlexSearch alone does, through adds, replacements, links and removals", async () => {
    const p = pair();
    docs(
      Array.from({ length: 60 }, (_, i) => i + 1),
      5,
    ).forEach(p.upsert);
    for (const d of docs([3, 9, 27, 30, 31], 77)) p.upsert(d);
    for (const id of [4, 8, 15, 16]) p.remove(id);
    for (const id of [2, 10, 20]) p.link(id, id === 2 ? 'harbour stone' : 'harbour');
    // ("harbour" reaches 5 documents only now: its list is built from FlexSearch's postings.)
    for (const id of [40, 41]) p.link(id, 'harbour');
    const common = p.fast.stats.dictionary.termId('alpha')!;
    assert.ok(p.fast.impacts.has(common) && p.fast.impacts.has(p.fast.stats.dictionary.termId('harbour')!), 'the common words and the anchor word have lists');
    assert.ok(!p.fast.impacts.has(p.fast.stats.dictionary.termId('only7')!), 'a rare word has none');
    assert.equal(doubled(p.fast), 0, "FlexSearch holds none of the listed terms' postings");
    assert.deepEqual(p.fast.postings.flex.docsWith('alpha', 1000), [], 'alpha: read from its list only');
    assert.deepEqual(p.fast.postings.flex.docsWith('only7', 10), [7], 'only7: from FlexSearch');
    assert.ok(doubled(p.exact, p.fast) > 100, 'the other index keeps them in FlexSearch (what this test compares with)');
    assert.deepEqual(everyTermsDocs(p.fast), everyTermsDocs(p.exact));
    for (const q of ['alpha', 'alpha beta', 'harbour', 'harbour stone', 'only7', 'alpha -beta', 'alpha OR only9', '"river stone"', 'riv', 'harb']) {
      assert.deepEqual(
        (await p.fast.search(q)).hits.map((h) => h.id),
        (await p.exact.search(q)).hits.map((h) => h.id),
        q,
      );
    }
  });

  it('indexes a page of common words only (FlexSearch is given none of its terms), and a rare word that reaches it later', async () => {
    const p = pair();
    docs(
      Array.from({ length: 10 }, (_, i) => i + 1),
      3,
    ).forEach(p.upsert);
    const plain = storedDocument(11, { url: 'http://h1.example/11', title: 'alpha', text: 'alpha beta gamma river' });
    p.upsert(plain);
    assert.deepEqual(
      (await p.fast.search('alpha beta gamma river', { size: 20 })).hits.map((h) => h.id).sort((a, b) => a - b),
      (await p.exact.search('alpha beta gamma river', { size: 20 })).hits.map((h) => h.id).sort((a, b) => a - b),
    );
    p.link(11, 'lighthouse');
    assert.deepEqual(
      (await p.fast.search('lighthouse')).hits.map((h) => h.id),
      [11],
    );
    p.upsert({ ...plain, text: 'alpha beta' });
    p.remove(11);
    assert.equal((await p.fast.search('lighthouse')).total, 0);
    assert.deepEqual(everyTermsDocs(p.fast), everyTermsDocs(p.exact));
  });

  it('keeps the postings of ids the lists do not cover in FlexSearch, and reads them from there', async () => {
    const p = pair();
    const far = [60_000_001, 60_000_002];
    docs([...Array.from({ length: 20 }, (_, i) => i + 1), ...far], 9).forEach(p.upsert);
    assert.ok(p.fast.impacts.has(p.fast.stats.dictionary.termId('alpha')!));
    const alpha = p.fast.postings.docsWith('alpha', 1000);
    for (const id of far)
      if (p.fast.stats.vectors.contains(id, p.fast.stats.dictionary.termId('alpha')!))
        assert.ok(p.fast.postings.flex.docsWith('alpha', 1000).includes(id) && alpha.includes(id), `${id}: in FlexSearch`);
    assert.deepEqual(new Set(alpha), new Set(p.exact.postings.docsWith('alpha', 1000)));
    p.remove(far[0]!);
    assert.deepEqual(new Set(p.fast.postings.docsWith('alpha', 1000)), new Set(p.exact.postings.docsWith('alpha', 1000)));
    assert.equal((await p.fast.search('alpha')).total, (await p.exact.search('alpha')).total);
  });

  it('is made anew on load: the lists first, FlexSearch without what they hold', async () => {
    const p = pair();
    docs(
      Array.from({ length: 40 }, (_, i) => i + 1),
      21,
    ).forEach(p.upsert);
    const dir = mkdtempSync(join(tmpdir(), 'trawl-split-'));
    try {
      await flushIndex(dir, p.fast, 1);
      const loaded = new SearchIndex((id) => p.fast.lookup(id), undefined, { exactLimit: 5, headDf: 5 });
      loadIndex(dir, loaded);
      assert.equal(doubled(loaded), 0);
      assert.deepEqual(everyTermsDocs(loaded), everyTermsDocs(p.exact));
      // Updates after the load keep the split.
      loaded.upsert(storedDocument(3, { url: 'http://h1.example/3', title: 'alpha', text: 'alpha only3 newword' }));
      loaded.remove(5);
      p.upsert(storedDocument(3, { url: 'http://h1.example/3', title: 'alpha', text: 'alpha only3 newword' }));
      p.remove(5);
      assert.equal(doubled(loaded), 0);
      assert.deepEqual(everyTermsDocs(loaded), everyTermsDocs(p.exact));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
