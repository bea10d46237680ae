// Several crawler processes on one PostgreSQL store at once (issue 22): what no single process can
// see — each host's count of URLs as every worker queues them, the same content fetched by two
// workers at the same moment stored once, URLs, hosts and change numbers none hands out twice; the
// search's levers pulled on two nodes at once. Each worker is a store of its own (its own pool).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startPostgres } from '../../testweb/postgres.ts';
import { doc, T0, taken } from '../contract/harness.ts';
import { openPostgresStore, type PostgresStore } from './store.ts';

const server = await startPostgres();
after(() => server.stop());

async function sql<R extends pg.QueryResultRow>(url: string, text: string): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text)).rows;
  } finally {
    await c.end();
  }
}

describe('workers writing one PostgreSQL store at once', () => {
  it('count each host\u2019s URLs on its row, whoever queues them', async () => {
    const url = await server.createDatabase();
    const workers = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    try {
      await Promise.all(
        workers.map(async (w, k) => {
          for (let i = 0; i < 30; i++) {
            // Overlapping batches: half the links are the other worker's too.
            const urls = Array.from({ length: 6 }, (_, j) => ({ url: `http://h${j % 3}.org/${i}-${j % 2 ? k : 'both'}-${j}`, depth: 1 }));
            await w.enqueue({ urls }, T0);
          }
        }),
      );
      const truth = await sql<{ host: string; n: string }>(url, 'SELECT host, count(*) AS n FROM urls GROUP BY host');
      assert.deepEqual(await workers[1]!.hosts.urlCounts(), new Map(truth.map((r) => [r.host, Number(r.n)])));
      assert.equal(
        [...(await workers[0]!.hosts.urlCounts()).values()].reduce((a, b) => a + b),
        30 * 3 + 30 * 3 * 2,
      );
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('store the same content fetched by two of them at the same moment once: the later commit is given up for a duplicate', async () => {
    const url = await server.createDatabase();
    const workers = await Promise.all([openPostgresStore(url), openPostgresStore(url)]);
    try {
      for (let round = 0; round < 10; round++) {
        const qs = await Promise.all(workers.map((w, k) => taken(w, `http://w${k}.org/${round}`)));
        // Both passed their content-seen test before either committed: both try to store it.
        const results = await Promise.all(
          workers.map((w, k) =>
            w.commitFetch(
              {
                id: qs[k]!.id,
                outcome: { kind: 'indexed', status: 200 },
                revisit: null,
                document: { doc: { ...doc(qs[k]!.id, `same text ${round}`), hash: `same-${round}` } },
              },
              T0,
            ),
          ),
        );
        const seen = results.filter((r) => r.contentSeen);
        assert.equal(seen.length, 1, `round ${round}: one of the two commits is given up`);
        const stored = results.find((r) => !r.contentSeen)!;
        assert.ok(stored.stored !== undefined);
        const winner = qs[results.indexOf(stored)]!;
        assert.deepEqual(seen[0]!.contentSeen, { id: winner.id, url: `http://e.org/${winner.id}` });
        const loser = qs[results.indexOf(seen[0]!)]!;
        assert.equal((await workers[0]!.urls.record(loser.url))?.state, 'fetching', 'nothing of the given-up commit was written');
      }
      assert.equal(Number((await sql<{ n: string }>(url, 'SELECT count(*) AS n FROM documents'))[0]!.n), 10);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it("number the levers' changes in commit order, so that a node polling the version misses none", async () => {
    const url = await server.createDatabase();
    const writer = await openPostgresStore(url);
    // (A search node opens the store read-only, and still pulls the levers.)
    const node = await openPostgresStore(url, { readOnly: true });
    try {
      // The first put stalls after it took its number, while the other lever is put.
      await sql(
        url,
        `CREATE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
         CREATE TRIGGER stall AFTER INSERT ON curation_history FOR EACH ROW WHEN (NEW.by = 'slow') EXECUTE FUNCTION stall();`,
      );
      const resolved: string[] = [];
      const slow = writer.curation.put({ at: T0, what: 'synonyms', by: 'slow', value: ['a, b'] }).then(() => resolved.push('slow'));
      while (!Number((await sql<{ n: string }>(url, "SELECT count(*) AS n FROM pg_stat_activity WHERE wait_event = 'PgSleep'"))[0]!.n));
      const fast = node.curation.put({ at: T0 + 1, what: 'rules', by: 'fast', value: { queries: [], prefixes: [] } }).then(() => resolved.push('fast'));
      await Promise.all([slow, fast]);
      // Had the later begun committed first, a node could have seen its number before the earlier's, lower one, existed.
      assert.deepEqual(resolved, ['slow', 'fast']);
      assert.deepEqual(
        (await node.curation.history(10)).map((c) => c.by),
        ['fast', 'slow'],
      );
      assert.equal(await writer.curation.version(), Number((await sql<{ n: string }>(url, 'SELECT max(n) AS n FROM curation_history'))[0]!.n));
    } finally {
      await Promise.all([writer.close(), node.close()]);
    }
  });
});

describe('several processes on one PostgreSQL store', () => {
  it('queues each URL once when workers queue overlapping links at the same moment, without deadlocks', async () => {
    const url = await server.createDatabase();
    const workers = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    try {
      const all = Array.from({ length: 400 }, (_, i) => ({ url: `http://h${i % 7}.org/${i}`, depth: 1 }));
      // Each worker queues every link, in its own order, in batches of 50.
      const results = await Promise.all(
        workers.map(async (w, k) => {
          const mine = k % 2 ? [...all].reverse() : all.slice(k * 37).concat(all.slice(0, k * 37));
          const added: string[] = [];
          for (let i = 0; i < mine.length; i += 50) added.push(...(await w.enqueue({ urls: mine.slice(i, i + 50) }, T0)).added);
          return added;
        }),
      );
      const added = results.flat();
      assert.equal(added.length, 400);
      assert.equal(new Set(added).size, 400);
      assert.equal((await workers[0]!.urls.counts()).queued, 400);
      assert.deepEqual(await workers[0]!.rejections.all(), [{ reason: 'already-seen', count: 1200 }]);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('never hands one URL to two workers taking from the same host at once', async () => {
    const url = await server.createDatabase();
    const workers = await Promise.all(Array.from({ length: 3 }, () => openPostgresStore(url)));
    try {
      await workers[0]!.enqueue({ urls: Array.from({ length: 60 }, (_, i) => ({ url: `http://a.org/${i}`, depth: 0 })) }, T0);
      const taken = await Promise.all(
        workers.map(async (w) => {
          const ids: number[] = [];
          for (let q = await w.urls.take('a.org', { kinds: ['queued'], now: T0 }); q; q = await w.urls.take('a.org', { kinds: ['queued'], now: T0 }))
            ids.push(q.id);
          return ids;
        }),
      );
      const ids = taken.flat();
      assert.equal(ids.length, 60);
      assert.equal(new Set(ids).size, 60);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('gives each host to one worker when many claim at the same moment', async () => {
    const url = await server.createDatabase();
    const workers = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    try {
      await workers[0]!.enqueue({ urls: Array.from({ length: 60 }, (_, i) => ({ url: `http://h${i}.org/`, depth: 0 })) }, T0);
      // Each worker claims on three connections at once, two hosts at a time, until none is left.
      const claimLoop = async (w: PostgresStore, k: number) => {
        const mine: string[] = [];
        for (let got = ['start']; got.length; ) mine.push(...(got = await w.leases.claim(`w${k}`, { max: 2, now: T0, leaseMs: 60_000 })));
        return mine;
      };
      const claimed = await Promise.all(workers.map(async (w, k) => (await Promise.all([claimLoop(w, k), claimLoop(w, k), claimLoop(w, k)])).flat()));
      const hosts = claimed.flat();
      assert.equal(new Set(hosts).size, 60);
      assert.equal(hosts.length, 60, 'no host claimed twice');
      const held = await workers[0]!.leases.held(T0);
      for (const [k, mine] of claimed.entries()) for (const h of mine) assert.equal(held.find((l) => l.host === h)?.worker, `w${k}`);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });

  it('numbers the change log without a gap when workers store pages at once', async () => {
    const url = await server.createDatabase();
    const workers = await Promise.all(Array.from({ length: 3 }, () => openPostgresStore(url)));
    try {
      await Promise.all(
        workers.map(async (w, k) => {
          for (let i = 0; i < 20; i++) {
            const q = await taken(w, `http://w${k}.org/${i}`);
            await w.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, `page ${k} ${i}`) } }, T0);
          }
        }),
      );
      const seqs = (await workers[0]!.changes.since(0)).map((c) => c.seq);
      assert.deepEqual(
        seqs,
        Array.from({ length: 60 }, (_, i) => i + 1),
      );
      assert.equal(await workers[1]!.changes.lastSeq(), 60);
    } finally {
      await Promise.all(workers.map((w) => w.close()));
    }
  });
});
