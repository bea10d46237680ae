import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { hostMatches, MAX_QUERY_LENGTH, parseQuery, QueryError } from './parse.ts';
import { editDistance } from '../../lib/edit-distance.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';

describe('parseQuery', () => {
  it('reads words, phrases, OR, exclusions and site:', () => {
    const q = parseQuery('Vacuum OR analyze "point in time" -Deprecated site:Docs.Example.org tables');
    assert.deepEqual(q.groups, [['vacuum', 'analyz'], ['point'], ['in'], ['time'], ['tabl']]);
    assert.deepEqual(q.phrases, [['point', 'in', 'time']]);
    assert.deepEqual(q.excluded, ['deprec']);
    assert.deepEqual(q.sites, ['docs.example.org']);
    assert.deepEqual(q.terms, ['vacuum', 'analyz', 'point', 'in', 'time', 'tabl']);
  });

  it('reads lang: (its primary subtag) and type: filters, each kind ORed', () => {
    const q = parseQuery('vacuum lang:en-US type:HTML lang:FR type:text lang:en');
    assert.deepEqual(q.langs, ['en', 'fr']);
    assert.deepEqual(q.types, ['html', 'text']);
    assert.deepEqual(q.groups, [['vacuum']], 'filters are not words');
    assert.throws(() => parseQuery('x lang:'), /lang: needs a language code/);
    assert.throws(() => parseQuery('x lang:123'), /lang: needs a language code/);
    assert.throws(() => parseQuery('x type:'), /type: needs a page type/);
    assert.throws(() => parseQuery('x -lang:de'), /-lang: is not supported/);
    assert.deepEqual(parseQuery('coins topic:Numismatics topic:art.deco').topics, ['numismatics', 'art.deco'], 'classes as topic files write them, lowercased');
    assert.throws(() => parseQuery('coins topic:'), /topic: needs a class of the topic/);
    assert.throws(() => parseQuery('coins topic:a/b'), /topic: needs a class of the topic/);
    assert.throws(() => parseQuery(Array.from({ length: 9 }, (_, i) => `type:t${i}`).join(' ')), /too many type: filters/);
  });

  it('reads a kind of document in type: as the formats it stands for', () => {
    assert.deepEqual(parseQuery('x type:pdf').types, ['pdf']);
    assert.deepEqual(parseQuery('x type:slides').types, ['pptx', 'odp']);
    assert.deepEqual(parseQuery('x type:spreadsheet type:xlsx').types, ['xlsx', 'ods']);
    assert.deepEqual(parseQuery('x type:office').types, ['docx', 'pptx', 'xlsx', 'odt', 'odp', 'ods']);
    assert.deepEqual(parseQuery('x type:md').types, ['markdown']);
    for (const name of ['constructor', 'tostring', 'valueof']) assert.deepEqual(parseQuery(`x type:${name}`).types, [name], 'no alias from Object.prototype');
  });

  it('treats a lowercase or as a word, and a leading OR as nothing', () => {
    assert.deepEqual(parseQuery('this or that').groups, [['thi'], ['or'], ['that']]);
    assert.deepEqual(parseQuery('OR alone').groups, [['alon']]);
  });

  it('marks a bare word that does not follow the one before it (a synonym of several words needs consecutive words)', () => {
    const apart = (q: string) => parseQuery(q).loose.map((w) => `${w.term}${w.apart ? '!' : ''}`);
    assert.deepEqual(apart('long running max_conn'), ['long', 'run', 'max', 'conn']);
    assert.deepEqual(apart('long OR running'), ['long', 'run!']);
    assert.deepEqual(apart('long +x running vs y site:a.org z'), ['long', 'run!', 'y!', 'z!']);
    assert.deepEqual(apart('a long running "long z"'), ['a', 'run!'], 'a word also in a phrase is left out: the next is apart');
  });

  it('reads "vs" after a word as a comparison of the words around it, not as a word', () => {
    assert.deepEqual(parseQuery('varchar vs text').groups, [['varchar'], ['text']]);
    assert.deepEqual(parseQuery('Copy VS. Clone versus move').groups, [['copi'], ['clone'], ['move']]);
    assert.deepEqual(
      parseQuery('varchar vs text').loose.map((w) => w.term),
      ['varchar', 'text'],
    );
    assert.equal(parseQuery('copy vs').last, undefined, 'a comparison being typed completes no word');
    assert.deepEqual(parseQuery('vs code').groups, [['vs'], ['code']], 'first, it is a word');
    assert.deepEqual(parseQuery('copy +vs').groups, [['copi'], ['vs']], '+vs is the word');
    assert.deepEqual(parseQuery('"copy vs clone"').phrases, [['copi', 'vs', 'clone']], 'in a phrase, the word');
  });

  it('refuses what it cannot run quickly or at all, with a clear message', () => {
    assert.throws(() => parseQuery('x'.repeat(MAX_QUERY_LENGTH + 1)), QueryError);
    assert.throws(() => parseQuery(Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ')), /too many terms/);
    assert.throws(() => parseQuery('site:'), /site: needs a host/);
    assert.throws(() => parseQuery('x -site:a.org'), /-site: is not supported/);
  });

  it('survives garbage: control characters, lone surrogates, unbalanced quotes', () => {
    assert.deepEqual(parseQuery('\u0000\ud800 "unclosed phrase here').phrases, [['unclos', 'phrase', 'here']]);
    assert.deepEqual(parseQuery('"" --- OR').groups, []);
  });
});

describe('host and spelling helpers', () => {
  it('hostMatches takes subdomains, not look-alikes', () => {
    assert.ok(hostMatches('docs.example.org', 'example.org'));
    assert.ok(!hostMatches('badexample.org', 'example.org'));
  });
  it('editDistance counts a transposition as one edit', () => {
    assert.equal(editDistance('vacuum', 'vacuum', 2), 0);
    assert.equal(editDistance('vacum', 'vacuum', 2), 1);
    assert.equal(editDistance('vacuum', 'vacuum'.replace('cu', 'uc'), 2), 1);
    assert.equal(editDistance('abcdef', 'uvwxyz', 2), 3);
  });
});

describe('the query language against an index', () => {
  const pages: StoredDocument[] = [
    [1, 'http://a.org/vacuum', 'Routine vacuuming', 'Run vacuum regularly to reclaim space. Point in time recovery is elsewhere.'],
    [2, 'http://a.org/analyze', 'Analyze', 'Analyze collects statistics about tables.'],
    [3, 'http://b.org/pitr', 'Recovery', 'Continuous archiving allows point in time recovery of the cluster.'],
    [4, 'http://docs.b.org/time', 'Time types', 'A point of time, in time zones.'],
  ].map(([id, url, title, text]) => storedDocument(id as number, { url: url as string, title: title as string, text: text as string, bytes: 1 }));
  const byId = new Map(pages.map((p) => [p.id, p]));
  const index = new SearchIndex((id) => byId.get(id));
  for (const p of pages) index.upsert(p);
  const ids = async (q: string) => (await index.search(q)).hits.map((h) => h.id).sort();

  it('OR widens, exclusion narrows', async () => {
    assert.deepEqual(await ids('vacuum OR analyze'), [1, 2]);
    assert.deepEqual(await ids('recovery -archiving'), [1]);
  });

  it('ranks the page comparing two things above one that merely says "vs" beside them', async () => {
    const docs = [
      storedDocument(1, {
        url: 'http://c.org/types',
        title: 'Character types: varchar and text',
        text: 'Use text or varchar; the difference is a length limit.',
        bytes: 1,
      }),
      storedDocument(2, { url: 'http://c.org/misc', title: 'Miscellany', text: 'A note on varchar, text, and tabs vs spaces.', bytes: 1 }),
    ];
    const own = new SearchIndex((id) => docs[id - 1]);
    for (const d of docs) own.upsert(d);
    assert.deepEqual(
      (await own.search('varchar vs text')).hits.map((h) => h.id),
      [1, 2],
    );
  });

  it('an exact phrase needs its words adjacent and in order', async () => {
    assert.deepEqual(await ids('point time'), [1, 3, 4]);
    assert.deepEqual(await ids('"point in time"'), [1, 3]);
    assert.deepEqual(await ids('"time in point"'), []);
  });

  it('site: keeps one host and its subdomains, and facets count results by host', async () => {
    assert.deepEqual(await ids('time site:b.org'), [3, 4]);
    assert.deepEqual(await ids('site:a.org'), [1, 2], 'a filter alone lists the host\u2019s pages');
    assert.deepEqual((await index.search('time')).facets.host, [
      { value: 'a.org', count: 1 },
      { value: 'b.org', count: 1 },
      { value: 'docs.b.org', count: 1 },
    ]);
  });

  it('suggests the closest known word, as pages spell it, when a word is unknown', async () => {
    // (exact: forgiving search would correct the words itself, and need no suggestion.)
    const r = await index.search('vacum regularly', { exact: true });
    assert.ok(r.partial, 'no page has both words: pages with one of them, flagged');
    assert.equal(r.suggestion, 'vacuum regularly');
    assert.equal((await index.search('Recovry', { exact: true })).suggestion, 'recovery');
    assert.equal((await index.search('vacuum')).suggestion, undefined);
    assert.equal((await index.search('zzzzzzzz')).suggestion, undefined, 'nothing close enough');
  });
});

describe('CJK search', () => {
  it('finds a Japanese or Chinese page by a word inside a sentence without spaces', async () => {
    const page = (id: number, text: string): StoredDocument => storedDocument(id, { url: `http://jp.example/${id}`, title: 'ページ', text, bytes: 1 });
    const pages = [page(1, '東京都に住んでいます。'), page(2, '我喜欢搜索引擎。'), page(3, '京都の寺')];
    const byId = new Map(pages.map((p) => [p.id, p]));
    const index = new SearchIndex((id) => byId.get(id));
    for (const p of pages) index.upsert(p);
    assert.deepEqual(
      (await index.search('東京')).hits.map((h) => h.id),
      [1],
    );
    assert.deepEqual(
      (await index.search('搜索')).hits.map((h) => h.id),
      [2],
    );
    assert.deepEqual(
      (await index.search('京都')).hits.map((h) => h.id),
      [3],
      'not the 京 of 東京都',
    );
  });
});
