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

// A small vocabulary, so that most words are in many documents (the two-pass case).
const VOCABULARY = 'alpha beta gamma delta epsilon zeta theta kappa lambda sigma omega river stone cloud table index query shard'.split(' ');

function corpus(count: number, seed: number, lengthOf = (r: () => number) => 20 + Math.floor(r() * 60)): StoredDocument[] {
  let s = seed;
  const r = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  const word = () => VOCABULARY[Math.floor(r() ** 1.7 * VOCABULARY.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const id = i + 1;
    // Now and then a rare word: a term without an impact list, in an OR or next to common ones.
    const text = Array.from({ length: lengthOf(r) }, word).join(' ') + (r() < 0.15 ? ` rare${id % 7}` : '');
    const title = Array.from({ length: 1 + Math.floor(r() * 3) }, word).join(' ');
    return storedDocument(id, { url: `http://h${id % 3}.example/${id}`, title, text, headings: r() < 0.5 ? [word()] : [] });
  });
}

const QUERIES = [
  'alpha',
  'beta',
  'river',
  'shard',
  'alpha beta',
  'stone cloud',
  'alpha beta gamma',
  'alpha OR shard',
  'river OR cloud stone',
  'alpha -beta',
  'beta -alpha -gamma',
  'site:h1.example alpha',
  'alpha site:h2.example',
  '"alpha beta"',
  '"stone cloud" river',
  'alpha nosuchword',
  'shard query index table',
  'omega -omega',
  'alpha OR beta -gamma',
  'alpha OR rare3',
  'rare3 OR rare4 beta',
  'alpha -rare2',
  'rare5 nosuchword',
  'rare1 -alpha',
  'cloud rare6',
  // Forgiving: the last word completed (many terms for one word), a typo corrected.
  'ra',
  'st',
  'alpha ra',
  'sh',
  'river st',
  'stone cl',
  'alpha rare',
  'omega -st',
  'clod stone',
  'alpah beta',
];

const answer = async (index: SearchIndex, q: string, page = 1) => {
  const r = await index.search(q, { page, size: 10 });
  return { total: r.total, partial: r.partial, hosts: r.facets.host, hits: r.hits.map((h) => [h.id, h.score]) };
};

describe('impact lists by default', () => {
  it('are kept for terms in a hundred documents or more (a word being typed reads its completions from them)', () => {
    const index = new SearchIndex(() => undefined);
    for (let id = 1; id <= 100; id++) index.upsert(storedDocument(id, { url: `http://e.org/${id}`, title: '', text: id <= 99 ? 'common rare' : 'common' }));
    assert.ok(index.impacts.has(index.stats.dictionary.termId('common')!), 'in 100 documents');
    assert.ok(!index.impacts.has(index.stats.dictionary.termId('rare')!), 'in 99');
  });
});

describe('two-pass scoring with impact lists', () => {
  it('answers exactly like scoring every candidate while documents are added, replaced, linked and removed', async () => {
    // Fewer documents than the first pass keeps: the answers must be the same to the last digit.
    const p = twinIndexes({ exactLimit: 12, headDf: 12 });
    const docs = corpus(180, 7);
    for (const d of docs) p.upsert(d);
    // Replace a third with other text, remove some, link some (anchor text changes their vectors).
    for (const d of corpus(60, 99)) p.upsert({ ...d, id: d.id * 3 });
    for (let id = 5; id <= 180; id += 11) p.remove(id);
    for (let id = 2; id <= 180; id += 7) p.link(id, id % 2 ? 'river guide' : 'shard');
    assert.ok(p.fast.impacts.size().terms >= 10, 'the common words have impact lists');
    const listed = (w: string) => p.fast.impacts.has(p.fast.stats.dictionary.termId(w)!);
    assert.ok(listed('alpha') && !listed('rare3') && !listed('rare4'), 'rare words have none: they are read from their vectors');
    for (const q of QUERIES) {
      for (const page of [1, 2]) assert.deepEqual(await answer(p.fast, q, page), await answer(p.exact, q, page), `${q} (page ${page})`);
    }
  });

  it('leaves nothing of one query to the next, also when it read a small part of a large index', async () => {
    // Many documents without the vocabulary's words: a query touches a few of the per-document
    // sums, which are cleared one by one instead of all at once.
    const p = twinIndexes({ exactLimit: 12, headDf: 12 });
    for (const d of corpus(150, 13)) p.upsert(d);
    for (let id = 1000; id < 5000; id++) p.upsert(storedDocument(id, { url: `http://h9.example/${id}`, title: 'filler', text: 'filler words only' }));
    for (const q of [...QUERIES, ...QUERIES.slice().reverse()]) assert.deepEqual(await answer(p.fast, q), await answer(p.exact, q), q);
  });

  it('keeps the exact best ten when there are more candidates than the first pass keeps', async () => {
    const p = twinIndexes({ exactLimit: 50, headDf: 30 });
    for (const d of corpus(3000, 3)) p.upsert(d);
    let checked = 0;
    for (const q of QUERIES) {
      const exact = await answer(p.exact, q);
      if (exact.total <= 200) continue;
      checked++;
      assert.deepEqual(await answer(p.fast, q), exact, q);
    }
    assert.ok(checked >= 10, `${checked} queries had more candidates than the first pass keeps`);
  });

  it('drops stale entries: lists stay about as long as the postings through many updates', async () => {
    const p = twinIndexes({ exactLimit: 6, headDf: 4 });
    const docs = corpus(100, 11);
    for (let round = 0; round < 30; round++) for (const d of docs) p.upsert({ ...d, text: `${d.text} round${round % 2}` });
    const live = [...p.fast.stats.vectors.all().values()].reduce((n, v) => n + v.termIds.length, 0);
    const { entries } = p.fast.impacts.size();
    assert.ok(entries <= live * 1.4 + 64 * p.fast.impacts.size().terms, `${entries} entries for ${live} postings`);
    // Round 29 wrote "round1": no document still matches "round0" (exactly: forgiving search would take it for "round1").
    assert.equal((await p.fast.search('round0', { exact: true })).total, 0);
    assert.equal((await p.fast.search('round1 alpha')).total, (await p.exact.search('round1 alpha')).total);
  });

  it('rebuilds the lists when a flushed index is loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-impacts-'));
    try {
      const p = twinIndexes({ exactLimit: 6, headDf: 4 });
      for (const d of corpus(150, 5)) p.upsert(d);
      await flushIndex(dir, p.fast, 1);
      const loaded = new SearchIndex((id) => p.docs.get(id), undefined, { exactLimit: 6, headDf: 4 });
      loadIndex(dir, loaded);
      assert.deepEqual(loaded.impacts.size(), p.fast.impacts.size());
      for (const q of QUERIES) assert.deepEqual(await answer(loaded, q), await answer(p.exact, q), q);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
