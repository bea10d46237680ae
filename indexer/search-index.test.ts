import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../model/index.ts';
import { analyze } from './ingest/analyze.ts';
import type { SequenceLookup } from './query/documents.ts';
import { QueryError } from './query/parse.ts';
import { SearchIndex, withEvidence, type Ranking } from './search-index.ts';
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

/**
 * A store whose next token-sequence read waits until the test releases it: while a query waits
 * there, the test changes the index.
 */
function heldSequences() {
  const sequences = new Map<number, Uint32Array>();
  let hold: { reached: () => void; released: Promise<void> } | undefined;
  const lookup: SequenceLookup = async (ids) => {
    const held = hold;
    hold = undefined;
    if (held) {
      held.reached();
      await held.released;
    }
    return new Map(ids.flatMap((id) => (sequences.has(id) ? [[id, sequences.get(id)!] as const] : [])));
  };
  /** Holds the next read: `reached` resolves when a query asks, `release` lets it go on. */
  const holdNext = () => {
    let reached!: () => void;
    let release!: () => void;
    const asked = new Promise<void>((resolve) => (reached = resolve));
    hold = { reached, released: new Promise<void>((resolve) => (release = resolve)) };
    return { asked, release };
  };
  return { sequences, lookup, holdNext };
}

/**
 * Pages of a harbour: a phrase over many candidates, so that the first pass orders them, their
 * sequences are read (held by the test) and those holding the phrase are scored exactly — after
 * the wait.
 */
function harbour() {
  const store = new Map<number, StoredDocument>();
  const held = heldSequences();
  const index = new SearchIndex((id) => store.get(id), undefined, { exactLimit: 5, headDf: 5 }, held.lookup);
  const put = (id: number, text: string) => {
    const d = doc(id, `Harbour ${id}`, text, { url: `http://site${id % 3}.org/${id}` });
    store.set(d.id, d);
    held.sequences.set(d.id, analyze(d).sequence);
    index.upsert(d);
  };
  for (let id = 1; id <= 40; id++) put(id, `the harbour light ${'tide '.repeat(id % 7)}and the boats of page ${id}`);
  for (let id = 41; id <= 60; id++) put(id, `a light in the harbour ${'wind '.repeat(id % 5)}`);
  return { index, put, holdNext: held.holdNext };
}

/** What must not change: the candidates' scores after phrase evidence, the total, the facets. */
const seen = (r: Ranking) => ({ ranked: withEvidence(r.ranked, r.evidence).map((x) => [x.id, x.score]), total: r.total, facets: r.facets });

describe('a query that updates straddle', () => {
  it('reads the figures and vectors of its start after the wait: scores as if the updates came after it', async () => {
    const { index, put, holdNext } = harbour();
    const query = '"harbour light" boats';
    const before = seen(await index.rank(query));
    const { asked, release } = holdNext();
    const straddled = index.rank(query);
    await asked;
    // Meanwhile: pages holding the query's words come (document frequencies, the document count
    // and the length norms change), others go, a candidate is given anchor text (its vector is
    // replaced) and another leaves the index (its page stays in the store).
    for (let id = 61; id <= 90; id++) put(id, `harbour light boats ${'harbour '.repeat(id % 9)} and many other words of page ${id}`);
    for (let id = 41; id <= 50; id++) index.remove(id);
    index.refreshAnchors(3, { texts: ['harbour light boats'], sources: 12 });
    index.remove(before.ranked[1]![0]!);
    release();
    assert.deepEqual(seen(await straddled), before);
    assert.notDeepEqual(seen(await index.rank(query)).ranked, before.ranked, 'a query made now sees the updates');
  });

  it('reads the document frequencies of its start after the wait: "did you mean" as before the updates', async () => {
    const { index, put, holdNext } = harbour();
    // "boatz", in one page, is taken for boats; no page holds the phrase, so the answer says what
    // was meant — after the wait — of the words the index does not know: none, at the start.
    put(91, 'boatz');
    const query = '"boats harbour" boatz';
    const before = await index.search(query);
    assert.deepEqual([before.total, before.suggestion], [0, undefined]);
    const { asked, release } = holdNext();
    const straddled = index.search(query);
    await asked;
    index.remove(91);
    release();
    assert.equal((await straddled).suggestion, undefined);
    assert.equal((await index.search(query)).suggestion, '"boats harbour" boats', 'a query made now no longer knows "boatz"');
  });

  it('closes its view when it settles, answered or not', async () => {
    const { index } = harbour();
    await index.search('harbour');
    await assert.rejects(() => index.search('x'.repeat(5000)), QueryError);
    assert.equal(index.stats.openViews, 0);
  });

  it('counts a phrase found in more pages than it keeps as a lower bound, in one pass or two', async () => {
    for (const tuning of [{}, { exactLimit: 10, headDf: 10 }]) {
      docs.clear();
      const index = new SearchIndex((id) => docs.get(id), undefined, tuning);
      for (let id = 1; id <= 60; id++) add(index, doc(id, `Setting ${id}`, `Here the default value ${id} is kept; ${'other words '.repeat(id % 7)}and more.`));
      const r = await index.search('"the default"');
      assert.equal(r.hits.length, 10);
      assert.ok(r.total < 60, `${JSON.stringify(tuning)}: ${r.total} kept of 60 found`);
      assert.equal(r.totalIsLowerBound, true, `${JSON.stringify(tuning)}: the total is at least ${r.total}`);
    }
  });
});
