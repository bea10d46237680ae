// A query reads its results' starts (QueryDocuments.start, query/documents.ts START_CHARS), and a
// page whole only when its snippet may be further on than its start.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { START_CHARS } from './documents.ts';

const filler = (n: number) => 'lorem ipsum dolor sit amet. '.repeat(Math.ceil(n / 28));
const pages: StoredDocument[] = [
  storedDocument(1, { url: 'http://e.org/early.html', title: 'Early', text: `The connection pool is near the start. ${filler(3 * START_CHARS)}` }),
  storedDocument(2, {
    url: 'http://e.org/late.html',
    title: 'Late',
    text: `A connection. ${filler(2 * START_CHARS)}Here the connection pool is far. ${filler(500)}`,
  }),
  storedDocument(3, { url: 'http://e.org/short.html', title: 'Short', text: 'A pool, and a connection.' }),
  // (Its text holds one of the words only: no passage can hold both.)
  storedDocument(4, { url: 'http://e.org/titled.html', title: 'Connection', text: `One pool. ${filler(3 * START_CHARS)}` }),
  storedDocument(5, {
    url: 'http://e.org/connection-pool.html',
    title: 'Connection pool',
    text: `Nothing of it. ${filler(3 * START_CHARS)}`,
    description: 'About pools.',
  }),
];
for (let i = 6; i < 30; i++) pages.push(storedDocument(i, { url: `http://e.org/${i}.html`, title: `Page ${i}`, text: 'other words' }));

/** An index over `pages` whose lookup cuts texts as a store does, counting the whole reads. */
function indexOver(): { index: SearchIndex; whole: number[] } {
  const byId = new Map(pages.map((p) => [p.id, p]));
  const whole: number[] = [];
  const index = new SearchIndex((id, textChars) => {
    const d = byId.get(id);
    if (!d || textChars === undefined) {
      whole.push(id);
      return d;
    }
    return { ...d, text: d.text.slice(0, textChars) };
  });
  for (const p of pages) index.upsert(p);
  return { index, whole };
}

describe('hits from pages\u2019 starts', () => {
  it('reads a page whole only when its start holds no passage with every word', async () => {
    const { index, whole } = indexOver();
    const r = await index.search('connection pool');
    const snippet = (id: number) => r.hits.find((h) => h.id === id)?.snippet;
    assert.match(snippet(1)!, /The <mark>connection<\/mark> <mark>pool<\/mark> is near the start\. .* …$/);
    assert.match(snippet(2)!, /Here the <mark>connection<\/mark> <mark>pool<\/mark> is far/);
    assert.match(snippet(3)!, /^A <mark>pool<\/mark>, and a <mark>connection<\/mark>/);
    assert.match(snippet(4)!, /^One <mark>pool<\/mark>\. lorem/);
    assert.equal(snippet(5), 'About pools.', 'a text holding no word of the query: the description');
    assert.deepEqual(whole, [2], 'the pages whose text holds both words far from its start, or not all the words');
  });
});
