// A shared frontier takes a host's queued URLs several at a time (TAKE_AHEAD): one round trip to
// the store for that many fetches, handed out in the queue's order, given back to the queue when
// the worker gives the host up, forgotten when its lease was lost. A throwaway PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openPostgresStore, type PostgresStore } from '../../store/postgres/index.ts';
import { startPostgres, watchStatements, type ThrowawayPostgres } from '../../testweb/postgres.ts';
import { HostUrls, TAKE_AHEAD } from './host-urls.ts';

const T0 = 1_000_000;

describe('a shared frontier taking ahead', () => {
  let server: ThrowawayPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server.stop());

  /** A store with `n` queued URLs of a.org (depths 1 and 0 mixed) and a shared frontier over it. */
  async function setup(n: number) {
    const store = await openPostgresStore(await server.createDatabase());
    const frontier = new HostUrls(store, () => T0);
    await frontier.enqueue({ urls: Array.from({ length: n }, (_, i) => ({ url: `http://a.org/${i}`, depth: i % 2 })) });
    frontier.share();
    return { store, frontier, statements: watchStatements(store.pool) };
  }
  const states = async (store: PostgresStore) => (await store.urls.counts()) as Record<string, number>;

  it(`hands out ${TAKE_AHEAD} URLs for one statement, breadth-first`, async () => {
    const { store, frontier, statements } = await setup(TAKE_AHEAD + 2);
    try {
      const order: string[] = [];
      const lasts: boolean[] = [];
      for (let q = await frontier.next('a.org'); q; q = q.last ? undefined : await frontier.next('a.org')) {
        order.push(new URL(q.url).pathname);
        lasts.push(q.last ?? false);
        if (order.length === TAKE_AHEAD) assert.equal(statements.n, 1, `one statement for the first ${TAKE_AHEAD}`);
      }
      // Depth 0 first (the even ones), then depth 1, each by id — as take() one by one would.
      const even = Array.from({ length: TAKE_AHEAD + 2 }, (_, i) => i).filter((i) => i % 2 === 0);
      const odd = Array.from({ length: TAKE_AHEAD + 2 }, (_, i) => i).filter((i) => i % 2 === 1);
      assert.deepEqual(
        order,
        [...even, ...odd].map((i) => `/${i}`),
      );
      // (A URL that waited is never said to be the host's last — work may have come since its batch:
      // the crawl loop asks once more, and the store finds nothing.)
      assert.deepEqual(lasts, Array(TAKE_AHEAD + 2).fill(false));
      assert.equal(statements.n, 4, 'two batches (the second of two URLs), then the host\u2019s queued URLs and retries found empty');
      assert.equal((await states(store)).fetching, TAKE_AHEAD + 2);
    } finally {
      await store.close();
    }
  });

  it('says a URL is the host\u2019s last only when taken just then: not one that waited while more was queued', async () => {
    const { store, frontier } = await setup(2);
    try {
      const first = (await frontier.next('a.org'))!;
      assert.equal(first.last, false, 'its batch has another');
      // The first page's links: more of the host queued while the second URL waits.
      await frontier.enqueue({ urls: [{ url: 'http://a.org/later', depth: 2 }] });
      const second = (await frontier.next('a.org'))!;
      assert.equal(second.last, false, 'taken as its batch\u2019s last, but it waited');
      const later = (await frontier.next('a.org'))!;
      assert.deepEqual([later.url, later.last], ['http://a.org/later', true], 'taken alone, just now: the host\u2019s last');
    } finally {
      await store.close();
    }
  });

  it('gives back to the queue what it took ahead and did not hand out, its attempt not counted', async () => {
    const { store, frontier } = await setup(5);
    try {
      const first = (await frontier.next('a.org'))!;
      assert.equal(frontier.takenAhead, 4);
      await frontier.giveBack(['a.org']);
      assert.equal(frontier.takenAhead, 0);
      assert.deepEqual([(await states(store)).queued, (await states(store)).fetching], [4, 1]);
      const records = await Promise.all([0, 1, 2, 3, 4].map((i) => store.urls.record(`http://a.org/${i}`)));
      for (const r of records) assert.equal(r!.attempts, r!.id === first.id ? 1 : 0, r!.url);
      // Taken again in the same order.
      assert.equal(new URL((await frontier.next('a.org'))!.url).pathname, '/2');
    } finally {
      await store.close();
    }
  });

  it('forgets, without a write, what it took ahead for a host whose lease it lost', async () => {
    const { store, frontier, statements } = await setup(5);
    try {
      await frontier.next('a.org');
      const before = statements.n;
      frontier.forget('a.org');
      assert.equal(frontier.takenAhead, 0);
      await frontier.giveBack(['a.org']);
      assert.equal(statements.n, before, 'nothing written');
      assert.equal((await states(store)).fetching, 5, 'left in flight, for the lease\u2019s end to queue again');
    } finally {
      await store.close();
    }
  });

  it('still takes due revisits every other turn, between the URLs taken ahead', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      let now = T0;
      const frontier = new HostUrls(store, () => now);
      await frontier.enqueue({ urls: ['old1', 'old2'].map((n) => ({ url: `http://a.org/${n}`, depth: 0 })) });
      for (const [i, at] of [1_500_000, 1_500_001].entries()) {
        const q = (await frontier.next('a.org'))!;
        assert.equal(q.url, `http://a.org/old${i + 1}`);
        await store.urls.finish(q.id, { outcome: { kind: 'indexed', status: 200 }, revisit: { at, intervalMs: 500 } }, T0);
      }
      await frontier.enqueue({ urls: ['n1', 'n2', 'n3'].map((n) => ({ url: `http://a.org/${n}`, depth: 1 })) });
      frontier.share();
      now = 2_000_000;
      const pick = { fresh: true, revisitsDueBy: Number.MAX_SAFE_INTEGER };
      const order: string[] = [];
      for (let q = await frontier.next('a.org', pick); q; q = await frontier.next('a.org', pick)) order.push(new URL(q.url).pathname);
      assert.deepEqual(order, ['/n1', '/old1', '/n2', '/old2', '/n3'], 'as one at a time (frontier.test.ts)');
      assert.equal(frontier.takenAhead, 0);
    } finally {
      await store.close();
    }
  });

  it('takes one at a time when not shared', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      const frontier = new HostUrls(store, () => T0);
      await frontier.enqueue({ urls: [0, 1, 2].map((i) => ({ url: `http://a.org/${i}`, depth: 0 })) });
      await frontier.next('a.org');
      assert.equal(frontier.takenAhead, 0);
      assert.equal((await states(store)).fetching, 1);
    } finally {
      await store.close();
    }
  });
});
