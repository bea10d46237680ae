// Group commit on PostgreSQL (group-commit.ts): the fetches handed over together are written in one
// transaction, each with its own result, each told only once it is durable; a page's new content
// another page of the same group also brings is stored once. On a throwaway PostgreSQL 15.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startPostgres } from '../../testweb/postgres.ts';
import { doc, T0, taken } from '../contract/harness.ts';
import { FIRST_ANALYZE } from './statistics.ts';
import { openPostgresStore } from './store.ts';

const server = await startPostgres();
after(() => server.stop());

async function count(url: string, sql: string): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return Number((await c.query<{ n: string }>(sql)).rows[0]!.n);
  } finally {
    await c.end();
  }
}

describe('group commit on PostgreSQL', () => {
  it('writes the fetches handed over together in one transaction, each with its own result', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    try {
      const qs = [];
      for (let i = 0; i < 8; i++) qs.push(await taken(store, `http://a.org/${i}`));
      const loose = await taken(store, 'http://a.org/loose');
      const results = await Promise.all([
        ...qs.map((q, i) =>
          store.commitFetch(
            {
              id: q.id,
              outcome: { kind: 'indexed', status: 200 },
              revisit: null,
              document: { doc: doc(q.id, `page ${i}`), sequence: { tokens: Uint32Array.from([i]), stemming: 'english' } },
              // Every page links to the shared page and to one of its own.
              links: {
                urls: [
                  { url: 'http://b.org/shared', depth: 1 },
                  { url: `http://b.org/own-${i}`, depth: 1 },
                ],
              },
            },
            T0 + i,
          ),
        ),
        // A document stored by itself (a page cleaned again) joins the group too.
        store.documents.put(doc(loose.id, 'loose')),
      ]);
      assert.deepEqual(store.group.figures, { groups: 1, fetches: 9 }, 'one transaction for all');
      const fetches = results.slice(0, 8) as Awaited<ReturnType<typeof store.commitFetch>>[];
      // The shared link is new to the first page that gives it only, as if committed one after the other.
      assert.deepEqual(fetches[0]!.enqueued.added, ['http://b.org/shared', 'http://b.org/own-0']);
      for (let i = 1; i < 8; i++) assert.deepEqual(fetches[i]!.enqueued.added, [`http://b.org/own-${i}`]);
      // Each change has its number, in the order handed over, and the log holds them all.
      const seqs = [...fetches.map((r) => r.stored!), results[8] as number];
      assert.deepEqual(
        seqs,
        Array.from({ length: 9 }, (_, i) => seqs[0]! + i),
      );
      assert.deepEqual(
        (await store.changes.since(0)).map((c) => c.docId),
        [...qs.map((q) => q.id), loose.id],
      );
      assert.deepEqual((await store.documents.sequencesOf([qs[3]!.id], 'english')).get(qs[3]!.id), Uint32Array.from([3]));
      for (const [i, q] of qs.entries()) {
        const r = (await store.urls.record(q.url))!;
        assert.deepEqual([r.state, r.fetchedAt], ['indexed', T0 + i]);
      }
      assert.deepEqual(await store.rejections.all(), [{ reason: 'already-seen', count: 7 }]);
    } finally {
      await store.close();
    }
  });

  it('tells a fetch it is written only once it is durable: another connection sees it then', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    try {
      for (let i = 0; i < 5; i++) {
        const q = await taken(store, `http://a.org/${i}`);
        await store.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, `page ${i}`) } }, T0);
        assert.equal(await count(url, 'SELECT count(*) AS n FROM documents'), i + 1);
      }
    } finally {
      await store.close();
    }
  });

  it('stores content that two fetches of one group bring once: the second is given up for the first', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    try {
      const [a, b] = [await taken(store, 'http://a.org/a'), await taken(store, 'http://a.org/b')];
      const same = (id: number) => ({ ...doc(id, 'the same text'), hash: 'same' });
      const [ra, rb] = await Promise.all(
        [a, b].map((q) =>
          store.commitFetch(
            {
              id: q.id,
              outcome: { kind: 'indexed', status: 200 },
              revisit: null,
              document: { doc: same(q.id) },
              links: { urls: [{ url: `http://c.org/from-${q.id}`, depth: 1 }] },
            },
            T0,
          ),
        ),
      );
      assert.equal(store.group.figures.groups, 1);
      assert.equal(typeof ra!.stored, 'number');
      assert.deepEqual(rb!.contentSeen, { id: a.id, url: same(a.id).url });
      assert.equal(rb!.stored, undefined);
      // Nothing of the fetch given up was written: its record is in flight, its links not queued.
      assert.equal((await store.urls.record(b.url))!.state, 'fetching');
      assert.equal(await store.urls.record(`http://c.org/from-${b.id}`), undefined);
      assert.equal(await count(url, 'SELECT count(*) AS n FROM documents'), 1);
    } finally {
      await store.close();
    }
  });
  it(
    "keeps the planner's statistics of the growing tables current: " + 'analyzes them once this writer added FIRST_ANALYZE rows, then each time they doubled',
    async () => {
      const url = await server.createDatabase();
      const store = await openPostgresStore(url);
      const estimated = async () => count(url, "SELECT reltuples::bigint AS n FROM pg_class WHERE relname = 'urls'");
      /** One fetch of a page with `n` new links. */
      const fetchWith = async (page: string, n: number) => {
        const q = await taken(store, `http://a.org/${page}`);
        await store.commitFetch(
          {
            id: q.id,
            outcome: { kind: 'indexed', status: 200 },
            revisit: null,
            document: { doc: doc(q.id, page) },
            links: { urls: Array.from({ length: n }, (_, i) => ({ url: `http://b.org/${page}/${i}`, depth: 1 })) },
          },
          T0,
        );
        await store.statistics!.settled();
      };
      try {
        await fetchWith('first', FIRST_ANALYZE - 10);
        assert.equal(store.statistics!.analyzed, 0, 'fewer rows than FIRST_ANALYZE: no ANALYZE');
        assert.ok((await estimated()) < 100, 'the planner knows nothing of the rows yet');
        await fetchWith('second', 20);
        assert.equal(store.statistics!.analyzed, 1);
        // (ANALYZE counted every row: the page's own records, its links'.)
        assert.equal(await estimated(), await count(url, 'SELECT count(*) AS n FROM urls'));
        await fetchWith('third', FIRST_ANALYZE / 2);
        assert.equal(store.statistics!.analyzed, 1, 'not yet twice as many');
        await fetchWith('fourth', FIRST_ANALYZE);
        assert.equal(store.statistics!.analyzed, 2);
        assert.equal(await estimated(), await count(url, 'SELECT count(*) AS n FROM urls'));
      } finally {
        await store.close();
      }
    },
  );
});
