// Search over pages in many languages: each page stemmed (or segmented) by its language, each
// query by every language the index holds. The pages are testweb's, written for these tests.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../model/index.ts';
import { LANGUAGE_PAGES } from '../testweb/languages-web.ts';
import { analyze } from './ingest/analyze.ts';
import { DETECTED } from './ingest/language/detect.ts';
import { analysisLanguages, stemmerFor } from './ingest/tokenize.ts';
import { MANIFEST, readManifest, sealManifest } from './persistence/manifest.ts';
import { flushIndex, loadIndex } from './persistence/snapshot.ts';
import { MAX_QUERY_ALTERNATIVES, stemmersIn } from './query/languages.ts';
import { parseQuery } from './query/parse.ts';
import { SearchIndex } from './search-index.ts';
import { storedDocument } from './test-document.ts';

/** An index of `pages`; with `sequences`, phrases are checked on token sequences, else on the text. */
function indexOf(pages: readonly StoredDocument[], sequences = true): SearchIndex {
  const docs = new Map(pages.map((d) => [d.id, d]));
  const index = new SearchIndex(
    (id) => docs.get(id),
    undefined,
    {},
    (ids) => new Map(sequences ? ids.flatMap((id) => (docs.has(id) ? [[id, analyze(docs.get(id)!).sequence] as const] : [])) : []),
  );
  for (const d of pages) index.upsert(d);
  return index;
}

/** testweb's pages, their language detected (as the crawl records it). */
const pages = Object.entries(LANGUAGE_PAGES).map(([path, p], i) =>
  storedDocument(i + 1, { url: `http://example.org${path}`, title: p.title, text: p.text, lang: `${p.lang}${DETECTED}` }),
);
const paths = async (index: SearchIndex, q: string) => (await index.search(q, { exact: true })).hits.map((h) => new URL(h.url).pathname);

