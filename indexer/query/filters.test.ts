import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { flushIndex, loadIndex } from '../persistence/snapshot.ts';
import { SearchIndex } from '../search-index.ts';
import { languageOf, typeOf } from '../ingest/source.ts';
import { storedDocument } from '../test-document.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

describe('a page\u2019s source: language and type', () => {
  it('keeps a language tag\u2019s primary subtag, and nothing that is not one', () => {
    assert.equal(languageOf('en-US'), 'en');
    assert.equal(languageOf(' FR '), 'fr');
    assert.equal(languageOf('zh_Hant'), 'zh');
    assert.equal(languageOf(undefined), '');
    assert.equal(languageOf('x'), '');
    assert.equal(languageOf('<script>'), '');
  });

  it('names a content type briefly', () => {
    assert.equal(typeOf('text/html; charset=utf-8'), 'html');
    assert.equal(typeOf('application/xhtml+xml'), 'html');
    assert.equal(typeOf('text/plain'), 'text');
    assert.equal(typeOf('application/pdf'), 'pdf');
    assert.equal(typeOf(''), 'html', 'a page without a type was parsed as HTML');
  });
});

// Pages in English, French and without a language, as HTML and plain text, on two hosts — enough
// of them that "common" is in two-pass territory with the low thresholds below.
const pages: StoredDocument[] = Array.from({ length: 60 }, (_, i) => {
  const id = i + 1;
  const lang = ['en-GB', 'fr', undefined][i % 3];
  return storedDocument(id, {
    url: `http://${i % 2 ? 'a' : 'b'}.example/${id}`,
    title: `Page ${id}`,
    text: `common words here ${i % 4 === 0 ? 'rare' : ''}`,
    contentType: i % 5 === 0 ? 'text/plain' : 'text/html',
    ...(lang ? { lang } : {}),
    // A focused crawl's classes: every 3rd page "coins", every 4th "history" too (or alone).
    ...(i % 3 === 0 || i % 4 === 0
      ? { topic: { score: 20, classes: [...(i % 3 === 0 ? [{ name: 'coins', score: 15 }] : []), ...(i % 4 === 0 ? [{ name: 'history', score: 5 }] : [])] } }
      : {}),
  });
});
const topics = (p: StoredDocument) => (p.topic?.classes ?? []).map((c) => c.name);
const byId = new Map(pages.map((p) => [p.id, p]));
const expected = (test: (p: StoredDocument) => boolean) =>
  pages
    .filter(test)
    .map((p) => p.id)
    .sort((a, b) => a - b);
const lang = (p: StoredDocument) => languageOf(p.lang);
const type = (p: StoredDocument) => typeOf(p.contentType);

for (const [name, tuning] of [
  ['scored exactly', { exactLimit: 1e9, headDf: 1e9 }],
  ['in two passes', { exactLimit: 5, headDf: 5 }],
] as const) {
  describe(`lang: and type: filters and facets (${name})`, () => {
    const index = new SearchIndex((id) => byId.get(id), undefined, tuning);
    for (const p of pages) index.upsert(p);
    const ids = async (q: string) => (await index.search(q, { size: 100 })).hits.map((h) => h.id).sort((a, b) => a - b);

    it('keeps the pages of a language or a type, alone or with words and other filters', async () => {
      assert.deepEqual(
        await ids('common lang:en'),
        expected((p) => lang(p) === 'en'),
      );
      assert.deepEqual(
        await ids('common lang:fr lang:en'),
        expected((p) => lang(p) === 'fr' || lang(p) === 'en'),
        'one kind: ORed',
      );
      assert.deepEqual(
        await ids('common type:text'),
        expected((p) => type(p) === 'text'),
      );
      assert.deepEqual(
        await ids('rare lang:fr type:html'),
        expected((p) => p.text.includes('rare') && lang(p) === 'fr' && type(p) === 'html'),
      );
      assert.deepEqual(
        await ids('common site:a.example lang:en'),
        expected((p) => p.url.includes('a.example') && lang(p) === 'en'),
      );
      assert.deepEqual(
        await ids('lang:fr'),
        expected((p) => lang(p) === 'fr'),
        'a filter alone lists its pages',
      );
      assert.deepEqual(await ids('common lang:de'), []);
    });

    it('keeps the pages filed under a topic (any of several), alone or with words and other filters', async () => {
      assert.deepEqual(
        await ids('common topic:coins'),
        expected((p) => topics(p).includes('coins')),
      );
      assert.deepEqual(
        await ids('common topic:history topic:coins'),
        expected((p) => topics(p).length > 0),
        'one kind: ORed',
      );
      assert.deepEqual(
        await ids('rare topic:History lang:fr'),
        expected((p) => p.text.includes('rare') && topics(p).includes('history') && lang(p) === 'fr'),
      );
      assert.deepEqual(
        await ids('topic:history'),
        expected((p) => topics(p).includes('history')),
        'a filter alone lists its pages',
      );
      assert.deepEqual(await ids('common topic:stamps'), []);
    });

    it('counts results by topic, a page under each of its classes', async () => {
      assert.deepEqual((await index.search('common')).facets.topic, [
        { value: 'coins', count: 20 },
        { value: 'history', count: 15 },
      ]);
      assert.deepEqual((await index.search('common topic:history')).facets.topic, [
        { value: 'history', count: 15 },
        { value: 'coins', count: 5 },
      ]);
      assert.deepEqual((await index.search('common', { size: 100 })).hits.find((h) => h.id === 1)?.topics, ['coins', 'history'], 'hits name their classes');
    });

    it('counts results by language and type (pages of unknown language left out of that facet)', async () => {
      const { facets, total } = await index.search('common');
      assert.equal(total, 60);
      assert.deepEqual(facets.lang, [
        { value: 'en', count: 20 },
        { value: 'fr', count: 20 },
      ]);
      assert.deepEqual(facets.type, [
        { value: 'html', count: 48 },
        { value: 'text', count: 12 },
      ]);
      assert.deepEqual(facets.host, [
        { value: 'a.example', count: 30 },
        { value: 'b.example', count: 30 },
      ]);
      assert.deepEqual((await index.search('rare lang:fr')).facets.lang, [
        { value: 'fr', count: expected((p) => p.text.includes('rare') && lang(p) === 'fr').length },
      ]);
    });

    it('follows a page whose language changes', async () => {
      const p = { ...pages[0]!, lang: 'de' };
      byId.set(p.id, p);
      index.upsert(p);
      assert.deepEqual(await ids('common lang:de'), [p.id]);
      assert.ok(!(await ids('common lang:en')).includes(p.id));
      byId.set(p.id, pages[0]!);
      index.upsert(pages[0]!);
      assert.deepEqual(await ids('common lang:de'), []);
    });
  });
}

describe('sources in a flushed index', () => {
  it('are written and loaded with it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-sources-'));
    try {
      const index = new SearchIndex((id) => byId.get(id));
      for (const p of pages) index.upsert(p);
      await flushIndex(dir, index, 1);
      const loaded = new SearchIndex((id) => byId.get(id));
      loadIndex(dir, loaded);
      for (const q of ['common lang:fr', 'common type:text site:b.example', 'lang:en', 'common topic:history']) {
        assert.deepEqual(
          (await loaded.search(q, { size: 100 })).hits.map((h) => h.id),
          (await index.search(q, { size: 100 })).hits.map((h) => h.id),
          q,
        );
      }
      assert.deepEqual((await loaded.search('common')).facets, (await index.search('common')).facets);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
