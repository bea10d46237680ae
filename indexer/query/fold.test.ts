// Near-duplicates fold under the better result: mirrors, print views and the same page of another
// version of the docs; distinct pages that share a site's template do not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { withoutTemplate, lineHash } from '../../crawler/parse/blocks.ts';
import { hammingDistance, simhash } from '../../lib/simhash.ts';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { fold } from './fold.ts';
import { SimHashes } from '../structures/simhashes.ts';

const WORDS = (
  'table index vacuum query planner row column tuple page buffer cache write ahead log replica primary standby lock transaction commit ' +
  'rollback snapshot isolation level function trigger view schema role grant revoke sequence type array range json text number date time ' +
  'zone interval backup restore archive segment checkpoint statistics analyze cost estimate join hash merge nested loop scan bitmap heap ' +
  'toast storage tablespace cluster database server client connection session parameter setting memory disk'
).split(' ');
/** Deterministic prose about `topic`: `n` sentences of a seeded generator. */
function prose(seed: number, topic: string, n = 30): string {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % WORDS.length;
  return Array.from({ length: n }, (_, s) => `The ${topic} ${Array.from({ length: 8 + (s % 5) }, () => WORDS[next()]).join(' ')}.`).join('\n');
}

function indexOf(docs: readonly StoredDocument[], maxDistance = 3): SearchIndex {
  const byId = new Map(docs.map((d) => [d.id, d]));
  const index = new SearchIndex((id) => byId.get(id));
  index.foldDistance = maxDistance;
  for (const d of docs) index.upsert(d);
  return index;
}
const page = (id: number, url: string, title: string, text: string) =>
  storedDocument(id, { url, title, text, ...(simhash(text) ? { simhash: simhash(text)! } : {}) });

describe('folding near-duplicates', () => {
  const manual = prose(7, 'autovacuum');
  const docs = [
    page(1, 'https://docs.example.org/15/routine-vacuuming.html', 'Routine Vacuuming (PostgreSQL 15)', `PostgreSQL 15 documentation\n${manual}`),
    page(
      2,
      'https://mirror.example.net/docs/15/routine-vacuuming.html',
      'Routine Vacuuming (mirror)',
      `PostgreSQL 15 documentation\n${manual}\nMirrored by example.net`,
    ),
    page(3, 'https://docs.example.org/15/routine-vacuuming.html?print=1', 'Routine Vacuuming — print', `Printed from docs.example.org\n${manual}`),
    page(
      4,
      'https://docs.example.org/16/routine-vacuuming.html',
      'Routine Vacuuming (PostgreSQL 16)',
      `PostgreSQL 16 documentation\n${manual.replace(/15/g, '16')}`,
    ),
    page(5, 'https://docs.example.org/15/vacuum-tuning.html', 'Tuning autovacuum', prose(8, 'autovacuum')),
  ];

  it('shows mirrors, print views and other versions of a page as similar pages under the best of them', async () => {
    const r = await indexOf(docs).search('autovacuum');
    assert.equal(r.total, 5, 'every page still matches');
    assert.equal(r.hits.length, 2);
    const group = r.hits.find((h) => h.id !== 5)!;
    assert.deepEqual(new Set([group.id, ...group.similar!.map((s) => docs.find((d) => d.url === s.url)!.id)]), new Set([1, 2, 3, 4]));
    assert.ok(group.similar!.every((s) => s.title.startsWith('Routine Vacuuming')));
    assert.equal(r.hits.find((h) => h.id === 5)!.similar, undefined, 'another page about the same thing is not a near-duplicate');
  });

  it('folds nothing with maxDistance 0', async () => {
    assert.equal((await indexOf(docs, 0).search('autovacuum')).hits.length, 5);
  });

  it('keeps distinct pages of one template apart once the template is out of their text', async () => {
    // A site whose pages share a large sidebar and differ by a paragraph each.
    const sidebar = prose(99, 'sidebar', 150);
    const raw = Array.from({ length: 12 }, (_, i) => `${sidebar}\n${prose(200 + i, 'install', 3)}`);
    const template = Uint32Array.from(sidebar.split('\n').map(lineHash)).sort();
    const clean = raw.map((t) => withoutTemplate(t, template)!);
    const close = (texts: string[]) => texts.filter((t, i) => i > 0 && hammingDistance(simhash(t)!, simhash(texts[0]!)!) <= 3).length;
    assert.ok(close(raw) > 0, 'with its template in, the site\u2019s pages look alike');
    assert.equal(close(clean), 0);
    const r = await indexOf(clean.map((t, i) => page(10 + i, `https://site.example/p${i}`, `Page ${i}`, t))).search('install', { size: 20 });
    assert.equal(r.hits.length, 12);
    assert.ok(r.hits.every((h) => !h.similar));
  });

  it('never makes a result page shorter: it takes more candidates while more results exist', async () => {
    // 60 pages: ten originals, each with five mirrors (the same page on other hosts) that rank
    // right after it — each original says "replication" a different number of times.
    const all: StoredDocument[] = [];
    for (let o = 0; o < 10; o++) {
      const text = `${prose(300 + o, 'cluster')}\n${'replication '.repeat(10 - o)}`;
      for (let m = 0; m < 6; m++) all.push(page(o * 6 + m + 1, `https://m${m}.example/${o}`, `Replication, part ${o}`, text));
    }
    const index = indexOf(all);
    const one = await index.search('replication', { size: 5 });
    assert.equal(one.hits.length, 5);
    assert.ok(
      one.hits.every((h) => h.similar?.length === 5),
      'each with its mirrors',
    );
    const two = await index.search('replication', { size: 5, page: 2 });
    assert.equal(two.hits.length, 5);
    const seen = [...one.hits, ...two.hits].flatMap((h) => [h.url, ...h.similar!.map((s) => s.url)]);
    assert.equal(new Set(seen).size, 60, 'every page once, on one result page or under one result');
  });

  it('lists ten similar pages at most, and counts the rest', async () => {
    const text = prose(400, 'checkpoint');
    const r = await indexOf(Array.from({ length: 14 }, (_, i) => page(i + 1, `https://m${i}.example/`, `Checkpoints ${i}`, text))).search('checkpoint');
    assert.equal(r.hits.length, 1);
    assert.equal(r.hits[0]!.similar!.length, 10);
    assert.equal(r.hits[0]!.moreSimilar, 3);
  });
});

describe('fold', () => {
  it('joins a result to the first leader within the distance, found through band buckets', () => {
    const s = new SimHashes();
    s.set(1, '0000000000000000');
    s.set(2, '0000000000000007'); // 3 bits from 1
    s.set(3, 'ffffffffffffffff');
    s.set(4, '000000000000000f'); // 4 bits from 1, 1 from 2 (which is not a leader)
    const ranked = [1, 2, 3, 4, 5].map((id) => ({ id, score: 10 - id }));
    assert.deepEqual(
      fold(ranked, s, 3, 10).map((g) => [g.leader.id, g.similar.map((r) => r.id)]),
      [
        [1, [2]],
        [3, []],
        [4, []],
        [5, []],
      ],
    );
    assert.deepEqual(
      fold(ranked, s, 4, 10).map((g) => [g.leader.id, g.similar.map((r) => r.id)]),
      [
        [1, [2, 4]],
        [3, []],
        [5, []],
      ],
    );
    assert.deepEqual(
      fold(ranked, s, 3, 2).map((g) => g.leader.id),
      [1, 3],
      'leaders until the page is full; later ones only join',
    );
  });
});
