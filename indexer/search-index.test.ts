import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../model/index.ts';
import { analyze } from './ingest/analyze.ts';
import { QueryError } from './query/parse.ts';
import { SearchIndex } from './search-index.ts';
import { storedDocument } from './test-document.ts';

const docs = new Map<number, StoredDocument>();
const doc = (id: number, title: string, text: string, extra: Partial<StoredDocument> = {}): StoredDocument =>
  storedDocument(id, { url: `http://example.org/${id}`, title, text, ...extra });
const fresh = () => {
  docs.clear();
  return new SearchIndex((id) => docs.get(id));
};
const add = (index: SearchIndex, d: StoredDocument) => {
  docs.set(d.id, d);
  index.upsert(d);
};
const urls = async (index: SearchIndex, q: string) => (await index.search(q)).hits.map((h) => h.id);

describe('SearchIndex', () => {
  it('finds a document the moment it is added, and ranks a title match above a passing mention', async () => {
    const index = fresh();
    add(index, doc(1, 'Cooking pasta', 'Boil water. Vacuum the kitchen afterwards if you like.'));
    add(index, doc(2, 'Vacuum cleaners', 'A vacuum cleaner removes dust. Vacuum weekly.'));
    add(index, doc(3, 'Gardening', 'Nothing about cleaning here.'));
    assert.deepEqual(await urls(index, 'vacuum'), [2, 1]);
    assert.equal((await index.search('vacuum')).total, 2);
  });

  it('requires every word, across fields', async () => {
    const index = fresh();
    add(index, doc(1, 'Postgres tuning', 'shared buffers and work memory'));
    add(index, doc(2, 'Postgres install', 'apt install postgresql'));
    assert.deepEqual(await urls(index, 'postgres buffers'), [1], 'one word in the title, one in the body');
    assert.deepEqual((await index.search('postgres buffers')).partial, false);
  });

  it('folds case and diacritics', async () => {
    const index = fresh();
    add(index, doc(1, 'Crème Brûlée', 'A DESSERT'));
    assert.deepEqual(await urls(index, 'creme brulee dessert'), [1]);
    assert.deepEqual(await urls(index, 'CRÈME'), [1]);
  });

  it('excludes -words', async () => {
    const index = fresh();
    add(index, doc(1, 'Jaguar the cat', 'a big cat'));
    add(index, doc(2, 'Jaguar the car', 'a fast car'));
    assert.deepEqual(await urls(index, 'jaguar -car'), [1]);
  });

  it('falls back to partial matches, and says so', async () => {
    const index = fresh();
    add(index, doc(1, 'Apples', 'red apples'));
    add(index, doc(2, 'Pears', 'green pears'));
    const r = await index.search('apples bananas');
    assert.equal(r.partial, true);
    assert.deepEqual(
      r.hits.map((h) => h.id),
      [1],
    );
    assert.equal((await index.search('bananas')).total, 0);
  });

  it('updates a document in place: old words go, new words come', async () => {
    const index = fresh();
    add(index, doc(1, 'Page', 'oldword text'));
    add(index, doc(1, 'Page', 'newword text'));
    assert.deepEqual(await urls(index, 'oldword'), []);
    assert.deepEqual(await urls(index, 'newword'), [1]);
    assert.equal(index.documentCount, 1);
  });

  it('removes a document', async () => {
    const index = fresh();
    add(index, doc(1, 'Alpha', 'alpha beta gamma delta'));
    add(index, doc(2, 'Other', 'delta'));
    index.remove(1);
    assert.deepEqual(await urls(index, 'delta'), [2]);
    assert.deepEqual(await urls(index, 'alpha'), []);
    assert.equal(index.documentCount, 1);
  });

  it('survives the FlexSearch 0.8.212 remove-then-search bug (regression: fastupdate + emptied postings)', async () => {
    // The repro from FLEXSEARCH.md: add, remove, search a term of the removed document.
    const index = fresh();
    add(index, doc(1, '', 'alpha beta gamma delta'));
    index.remove(1);
    await assert.doesNotReject(() => index.search('delta'));
    assert.equal((await index.search('delta')).total, 0);
    add(index, doc(2, '', 'delta again'));
    assert.deepEqual(await urls(index, 'delta'), [2]);
  });

  it('pages results and counts the total', async () => {
    const index = fresh();
    for (let i = 1; i <= 25; i++) add(index, doc(i, `Doc ${i}`, `common ${'filler '.repeat(i)}`));
    const p1 = await index.search('common', { page: 1, size: 10 });
    const p3 = await index.search('common', { page: 3, size: 10 });
    assert.equal(p1.total, 25);
    assert.equal(p1.hits.length, 10);
    assert.equal(p3.hits.length, 5);
    assert.equal(new Set([...p1.hits, ...p3.hits].map((h) => h.id)).size, 15);
    // Shorter documents rank higher for the same single occurrence (length normalization).
    assert.equal(p1.hits[0]!.id, 1);
  });

  it('returns snippets with the query terms marked, escaped', async () => {
    const index = fresh();
    add(index, doc(1, '<b>Title</b>', 'Some text. The <script> tag & the needle are here.'));
    const h = (await index.search('needle')).hits[0]!;
    assert.equal(h.title, '<b>Title</b>', 'titles stay plain text; the page template escapes them');
    assert.match(h.snippet, /<mark>needle<\/mark>/);
    assert.match(h.snippet, /&#60;script&#62; tag &#38; the/);
    assert.ok(!h.snippet.includes('<script>'));
  });

  it('answers the same with a precomputed analysis (from a parse worker), and ignores a malformed one', async () => {
    const a = fresh();
    const b = new SearchIndex((id) => docs.get(id));
    const pages = [
      doc(1, 'Connection pooling', 'pool size and timeouts'),
      doc(2, 'Timeouts', 'statement timeout and lock timeout'),
      doc(3, 'Other', 'nothing'),
    ];
    for (const d of pages) {
      add(a, d);
      b.upsert(d, analyze(d));
    }
    for (const q of ['timeout', 'pool timeouts', 'connection', 'lock -statement']) {
      assert.deepEqual(
        (await b.search(q)).hits.map((h) => [h.id, h.score]),
        (await a.search(q)).hits.map((h) => [h.id, h.score]),
        q,
      );
    }
    const c = new SearchIndex((id) => docs.get(id));
    c.upsert(pages[0]!, { terms: ['bogus'], tf: new Uint16Array(1), lengths: new Uint32Array(5) });
    assert.equal((await c.search('bogus')).total, 0, 'a malformed analysis is not trusted');
    assert.equal((await c.search('pooling')).total, 1);
  });

  it('refuses hostile queries with a QueryError', async () => {
    const index = fresh();
    await assert.rejects(() => index.search('x'.repeat(5000)), QueryError);
    await assert.rejects(() => index.search(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' ')), QueryError);
    assert.equal((await index.search('"unbalanced quote')).total, 0);
    assert.equal((await index.search('\u0000\u0001 \ud800')).total, 0);
    assert.equal((await index.search('***')).total, 0);
  });
});
