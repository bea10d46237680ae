// The ranking signals beyond BM25F, each on hand-made documents where it alone decides the order.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../model/index.ts';
import { phraseEvidence } from './query/proximity.ts';
import { SearchIndex } from './search-index.ts';
import { storedDocument } from './test-document.ts';
import { tokenize } from './ingest/tokenize.ts';

const doc = (id: number, title: string, text: string, headings: string[] = []): StoredDocument =>
  storedDocument(id, { url: `http://example.org/page${id}`, title, text, headings });

/** An index over `pages`, with the given inbound anchors per page id. */
function indexOf(pages: StoredDocument[], anchors: Record<number, { texts: string[]; sources: number }> = {}) {
  const byId = new Map(pages.map((p) => [p.id, p]));
  const index = new SearchIndex(
    (id) => byId.get(id),
    (id) => anchors[id] ?? { texts: [], sources: 0 },
  );
  for (const p of pages) index.upsert(p);
  return index;
}
const ids = async (index: SearchIndex, q: string) => (await index.search(q)).hits.map((h) => h.id);

describe('ranking', () => {
  it('puts the page titled exactly what was asked above pages with longer titles holding the same words', async () => {
    const body = 'This command creates a table. The table has columns. Create it once.';
    const index = indexOf([doc(1, 'CREATE TABLE AS', body), doc(2, 'CREATE TABLE', body), doc(3, 'CREATE FOREIGN TABLE', body)]);
    assert.deepEqual(await ids(index, 'create table'), [2, 1, 3]);
  });

  it('finds a page by the words other pages use to link to it, and ranks much-linked pages higher', async () => {
    const pages = [doc(1, 'Resource consumption', 'Memory settings of the server.'), doc(2, 'Kernel resources', 'Memory settings of the kernel.')];
    const index = indexOf(pages, { 1: { texts: ['shared_buffers', 'work_mem'], sources: 2 } });
    assert.deepEqual(await ids(index, 'shared_buffers'), [1], 'only the anchor text holds the word');
    // The same two pages, equal in text: the one more pages link to comes first.
    const same = [doc(1, 'Memory', 'Memory settings.'), doc(2, 'Memory', 'Memory settings.')];
    assert.deepEqual(await ids(indexOf(same, { 2: { texts: [], sources: 30 } }), 'memory settings'), [2, 1]);
    assert.deepEqual(await ids(indexOf(same, { 1: { texts: [], sources: 30 } }), 'memory settings'), [1, 2]);
  });

  it('updates a page\u2019s anchor field when links to it are found after it was indexed', async () => {
    const pages = [doc(1, 'Configuration', 'Settings of the server.')];
    const anchors: Record<number, { texts: string[]; sources: number }> = {};
    const index = indexOf(pages, anchors);
    assert.deepEqual(await ids(index, 'max_connections'), []);
    anchors[1] = { texts: ['max_connections'], sources: 1 };
    assert.equal(index.refreshAnchors(1), true);
    assert.deepEqual(await ids(index, 'max_connections'), [1]);
    assert.deepEqual(await ids(index, 'settings server'), [1], 'the page\u2019s own words are still there');
    anchors[1] = { texts: [], sources: 0 };
    index.refreshAnchors(1);
    assert.deepEqual(await ids(index, 'max_connections'), [], 'anchor text that is gone is gone');
    assert.equal(index.refreshAnchors(99), false);
  });

  it('ranks the page holding the important words of a long query strongly above pages holding every word in passing', async () => {
    // "sleep for a second": the page of sleep never says "second"; seven pages say every word once in
    // passing, and "second" is on many other pages (it says less than "sleep").
    const filler = (i: number) => `Notes on the runtime, part ${i}: waiting for a second reply, the scheduler may sleep. Tasks and threads.`;
    const pages = [doc(1, 'sleep', 'Puts the current thread to sleep for at least a given duration. sleep blocks the thread.')];
    for (let i = 2; i <= 8; i++) pages.push(doc(i, `Runtime notes ${i}`, filler(i)));
    for (let i = 9; i <= 40; i++) pages.push(doc(i, `Other ${i}`, `A page of other things, for a ${i % 2 ? 'second' : 'new'} reader.`));
    const index = indexOf(pages);
    assert.equal((await ids(index, 'sleep for a second'))[0], 1);
    const r = await index.search('sleep for a second', { explain: true });
    assert.deepEqual(r.hits[0]!.explain!.missing, ['second']);
    assert.deepEqual(r.hits[0]!.missing, ['second'], 'the hit says so');
    assert.equal(r.hits[1]!.missing, undefined);
    assert.ok(r.hits[0]!.explain!.coverage < 1, 'its coverage counts against it');
    assert.equal(r.partial, false, 'pages hold every word');
    // Two words are both required: no page missing one is a candidate.
    assert.deepEqual(
      (await ids(index, 'sleep second')).sort((a, b) => a - b),
      [2, 3, 4, 5, 6, 7, 8],
    );
  });

  it('ranks pages where the query words stand together, in order, above pages where they are apart', async () => {
    const index = indexOf([
      doc(1, 'Users and tables', 'You can create a table for every user of the system and grant the user rights.'),
      doc(2, 'Users and tables', 'To create user accounts for the system, create user rights and a table of them.'),
    ]);
    assert.deepEqual(await ids(index, 'create user'), [2, 1]);
  });
});

describe('phraseEvidence', () => {
  const terms = (q: string) => tokenize(q);
  it('counts the query\u2019s adjacent pairs found adjacent in title, headings and body, weighted by field', () => {
    const d = doc(1, 'Create User', 'nothing here', ['create user mapping']);
    assert.equal(phraseEvidence(d, terms('create user')), 1 + 0.5);
    assert.equal(phraseEvidence(doc(2, 'User create', 'create the user'), terms('create user')), 0);
    assert.equal(phraseEvidence(doc(3, 'x', 'create user and more'), terms('create user')), 0.3);
    assert.equal(phraseEvidence(d, terms('create')), 0, 'one word has no pairs');
    // Two pairs, one found.
    assert.equal(phraseEvidence(doc(4, 'alter table add', ''), terms('alter table drop')), 0.5);
  });
});
