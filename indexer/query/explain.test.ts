// A hit's score taken apart (explain.ts): the parts give the score the hit was ranked by, for
// every kind of query, and say what a page holds of the query and where.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Anchors, StoredDocument } from '../../model/index.ts';
import type { SearchHit } from './hits.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import type { ScoreExplained } from './explain.ts';
import { LINK_PRIOR, linkScale } from '../structures/bm25f.ts';

const docs = new Map<number, StoredDocument>();
const anchors = new Map<number, Anchors>();
const index = new SearchIndex(
  (id) => docs.get(id),
  (id) => anchors.get(id) ?? { texts: [], sources: 0 },
);
const add = (id: number, title: string, text: string, extra: Partial<StoredDocument> = {}) => {
  const d = storedDocument(id, { url: `http://example.org/${id}`, title, text, ...extra });
  docs.set(id, d);
  index.upsert(d);
};
add(1, 'Vacuum', 'VACUUM reclaims storage occupied by dead tuples. Plain vacuum runs beside reads and writes.', { headings: ['Vacuum full'] });
add(2, 'Routine maintenance', 'Run vacuum regularly, and analyze the tables: the planner reads their statistics.');
add(3, 'Storage', 'Pages of a table on disk. The storage of dead tuples is reclaimed later.');
add(4, 'Résumé of the release', 'A résumé of what changed: faster vacuum of large tables.');
add(5, 'Resume a backup', 'Resume the base backup where it stopped.');
for (let id = 6; id < 30; id++) add(id, `Filler page ${id}`, `Words about tables and pages, filler number ${id}.`);
anchors.set(2, { texts: ['routine vacuuming'], sources: 7 });
index.refreshAnchors(2);

const explained = async (q: string, exact = false): Promise<(SearchHit & { explain: ScoreExplained })[]> => {
  const r = await index.search(q, { explain: true, exact });
  assert.ok(r.hits.length > 0, `hits for ${q}`);
  for (const h of r.hits) assert.ok(h.explain, `${q}: hit ${h.id} explained`);
  return r.hits as (SearchHit & { explain: ScoreExplained })[];
};

/** The parts give the score: the words' fields add up to each word's score, and the product to the hit's. */
function assertAddsUp(q: string, h: SearchHit & { explain: ScoreExplained }): void {
  const e = h.explain;
  for (const w of e.words) {
    const fields = Object.values(w.fields).reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(fields - w.score) < 1e-9, `${q}: hit ${h.id}, ${w.word}: fields ${fields} ≠ ${w.score}`);
  }
  const sum = e.words.reduce((a, w) => a + w.score, 0);
  const product = (sum + e.titleBonus + e.links.score) * e.alternativesOnly * e.coverage * e.exactForms * e.proximity;
  assert.ok(Math.abs(product - e.score) < 1e-9, `${q}: hit ${h.id}: parts ${product} ≠ ${e.score}`);
  // (The hit's score is rounded to three decimals.)
  assert.ok(Math.abs(e.score - h.score) <= 0.0005 + 1e-12, `${q}: hit ${h.id}: explained ${e.score}, ranked ${h.score}`);
}

describe('a hit’s score, explained', () => {
  it('adds up to the score each hit was ranked by, for one word, several, a phrase, a word being typed, a typo and a partial match', async () => {
    for (const q of ['vacuum', 'vacuum tables', '"dead tuples"', 'vacuum stor', 'vacuum storaeg', 'vacuum zebra', 'résumé', 'resume'])
      for (const h of await explained(q)) assertAddsUp(q, h);
  });

  it('names each word the page holds with the fields it is in, and the title bonus when the title holds it', async () => {
    const [first] = await explained('vacuum', true);
    assert.equal(first!.id, 1);
    const [w] = first!.explain.words;
    assert.equal(w!.word, 'vacuum');
    assert.equal(w!.term, 'vacuum');
    assert.equal(w!.own, true);
    assert.equal(w!.inTitle, true);
    assert.deepEqual(Object.keys(w!.fields).sort(), ['body', 'headings', 'title']);
    assert.ok(w!.weight > 0);
    assert.ok(first!.explain.titleBonus > 0, 'a page titled what was asked gets the bonus');
    const routine = (await explained('vacuum', true)).find((h) => h.id === 2)!;
    assert.equal(routine.explain.titleBonus, 0);
    assert.equal(routine.explain.words[0]!.inTitle, false);
  });

  it('counts the links to a page and what they add', async () => {
    const routine = (await explained('vacuum', true)).find((h) => h.id === 2)!;
    assert.equal(routine.explain.links.inlinks, 7);
    // (The link prior in proportion to what the query's words say: bm25f.ts linkScale.)
    const weight = routine.explain.words[0]!.weight;
    assert.ok(Math.abs(routine.explain.links.score - LINK_PRIOR * linkScale(weight) * Math.log1p(7)) < 1e-9);
    assert.ok(routine.explain.links.score > 0);
    assert.ok(routine.explain.words[0]!.fields.anchor! > 0, 'the anchor text holds the word');
    const first = (await explained('vacuum', true)).find((h) => h.id === 1)!;
    assert.deepEqual(first.explain.links, { inlinks: 0, score: 0 });
  });

  it('lists the words a page lacks, and a word no page has', async () => {
    const hits = await explained('vacuum zebra', true);
    for (const h of hits) assert.deepEqual(h.explain.missing, ['zebra'], `hit ${h.id}`);
    // No page holds both words: each hit holds one of them, and lacks the other.
    const partial = await index.search('storage analyze', { explain: true, exact: true });
    assert.equal(partial.partial, true);
    const held = new Map(partial.hits.map((h) => [h.id, h.explain!]));
    assert.deepEqual([...held.keys()].sort(), [1, 2, 3]);
    const [storage, analyze] = [held.get(3)!.words[0]!.word, held.get(2)!.words[0]!.word];
    assert.notEqual(storage, analyze);
    assert.deepEqual(held.get(3)!.missing, [analyze]);
    assert.deepEqual(held.get(2)!.missing, [storage]);
    assert.deepEqual(held.get(1)!.missing, [analyze]);
  });

  it('names the alternative that stood for a word: its completion, or its correction', async () => {
    const typing = (await explained('dead stor')).find((h) => h.id === 3)!;
    const stor = typing.explain.words.find((w) => w.word === 'stor')!;
    assert.equal(stor.own, false);
    assert.match(stor.term, /^stor/);
    // (Page 1 holds both words, one of them only as corrected.)
    const typo = (await explained('vacuum storaeg')).find((h) => h.id === 1)!;
    const corrected = typo.explain.words.find((w) => w.word !== 'vacuum')!;
    assert.equal(corrected.own, false);
    assert.match(corrected.term, /^storag/);
  });

  it('gives phrase evidence for words together, and none for one word', async () => {
    const together = (await explained('dead tuples', true)).find((h) => h.id === 1)!;
    assert.ok(together.explain.proximity > 1, `proximity ${together.explain.proximity}`);
    for (const h of await explained('vacuum', true)) assert.equal(h.explain.proximity, 1);
  });

  it('gives the exact-form bonus to the page that writes the word as typed', async () => {
    const accented = (await explained('résumé', true)).find((h) => h.id === 4)!;
    const plain = (await explained('résumé', true)).find((h) => h.id === 5)!;
    assert.ok(accented.explain.exactForms > 1, `résumé on page 4: ${accented.explain.exactForms}`);
    assert.equal(plain.explain.exactForms, 1);
  });

  it('is absent unless asked for', async () => {
    for (const h of (await index.search('vacuum')).hits) assert.equal(h.explain, undefined);
  });
});