describe('search in many languages', () => {
  const index = indexOf(pages);

  it('finds each page by its words in other forms (stems), inside unspaced sentences (segments), without accents (folded)', async () => {
    for (const [path, page] of Object.entries(LANGUAGE_PAGES)) {
      for (const q of page.finds) assert.deepEqual(await paths(index, q), [path], `${path}: ${q}`);
    }
  });

  it('stems a query by each language present: a word is a group of its stems, scored once', () => {
    const q = parseQuery('Häuser', stemmersIn(index.stats.sources));
    assert.ok(q.groups[0]!.includes('haus') && q.groups[0]!.includes(stemmerFor('en').stem('hauser')), q.groups[0]!.join(' '));
    assert.equal(q.terms.length, 1);
  });

  it('checks phrases with the stems of each page\u2019s language, on its token sequence or its text', async () => {
    for (const withSequences of [true, false]) {
      const i = indexOf(pages, withSequences);
      assert.deepEqual(await paths(i, '"alten Haus"'), ['/de'], 'German, stemmed');
      assert.deepEqual(await paths(i, '"neuer Lesesaal"'), [], 'no such phrase');
      assert.deepEqual(await paths(i, '"новая читальный зал"'), ['/ru'], 'Russian, stemmed');
      assert.deepEqual(await paths(i, '"北京大学"'), ['/zh'], 'Chinese, segmented');
      assert.deepEqual(await paths(i, '"new reading rooms"'), ['/en']);
    }
  });

  it('marks the words of a page\u2019s language in its snippet', async () => {
    assert.match((await index.search('Haus')).hits[0]!.snippet, /alten <mark>Häuser<\/mark> am/);
    assert.match((await index.search('новая')).hits[0]!.snippet, /<mark>Новый<\/mark> читальный/);
    assert.match((await index.search('データベース')).hits[0]!.snippet, /新しい<mark>データベース<\/mark>の/);
  });

  it('filters and counts pages by their detected language', async () => {
    assert.deepEqual((await paths(index, 'lang:fr')).sort(), ['/fr', '/fr-header']);
    assert.deepEqual((await index.search('cheval')).facets.lang, [{ value: 'fr', count: 1 }]);
  });

  it('keeps the query bounded however many languages the index holds', () => {
    const q = parseQuery(Array.from({ length: 30 }, (_, i) => `wörter${i}`).join(' '), stemmersIn(index.stats.sources));
    assert.ok(q.groups.flat().length <= MAX_QUERY_ALTERNATIVES, String(q.groups.flat().length));
  });

  it('is rebuilt when built with other stemmers: the manifest records them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    await flushIndex(dir, index, 1);
    const { crc32: _, ...body } = readManifest(dir)!;
    assert.equal(body.languages, analysisLanguages());
    writeFileSync(join(dir, MANIFEST), JSON.stringify(sealManifest({ ...body, languages: 'language/1; en=porter' })));
    assert.throws(() => loadIndex(dir, new SearchIndex(() => undefined)), /other stemmers/);
  });

  it('weighs a word’s stems in other languages no more than its most frequent one (TeX Live: "pages" is Porter’s "pagesize")', async () => {
    // A page of a language without a stemmer (Yoruba, detected) makes the query's words stand
    // also for themselves unstemmed: "pages". In English pages that term is the stem of
    // "pagesize", in one page of many: it must not count as a word in one page would.
    const english = (id: number, title: string, text: string) => storedDocument(id, { url: `http://example.org/${id}`, title, text, lang: `en${DETECTED}` });
    const index = indexOf([
      english(1, 'Manual one', 'Select single pages for output.'),
      english(2, 'Manual two', 'Pagesize paper. Select single pages for output.'),
      ...Array.from({ length: 100 }, (_, i) => english(100 + i, `Chapter ${i}`, i % 2 ? 'A page of text, and another page.' : 'Some text.')),
      storedDocument(40, { url: 'http://example.org/yo', title: 'Ìròyìn', text: 'Ẹ kú àárọ̀, ẹ̀yin ará ilé wa.', lang: `yo${DETECTED}` }),
    ]);
    assert.ok(parseQuery('pages', stemmersIn(index.stats.sources)).groups[0]!.includes('pages'), 'the word unstemmed is one of its stems');
    assert.deepEqual(
      (await index.search('select single pages for output', { exact: true })).hits.map((h) => h.id).slice(0, 2),
      [1, 2],
      'the shorter page first: "pagesize" is no better a match for "pages" than "pages" is',
    );
  });

  it('is the query it always was in an index of one language', () => {
    const english = indexOf([pages.find((p) => p.url.endsWith('/en'))!]);
    const q = parseQuery('Borrowing novels', stemmersIn(english.stats.sources));
    assert.equal(q.languages, undefined);
    assert.deepEqual(q.groups, [['borrow'], ['novel']]);
  });
});

describe('folded forms rank below the exact form', () => {
  // Two pages alike but for the accents: each query finds both, the one written as asked first.
  const french = (id: number, text: string) => storedDocument(id, { url: `http://example.org/${id}`, title: 'Candidature', text, lang: 'fr' });
  const accented = french(1, 'Envoyez votre résumé avant vendredi, avec une lettre.');
  const plain = french(2, 'Envoyez votre resume avant vendredi, avec une lettre.');

  it('ranks the page with résumé first for résumé, and the one with resume first for resume', async () => {
    for (const order of [
      [accented, plain],
      [plain, accented],
    ]) {
      const index = indexOf(order);
      assert.deepEqual(await paths(index, 'résumé'), ['/1', '/2']);
      assert.deepEqual(await paths(index, 'resume'), ['/2', '/1']);
      assert.deepEqual(await paths(index, 'Résumé vendredi'), ['/1', '/2']);
    }
  });

  it('counts a page with both forms as writing each', async () => {
    const both = french(3, 'Envoyez votre résumé ou votre resume avant vendredi.');
    const index = indexOf([accented, both]);
    assert.equal((await index.search('resume')).hits[0]!.id, 3);
  });
});
