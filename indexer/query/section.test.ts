// The section a result links (section.ts): the heading with an id that holds more of the query
// than the title, and at least half of its IDF mass; none when the title says it already.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';

const pages: StoredDocument[] = [
  storedDocument(1, {
    url: 'http://e.org/error-index.html',
    title: 'Rust Compiler Error Index',
    headings: ['E0382', 'E0499', 'Borrow of moved value', 'Déjà vu: a value moved twice', 'Crème brûlée'],
    headingIds: [
      ['E0382', 'E0382'],
      ['E0499', 'E0499'],
      ['Borrow of moved value', 'moved value/ü'],
      ['Déjà vu: a value moved twice', 'deja-vu'],
      ['Crème brûlée', 'creme'],
    ],
    text: 'A value was used after it was moved. Two mutable borrows at once. E0382 E0499 examples.',
  }),
  storedDocument(2, {
    url: 'http://e.org/ownership.html',
    title: 'Ownership',
    headings: ['Moves'],
    headingIds: [['Moves', 'moves']],
    text: 'A moved value. E0382.',
  }),
];
for (let i = 3; i < 30; i++) pages.push(storedDocument(i, { url: `http://e.org/${i}.html`, title: `Page ${i}`, text: 'other words about values and borrows' }));
const byId = new Map(pages.map((p) => [p.id, p]));
const index = new SearchIndex((id) => byId.get(id));
for (const p of pages) index.upsert(p);
const hit = async (q: string, id: number) => (await index.search(q)).hits.find((h) => h.id === id);

describe('sectionOf', () => {
  it('links the heading that holds the query, by its fragment id', async () => {
    assert.deepEqual((await hit('E0382', 1))?.section, { heading: 'E0382', url: 'http://e.org/error-index.html#E0382' });
    assert.deepEqual((await hit('e0499', 1))?.section?.url, 'http://e.org/error-index.html#E0499');
    // (The id escaped as a fragment.)
    assert.equal((await hit('borrow moved value', 1))?.section?.url, 'http://e.org/error-index.html#moved%20value%2F%C3%BC');
  });

  it('finds the heading in headings with words outside ASCII, as in plain ones', async () => {
    // (Headings with such words are read token by token, the others by their characters alone.)
    assert.equal((await hit('value moved twice', 1))?.section?.url, 'http://e.org/error-index.html#deja-vu');
    assert.equal((await hit('creme brulee', 1))?.section?.url, 'http://e.org/error-index.html#creme');
  });

  it('links none when the title holds the query as well, or no heading holds half of it', async () => {
    assert.equal((await hit('ownership moves', 2))?.section, undefined, 'the title holds "ownership", the heading "moves": not more');
    assert.equal((await hit('compiler error index', 1))?.section, undefined, 'the title holds it all');
    assert.equal((await hit('E0382 examples value', 2))?.section, undefined, 'no heading of page 2 holds half of the query');
    assert.equal((await hit('values', 3))?.section, undefined, 'a page without heading ids');
  });
});
