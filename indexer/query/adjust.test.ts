// The console's levers on a real index and over two shards: pins first in their order (matching the
// query or not), hides never, sections and clicks weighing the best, the total kept true.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import type { SearchOptions } from '../search-types.ts';
import { ShardedSearcher, type ShardTransport } from '../shards/coordinator.ts';
import { answerSearch, hitsOf, reportTerms } from '../shards/shard-node.ts';
import { simhash } from '../../lib/simhash.ts';
import { storedDocument } from '../test-document.ts';
import { type Adjustments, PINNED_SCORE } from './adjust.ts';

const url = (id: number) => `http://docs.test/${id < 5 ? 'manual' : 'blog'}/${id}`;
const DOCS: StoredDocument[] = Array.from({ length: 8 }, (_, i) =>
  storedDocument(i + 1, {
    url: url(i + 1),
    title: i === 7 ? 'Release notes' : `Vacuum ${'tuning '.repeat(i % 3)}${i + 1}`,
    text: i === 7 ? 'What changed in this release.' : `vacuum ${'vacuum '.repeat(7 - i)}reclaims storage of dead rows ${i + 1}`,
  }),
);
const byId = new Map(DOCS.map((d) => [d.id, d]));
const byUrl = new Map(DOCS.map((d) => [d.url, d.id]));

function indexOf(docs: readonly StoredDocument[]): SearchIndex {
  const index = new SearchIndex((id) => byId.get(id));
  index.idsOf = (urls) => new Map(urls.flatMap((u) => (byUrl.has(u) ? [[u, byUrl.get(u)!] as const] : [])));
  for (const d of docs) index.upsert(d);
  return index;
}
const none: Adjustments = { pin: [], hide: [], prefixes: [], learned: [] };
const urls = async (s: { search(q: string, o?: SearchOptions): Promise<{ hits: readonly { url: string }[] }> }, adjust?: Partial<Adjustments>) =>
  (await s.search('vacuum', adjust ? { adjust: { ...none, ...adjust } } : {})).hits.map((h) => h.url);

describe('the console’s levers (query/adjust.ts)', () => {
  const index = indexOf(DOCS);

  it('pins pages first in their order, a page without the words too, and counts them in the total', async () => {
    const plain = await urls(index);
    assert.ok(!plain.includes(url(8)));
    const r = await index.search('vacuum', { adjust: { ...none, pin: [url(8), plain[2]!, 'http://docs.test/unknown'] } });
    assert.deepEqual(
      r.hits.slice(0, 3).map((h) => h.url),
      [url(8), plain[2], plain[0]],
    );
    assert.deepEqual(r.hits[0]!.adjusted, { pinned: true });
    assert.equal(r.hits[0]!.score, PINNED_SCORE);
    assert.equal(r.hits.filter((h) => h.url === plain[2]).length, 1, 'a pinned result is not shown twice');
    assert.equal(r.total, (await index.search('vacuum')).total + 1);
  });

  it('hides pages, pinned or not, and takes them from the total', async () => {
    const r = await index.search('vacuum', { adjust: { ...none, hide: [url(1), url(8)], pin: [url(8)] } });
    assert.ok(!r.hits.some((h) => h.url === url(1) || h.url === url(8)));
    assert.equal(r.total, (await index.search('vacuum')).total - 1);
  });

  it('weighs a section (a URL prefix) and what clicks taught, and says so', async () => {
    const plain = await urls(index);
    const blog = plain.filter((u) => u.includes('/blog/'));
    assert.notEqual(plain[0], blog[0]);
    const boosted = await index.search('vacuum', { adjust: { ...none, prefixes: [{ prefix: 'http://docs.test/blog/', factor: 10 }] } });
    assert.equal(boosted.hits[0]!.url, blog[0]);
    assert.deepEqual(boosted.hits[0]!.adjusted, { section: 10 });
    const buried = await urls(index, { prefixes: [{ prefix: 'http://docs.test/manual/', factor: 0.1 }] });
    assert.deepEqual(buried.slice(0, blog.length), blog);
    const learned = await index.search('vacuum', { adjust: { ...none, learned: [{ url: plain[1]!, factor: 5 }] } });
    assert.equal(learned.hits[0]!.url, plain[1]);
    assert.deepEqual(learned.hits[0]!.adjusted, { clicks: 5 });
    assert.deepEqual(await urls(index, {}), await urls(index), 'no levers: the ranking as it was');
  });

  it('folds nothing under a pin, and keeps the pins in their order whatever phrase evidence says', async () => {
    const text = 'Zeta functions of curves over finite fields, and their zeros. The Riemann hypothesis for curves.';
    const near = [
      storedDocument(11, { url: 'http://docs.test/zeta', title: 'Zeta functions', text, simhash: simhash(text)! }),
      storedDocument(12, { url: 'http://docs.test/mirror', title: 'A mirror', text: `${text} Mirror.`, simhash: simhash(text)! }),
      storedDocument(13, { url: 'http://docs.test/other', title: 'Other', text: 'Nothing of the kind here.' }),
    ];
    const docs = new Map(near.map((d) => [d.id, d]));
    const own = new SearchIndex((id) => docs.get(id));
    own.idsOf = (urls) => new Map(urls.flatMap((u) => near.filter((d) => d.url === u).map((d) => [u, d.id] as const)));
    for (const d of near) own.upsert(d);
    const plain = await own.search('zeta functions');
    assert.equal(plain.hits.length, 1, 'the mirror folds under the page');
    const pinned = await own.search('zeta functions', { adjust: { ...none, pin: ['http://docs.test/other', 'http://docs.test/mirror'] } });
    assert.deepEqual(
      pinned.hits.map((h) => [h.url, h.similar?.length ?? 0]),
      [
        ['http://docs.test/other', 0],
        ['http://docs.test/mirror', 0],
        ['http://docs.test/zeta', 0],
      ],
    );
  });

  it('over two shards, as on one node', async () => {
    const shards = [DOCS.filter((d) => d.id % 2 === 0), DOCS.filter((d) => d.id % 2 === 1)].map(indexOf);
    const wire = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;
    const transport: ShardTransport = {
      shards: ['even', 'odd'],
      terms: async (i, asked) => wire(await reportTerms(shards[i]!, wire(asked))),
      search: async (i, asked) => wire(await answerSearch(shards[i]!, wire(asked))),
      suggest: async () => [],
      hits: async (i, asked) => wire(await hitsOf(shards[i]!, asked.ids, asked.marked)),
      info: async (i) => ({ documents: shards[i]!.documentCount, version: shards[i]!.version }),
    };
    const coordinator = new ShardedSearcher(transport, index.foldDistance);
    for (const adjust of [{ pin: [url(8), url(3)] }, { hide: [url(1)] }, { prefixes: [{ prefix: 'http://docs.test/blog/', factor: 10 }] }]) {
      assert.deepEqual(await urls(coordinator, adjust), await urls(index, adjust), JSON.stringify(adjust));
    }
  });
});
