/** The contract of the writes that belong together: one fetch's commit, all or nothing; durability. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doc, T0, taken, withStore, type StoreFactory } from './harness.ts';

export function fetchCommitContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('one fetch, one commit', () => {
    it(
      'stores the page with its token sequence, queues its links and finishes its record in one call',
      test(async (s) => {
        const q = await taken(s, 'http://a.org/page');
        const d = doc(q.id, 'the page', { url: q.url });
        const result = await s.commitFetch(
          {
            id: q.id,
            outcome: { kind: 'indexed', status: 200, meta: { hash: d.hash, contentType: 'text/html' } },
            revisit: { at: T0 + 1000, intervalMs: 1000 },
            document: { doc: d, sequence: { tokens: Uint32Array.from([1, 2, 3]), stemming: 'english' } },
            links: {
              urls: [
                { url: 'http://a.org/next', depth: 1 },
                { url: 'http://a.org/page', depth: 1 },
                { url: 'http://b.org/', depth: 1 },
              ],
              rejected: new Map([['out-of-scope', 2]]),
            },
          },
          T0,
        );
        assert.deepEqual([...result.enqueued.added], ['http://a.org/next', 'http://b.org/']);
        assert.deepEqual([...result.enqueued.hosts].sort(), ['a.org', 'b.org']);
        assert.equal(result.removed, undefined);
        assert.equal(typeof result.stored, 'number');
        assert.deepEqual(await s.changes.since(0), [{ seq: result.stored, docId: q.id, op: 'put' }]);
        assert.deepEqual(await s.documents.get(q.id), d);
        assert.deepEqual((await s.documents.sequencesOf([q.id], 'english')).get(q.id), Uint32Array.from([1, 2, 3]));
        const r = (await s.urls.record('http://a.org/page'))!;
        assert.deepEqual([r.state, r.httpStatus, r.revisitAt, r.hash, r.fetchedAt], ['indexed', 200, T0 + 1000, d.hash, T0]);
        assert.deepEqual(await s.rejections.all(), [
          { reason: 'out-of-scope', count: 2 },
          { reason: 'already-seen', count: 1 },
        ]);
        await s.sync();
      }),
    );

    it(
      'takes a page out of the store when it leaves (noindex, a redirect, gone), logging the removal',
      test(async (s) => {
        const q = await taken(s, 'http://a.org/page');
        await s.documents.put(doc(q.id, 'held'));
        const r = await s.commitFetch({ id: q.id, outcome: { kind: 'excluded', status: 200, reason: 'noindex' }, revisit: null, unindex: true }, T0);
        assert.equal(typeof r.removed, 'number');
        assert.equal(await s.documents.get(q.id), undefined);
        assert.deepEqual(
          (await s.changes.since(0)).map((c) => c.op),
          ['put', 'remove'],
        );
        assert.equal((await s.urls.record('http://a.org/page'))!.reason, 'noindex');
        // A page that was not stored leaves nothing to remove, and logs nothing.
        const other = await taken(s, 'http://a.org/other');
        assert.equal(
          (await s.commitFetch({ id: other.id, outcome: { kind: 'excluded', status: 200, reason: 'noindex' }, revisit: null, unindex: true }, T0)).removed,
          undefined,
        );
      }),
    );

    it(
      'moves only the fetch time of a page found unchanged: no change is logged',
      test(async (s) => {
        const q = await taken(s, 'http://a.org/page');
        await s.documents.put(doc(q.id, 'same', { fetchedAt: 5 }));
        const before = await s.changes.lastSeq();
        await s.commitFetch({ id: q.id, outcome: { kind: 'not-modified', status: 304 }, revisit: null, touch: T0 + 7 }, T0 + 7);
        assert.equal((await s.documents.get(q.id))!.fetchedAt, T0 + 7);
        assert.equal(await s.changes.lastSeq(), before);
      }),
    );

    it(
      'records a page with the same content as a stored one as its duplicate, and lists both URLs',
      test(async (s) => {
        const original = await taken(s, 'http://a.org/original');
        const d = doc(original.id, 'shared text', { url: 'http://a.org/original' });
        await s.documents.put(d);
        assert.deepEqual(await s.documents.findByHash(d.hash), { id: original.id, url: 'http://a.org/original' });
        assert.equal(await s.documents.findByHash('no-such-hash'), undefined);
        const copy = await taken(s, 'http://a.org/copy');
        await s.commitFetch(
          { id: copy.id, outcome: { kind: 'excluded', status: 200, reason: 'duplicate of http://a.org/original' }, revisit: null, duplicateOf: original.id },
          T0,
        );
        assert.deepEqual(await s.documents.urlsOf(d), ['http://a.org/original', 'http://a.org/copy']);
        // The copy changes and has content of its own: it is no longer listed as a duplicate.
        await s.documents.put(doc(copy.id, 'its own text'));
        assert.deepEqual(await s.documents.urlsOf(d), ['http://a.org/original']);
      }),
    );

    it(
      'writes nothing of a commit that fails',
      test(async (s) => {
        const q = await taken(s, 'http://a.org/page');
        const broken = { ...doc(q.id, 'x'), title: undefined as unknown as string };
        await assert.rejects(
          s.commitFetch(
            {
              id: q.id,
              outcome: { kind: 'indexed', status: 200 },
              revisit: null,
              document: { doc: broken },
              links: { urls: [{ url: 'http://a.org/linked', depth: 1 }] },
            },
            T0,
          ),
        );
        assert.equal(await s.urls.record('http://a.org/linked'), undefined, 'its links were not queued');
        assert.equal(await s.documents.get(q.id), undefined);
        assert.equal((await s.urls.record('http://a.org/page'))!.state, 'fetching', 'its record is as it was');
        assert.equal(await s.changes.lastSeq(), 0);
        // The store goes on.
        await s.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, 'x') } }, T0);
        assert.equal((await s.documents.get(q.id))!.text, 'x');
      }),
    );

    it(
      'writes each of many commits handed over at once all or nothing: one that fails fails alone',
      test(async (s) => {
        const qs = [];
        for (let i = 0; i < 6; i++) qs.push(await taken(s, `http://a.org/${i}`));
        const broken = { ...doc(qs[2]!.id, 'x'), title: undefined as unknown as string };
        const results = await Promise.allSettled(
          qs.map((q, i) =>
            s.commitFetch(
              {
                id: q.id,
                outcome: { kind: 'indexed', status: 200 },
                revisit: null,
                document: { doc: i === 2 ? broken : doc(q.id, `page ${i}`) },
                links: { urls: [{ url: `http://b.org/from-${i}`, depth: 1 }] },
              },
              T0,
            ),
          ),
        );
        assert.deepEqual(
          results.map((r) => r.status),
          ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
        );
        for (const [i, q] of qs.entries()) {
          assert.equal((await s.urls.record(q.url))!.state, i === 2 ? 'fetching' : 'indexed');
          assert.equal((await s.documents.get(q.id))?.text, i === 2 ? undefined : `page ${i}`);
          assert.equal((await s.urls.record(`http://b.org/from-${i}`))?.state, i === 2 ? undefined : 'queued');
        }
        assert.equal((await s.changes.since(0)).length, 5);
        await s.sync();
      }),
    );

    it('keeps everything written before sync() when opened again', async () => {
      const s = await factory.fresh();
      const q = await taken(s, 'http://a.org/page');
      await s.commitFetch(
        {
          id: q.id,
          outcome: { kind: 'indexed', status: 200 },
          revisit: null,
          document: { doc: doc(q.id, 'kept') },
          links: { urls: [{ url: 'http://a.org/next', depth: 1 }] },
        },
        T0,
      );
      await s.seeds.add(['http://a.org/page'], T0);
      s.anchors.add('http://a.org/page', [{ target: 'http://a.org/next', text: 'next' }]);
      await s.sync();
      await s.close();
      const again = await factory.reopen(s);
      try {
        assert.equal((await again.documents.get(q.id))!.text, 'kept');
        assert.equal((await again.urls.record('http://a.org/next'))!.state, 'queued');
        assert.deepEqual(await again.seeds.all(), ['http://a.org/page']);
        const next = (await again.urls.idsOf(['http://a.org/next'])).get('http://a.org/next')!;
        assert.deepEqual(await again.anchors.of(next), { texts: ['next'], sources: 1 }, 'close() writes buffered anchor text');
        assert.deepEqual((await again.urls.counts()).indexed, 1);
      } finally {
        await again.close();
      }
    });
  });
}
