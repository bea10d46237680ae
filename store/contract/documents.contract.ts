/** The contract of the document store, the change log and inbound link text. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_ANCHOR_TEXT, MAX_ANCHORS_READ } from '../anchors.ts';
import type { Store } from '../store.ts';
import { doc, T0, taken, withStore, type StoreFactory } from './harness.ts';

/** URL records for these paths of e.org; returns their ids (documents are keyed by them). */
async function ids(s: Store, ...paths: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const p of paths) out.push((await taken(s, `http://e.org/${p}`)).id);
  return out;
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

export function documentContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('documents and the change log', () => {
    it(
      'stores, replaces and removes documents, logging every change in order',
      test(async (s) => {
        const [one, two, three] = await ids(s, '1', '2', '3');
        const a = await s.documents.put(doc(one!, 'one'));
        const b = await s.documents.put(doc(two!, 'two'));
        const c = await s.documents.put(doc(one!, 'one again'));
        const d = await s.documents.remove(two!);
        assert.equal(await s.documents.remove(9999), undefined, 'removing a missing document logs nothing');
        assert.deepEqual(await s.documents.get(one!), doc(one!, 'one again'));
        assert.equal(await s.documents.get(two!), undefined);
        assert.equal(await s.documents.has(one!), true);
        assert.equal(await s.documents.has(two!), false);
        assert.deepEqual(
          (await s.changes.since(a)).map((x) => [x.seq, x.docId, x.op]),
          [
            [b, two, 'put'],
            [c, one, 'put'],
            [d, two, 'remove'],
          ],
        );
        assert.equal(await s.changes.lastSeq(), d);
        await s.changes.prune(c);
        assert.deepEqual(
          (await s.changes.since(0)).map((x) => x.op),
          ['remove'],
        );
        assert.equal(await s.documents.count(), 1);
        assert.deepEqual(
          (await collect(s.documents.all())).map((x) => x.id),
          [one],
        );
        await s.changes.prune(d!);
        assert.equal(await s.changes.lastSeq(), d, 'the last sequence survives pruning every change');
        assert.ok((await s.documents.put(doc(three!, 'three'))) > d!);
      }),
    );

    it(
      'reads several documents at once, and streams them all in id order',
      test(async (s) => {
        const all = await ids(s, 'a', 'b', 'c');
        for (const id of [...all].reverse()) await s.documents.put(doc(id, `text ${id}`));
        const many = await s.documents.getMany([all[2]!, 424242, all[0]!]);
        assert.deepEqual(
          [...many.keys()].sort((x, y) => x - y),
          [all[0], all[2]],
        );
        assert.equal(many.get(all[2]!)!.text, `text ${all[2]}`);
        assert.deepEqual(
          (await collect(s.documents.all())).map((x) => x.id),
          all,
        );
      }),
    );

    it(
      'keeps a document\u2019s language, topic, and their absence',
      test(async (s) => {
        const [id] = await ids(s, 'fr');
        const topic = {
          score: 12.5,
          classes: [
            { name: 'coins', score: 10 },
            { name: 'history', score: 2.5 },
          ],
        };
        await s.documents.put(doc(id!, 'trois', { lang: 'fr-CA', topic }));
        assert.deepEqual(await s.documents.get(id!), doc(id!, 'trois', { lang: 'fr-CA', topic }));
        await s.documents.put(doc(id!, 'three'));
        assert.deepEqual(await s.documents.get(id!), doc(id!, 'three'));
      }),
    );

    it(
      'keeps a document\u2019s format and facts (a PDF\u2019s pages and where each begins), and their absence',
      test(async (s) => {
        const [id] = await ids(s, 'pdf');
        const document = {
          format: 'pdf' as const,
          author: 'Ada',
          subject: 'Engines',
          keywords: 'a, b',
          created: '2026-01-02T03:04:05.000Z',
          modified: '2026-02-03T04:05:06.000Z',
          pages: 3,
          pageOffsets: [0, 120, 250],
          pagesCut: 2,
        };
        await s.documents.put(doc(id!, 'pages', { contentType: 'application/pdf', document }));
        assert.deepEqual(await s.documents.get(id!), doc(id!, 'pages', { contentType: 'application/pdf', document }));
        assert.deepEqual((await s.documents.getMany([id!])).get(id!)?.document, document);
        await s.documents.put(doc(id!, 'html again'));
        assert.equal((await s.documents.get(id!))?.document, undefined);
      }),
    );

    it(
      'keeps the fragment ids of a page\u2019s headings, and their absence, through a replacement',
      test(async (s) => {
        const [a, b] = await ids(s, 'error-index.html', 'plain.html');
        const headingIds: [string, string][] = [
          ['E0382', 'E0382'],
          ['Borrow of a moved value', 'moved-value'],
          ['ツ and ü', 'tsu-%C3%BC'],
        ];
        await s.documents.put(doc(a!, 'codes', { headings: headingIds.map(([h]) => h), headingIds }));
        await s.documents.put(doc(b!, 'plain'));
        assert.deepEqual((await s.documents.get(a!))?.headingIds, headingIds);
        assert.deepEqual((await s.documents.getMany([a!])).get(a!)?.headingIds, headingIds);
        assert.equal((await s.documents.get(b!))?.headingIds, undefined);
        await s.documents.put(doc(a!, 'codes, without ids now'));
        assert.equal((await s.documents.get(a!))?.headingIds, undefined, 'a new copy without ids has none');
      }),
    );

    it(
      'reads a document with only its text\u2019s start when asked (characters, not bytes), and whole otherwise',
      test(async (s) => {
        const [a, b] = await ids(s, 'long.html', 'short.html');
        const headingIds: [string, string][] = [['Crème', 'creme']];
        const long = doc(a!, `Déjà vu ツ 😀 ${'word '.repeat(2000)}end`, { headings: ['Crème'], headingIds, lang: 'fr' });
        await s.documents.put(long);
        await s.documents.put(doc(b!, 'short'));
        const start = await s.documents.get(a!, 11);
        // (Eleven characters: the emoji is one, of two UTF-16 units.)
        assert.deepEqual(start, { ...long, text: 'Déjà vu ツ 😀' });
        assert.deepEqual(await s.documents.get(a!), long);
        assert.deepEqual(await s.documents.get(b!, 12), doc(b!, 'short'), 'a shorter text is whole');
        assert.equal(await s.documents.get(424242, 12), undefined);
      }),
    );

    it(
      'keeps a document\u2019s SimHash and its absence, and streams every SimHash in id order',
      test(async (s) => {
        const [a, b, c] = await ids(s, 'near-a', 'near-b', 'short');
        await s.documents.put(doc(b!, 'mirror', { simhash: '00000000ffffffff' }));
        await s.documents.put(doc(a!, 'original', { simhash: 'f00dcafe12345678' }));
        await s.documents.put(doc(c!, 'too short'));
        assert.deepEqual(await s.documents.get(a!), doc(a!, 'original', { simhash: 'f00dcafe12345678' }));
        assert.equal((await s.documents.get(c!))?.simhash, undefined);
        assert.deepEqual(await collect(s.documents.simhashes()), [
          [a, 'f00dcafe12345678'],
          [b, '00000000ffffffff'],
        ]);
        await s.documents.put(doc(a!, 'changed and now short'));
        assert.deepEqual(await collect(s.documents.simhashes()), [[b, '00000000ffffffff']], 'a new copy without one has none');
        await s.documents.remove(b!);
        assert.deepEqual(await collect(s.documents.simhashes()), []);
      }),
    );

    it(
      'lists the documents stored under a host\u2019s URLs, in id order',
      test(async (s) => {
        const [one, two] = await ids(s, 'one', 'two');
        const other = (await taken(s, 'http://other.org/x')).id;
        await ids(s, 'never-stored');
        for (const id of [two!, other, one!]) await s.documents.put(doc(id, `text ${id}`));
        assert.deepEqual(await s.documents.idsOfHost('e.org'), [one, two]);
        assert.deepEqual(await s.documents.idsOfHost('other.org'), [other]);
        assert.deepEqual(await s.documents.idsOfHost('nowhere.org'), []);
      }),
    );

    it(
      'keeps a document\u2019s token sequence with its stemming, until the document changes or goes',
      test(async (s) => {
        const [four, five] = await ids(s, '4', '5');
        await s.documents.put(doc(four!, 'four'), { tokens: Uint32Array.from([0, 7, 0xffffffff]), stemming: 'english' });
        assert.deepEqual((await s.documents.sequencesOf([four!], 'english')).get(four!), Uint32Array.from([0, 7, 0xffffffff]));
        assert.equal((await s.documents.sequencesOf([four!], 'none')).get(four!), undefined, 'made with another stemming: not used');
        await s.documents.put(doc(four!, 'four again'));
        assert.equal((await s.documents.sequencesOf([four!], 'english')).get(four!), undefined, 'the new text came without one');
        await s.documents.put(doc(four!, 'four again'), { tokens: Uint32Array.from([0, 8]), stemming: 'english' });
        await s.documents.put(doc(five!, 'five'), { tokens: Uint32Array.from([0, 9]), stemming: 'english' });
        const both = await s.documents.sequencesOf([five!, 99999, four!], 'english');
        assert.deepEqual(
          [...both].sort((x, y) => x[0] - y[0]),
          [
            [four, Uint32Array.from([0, 8])],
            [five, Uint32Array.from([0, 9])],
          ],
          'several at once; none for a page without',
        );
        await s.documents.remove(four!);
        assert.equal((await s.documents.sequencesOf([four!], 'english')).get(four!), undefined);
      }),
    );
  });

  describe('inbound link text', () => {
    it(
      'counts the links carrying each text to a page, ignores a page\u2019s links to itself, reads written rows',
      test(async (s) => {
        await s.enqueue({ urls: ['http://a.org/', 'http://a.org/x', 'http://a.org/y'].map((url) => ({ url, depth: 0 })) }, T0);
        const byUrl = await s.urls.idsOf(['http://a.org/x', 'http://a.org/y']);
        const [x, y] = [byUrl.get('http://a.org/x')!, byUrl.get('http://a.org/y')!];
        s.anchors.add('http://a.org/', [
          { target: 'http://a.org/x', text: 'The X page' },
          { target: 'http://a.org/x', text: 'The X page' },
          { target: 'http://a.org/x', text: '  ' },
          { target: 'http://a.org/not-fetched-yet', text: 'later' },
        ]);
        s.anchors.add('http://a.org/y', [
          { target: 'http://a.org/x', text: 'x again' },
          { target: 'http://a.org/y', text: 'myself' },
          { target: 'http://a.org/x', text: 'z'.repeat(500) },
        ]);
        assert.deepEqual(await s.anchors.of(x), { texts: [], sources: 0 }, 'buffered, not written yet');
        assert.equal(s.anchors.buffered, 4);
        await s.anchors.write();
        assert.equal(s.anchors.buffered, 0);
        // Another page repeats a link: its count grows.
        s.anchors.add('http://a.org/z', [{ target: 'http://a.org/x', text: 'The X page' }]);
        await s.anchors.write();
        const ofX = await s.anchors.of(x);
        assert.deepEqual(ofX.texts, ['The X page', 'x again', 'z'.repeat(MAX_ANCHOR_TEXT)], 'most used first');
        assert.equal(ofX.sources, 5);
        assert.deepEqual(await s.anchors.of(y), { texts: [], sources: 0 }, 'its own link to itself does not count');
        // A URL queued later finds the anchors recorded before it was known.
        await s.enqueue({ urls: [{ url: 'http://a.org/not-fetched-yet', depth: 1 }] }, T0);
        const later = (await s.urls.idsOf(['http://a.org/not-fetched-yet'])).get('http://a.org/not-fetched-yet')!;
        assert.deepEqual(await s.anchors.of(later), { texts: ['later'], sources: 1 });
      }),
    );

    it(
      'reads the anchors of many pages at once as it reads each one\u2019s: every id answered, the most used texts first, all links counted',
      test(async (s) => {
        const urls = ['http://a.org/p', 'http://a.org/q', 'http://a.org/none', 'http://a.org/many'];
        await s.enqueue({ urls: urls.map((url) => ({ url, depth: 0 })) }, T0);
        const ids = await s.urls.idsOf(urls);
        s.anchors.add('http://a.org/', [
          { target: 'http://a.org/p', text: 'Pe' },
          { target: 'http://a.org/q', text: 'Queue' },
        ]);
        s.anchors.add('http://a.org/2', [
          { target: 'http://a.org/p', text: 'Pe' },
          { target: 'http://a.org/p', text: 'another' },
        ]);
        // More texts than are read: the most used ones, and every link counted.
        s.anchors.add(
          'http://a.org/3',
          Array.from({ length: MAX_ANCHORS_READ + 20 }, (_, i) => ({ target: 'http://a.org/many', text: `text ${String(i).padStart(3, '0')}` })),
        );
        s.anchors.add('http://a.org/4', [{ target: 'http://a.org/many', text: 'text 319' }]);
        await s.anchors.write();
        const wanted = [...ids.values(), 999_999];
        const many = await s.anchors.ofMany(wanted);
        assert.deepEqual([...many.keys()].sort(), [...wanted].sort(), 'every id answered');
        for (const id of wanted) assert.deepEqual(many.get(id), await s.anchors.of(id), `id ${id}`);
        // (Asked for together, as a group commit's pages ask: a database may read them as one.)
        const together = await Promise.all(wanted.map((id) => s.anchors.of(id)));
        wanted.forEach((id, i) => {
          assert.deepEqual(together[i], many.get(id), `id ${id}, asked with the others`);
        });
        assert.deepEqual(many.get(ids.get('http://a.org/p')!), { texts: ['Pe', 'another'], sources: 3 });
        const most = many.get(ids.get('http://a.org/many')!)!;
        assert.deepEqual([most.texts.length, most.texts[0], most.sources], [MAX_ANCHORS_READ, 'text 319', MAX_ANCHORS_READ + 21]);
        assert.deepEqual(await s.anchors.ofMany([]), new Map());
      }),
    );

    it(
      'writes many distinct links, each once',
      test(async (s) => {
        await s.enqueue({ urls: [{ url: 'http://a.org/t', depth: 0 }] }, T0);
        const t = (await s.urls.idsOf(['http://a.org/t'])).get('http://a.org/t')!;
        s.anchors.add(
          'http://a.org/',
          Array.from({ length: 300 }, (_, i) => ({ target: 'http://a.org/t', text: `text ${i % 150}` })),
        );
        await s.anchors.write();
        const of = await s.anchors.of(t);
        assert.equal(of.texts.length, 150);
        assert.equal(of.sources, 300);
      }),
    );
  });
}
