// Several crawler processes writing one PostgreSQL store at once (issue 22): what no single process
// can see — each host's count of URLs as every worker queues them, and the same content fetched by
// two workers at the same moment stored once; the search's levers pulled on two nodes at once. Each
// worker is a store of its own (its own pool).
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startPostgres } from '../../testweb/postgres.ts';
import { doc, T0, taken } from '../contract/harness.ts';
import { openPostgresStore } from './store.ts';

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
