// What is particular to the PostgreSQL store: its migrations, read-only openings, locations that
// never show a password, errors a user can act on, text PostgreSQL cannot hold, anchors and the
// take in one round trip. (Several processes on one database: workers.test.ts; the change log's
// numbers: changes.test.ts; the behaviour every backend shares: the contract suite, contract.test.ts.)
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import pg from 'pg';
import { startPostgres, watchStatements } from '../../testweb/postgres.ts';
import { doc, T0, taken } from '../contract/harness.ts';
import { ReadOnlyStoreError, StoreLocationError, StoreOpenError } from '../store.ts';
import { MIGRATIONS, SCHEMA_VERSION } from './migrations.ts';
import { openPostgresStore, type PostgresStore } from './store.ts';

const server = await startPostgres();
after(() => server.stop());

async function sql<R extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<R[]> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return (await c.query<R>(text, params)).rows;
  } finally {
    await c.end();
  }
}

/** Counts the statements a store sends (each is one round trip to the server). */
const countStatements = (store: PostgresStore) => watchStatements(store.pool);

describe('the PostgreSQL store: its schema and migrations', () => {
  it('finds a content hash through an index on (hash, id), not by walking the primary key', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    await store.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      // (On a small table the planner would rather scan it: a large one is what matters.)
      await c.query('SET enable_seqscan = off');
      const plan = (await c.query<{ 'QUERY PLAN': string }>('EXPLAIN SELECT id, url FROM documents WHERE hash = $1 ORDER BY id LIMIT 1', ['h'])).rows
        .map((r) => r['QUERY PLAN'])
        .join('\n');
      assert.match(plan, /documents_hash_id/, plan);
      assert.doesNotMatch(plan, /documents_pkey/, plan);
    } finally {
      await c.end();
    }
  });

  it('creates the schema on first open, recording each migration once, and applies nothing the second time', async () => {
    const url = await server.createDatabase();
    const first = await openPostgresStore(url);
    await first.close();
    assert.deepEqual(first.migrated, { from: 0, to: SCHEMA_VERSION, applied: MIGRATIONS.map((m) => `${m.version}: ${m.name}`) });
    const again = await openPostgresStore(url);
    await again.close();
    assert.deepEqual(again.migrated, { from: SCHEMA_VERSION, to: SCHEMA_VERSION, applied: [] });
    assert.deepEqual(
      (await sql<{ version: number }>(url, 'SELECT version FROM trawl_migrations ORDER BY version')).map((r) => r.version),
      MIGRATIONS.map((m) => m.version),
    );
  });

  it('migrates once when many workers start at the same moment', async () => {
    const url = await server.createDatabase();
    const stores = await Promise.all(Array.from({ length: 4 }, () => openPostgresStore(url)));
    await Promise.all(stores.map((s) => s.close()));
    assert.equal(stores.filter((s) => s.migrated!.applied.length > 0).length, 1, 'one of them migrated');
    assert.equal((await sql(url, 'SELECT * FROM trawl_migrations')).length, MIGRATIONS.length);
  });

  it('migrates a database of schema 1 to the hosts and leases of schema 2, every queued host known', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    await store.enqueue(
      {
        urls: [
          { url: 'http://a.org/', depth: 0 },
          { url: 'http://b.org/', depth: 0 },
        ],
      },
      T0,
    );
    await store.close();
    // Back to schema 1, as a Trawl before leases left it.
    await sql(
      url,
      'DROP TABLE hosts, change_log, change_readers, workers, searches, search_clicks, search_days, search_refinements, ' +
        'curation, curation_history, change_pending; ' +
        'DROP INDEX documents_hash_id; ' +
        'DROP FUNCTION trawl_search_rolled_up, trawl_click_rolled_up; ' +
        'CREATE INDEX documents_hash ON documents (hash); ALTER TABLE urls DROP COLUMN found_on; ' +
        'ALTER TABLE documents DROP COLUMN heading_ids; ALTER TABLE changes DROP COLUMN xid; ' +
        'DELETE FROM trawl_migrations WHERE version >= 2',
    );
    const migrated = await openPostgresStore(url);
    try {
      assert.deepEqual(migrated.migrated, { from: 1, to: SCHEMA_VERSION, applied: MIGRATIONS.slice(1).map((m) => `${m.version}: ${m.name}`) });
      assert.deepEqual(await migrated.leases.claim('w', { max: 5, now: T0, leaseMs: 1000 }), ['a.org', 'b.org']);
    } finally {
      await migrated.close();
    }
  });

  it('refuses a database written by a newer Trawl', async () => {
    const url = await server.createDatabase();
    await (await openPostgresStore(url)).close();
    await sql(url, `INSERT INTO trawl_migrations (version, name) VALUES ($1, 'from the future')`, [SCHEMA_VERSION + 1]);
    await assert.rejects(openPostgresStore(url), (e: unknown) => e instanceof StoreOpenError && /newer Trawl/.test((e as Error).message));
    await assert.rejects(openPostgresStore(url, { readOnly: true }), /newer Trawl/);
  });
});

describe('the PostgreSQL store opened read-only (a search node, an export)', () => {
  it('refuses a database without a crawl, and creates nothing there', async () => {
    const url = await server.createDatabase();
    await assert.rejects(openPostgresStore(url, { readOnly: true }), (e: unknown) => e instanceof StoreOpenError && /^no crawl in /.test((e as Error).message));
    assert.deepEqual(await sql(url, `SELECT tablename FROM pg_tables WHERE schemaname = 'public'`), []);
  });

  it('reads what a writer wrote, and refuses every write', async () => {
    const url = await server.createDatabase();
    const writer = await openPostgresStore(url);
    const q = await taken(writer, 'http://a.org/page');
    await writer.documents.put(doc(q.id, 'written'));
    const reader = await openPostgresStore(url, { readOnly: true });
    try {
      assert.equal(reader.readOnly, true);
      assert.equal((await reader.documents.get(q.id))!.text, 'written');
      await assert.rejects(reader.enqueue({ urls: [{ url: 'http://a.org/other', depth: 0 }] }, T0), ReadOnlyStoreError);
      await assert.rejects(reader.documents.remove(q.id), ReadOnlyStoreError);
      assert.equal(await writer.urls.record('http://a.org/other'), undefined);
    } finally {
      await reader.close();
      await writer.close();
    }
  });
});

describe('the PostgreSQL store: where it is, and when it cannot be reached', () => {
  it('shows its location without the password', async () => {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url.replace('postgres@', 'postgres:s3cret-pw@'));
    await store.close();
    assert.equal(store.location, url);
    assert.doesNotMatch(store.location, /s3cret/);
  });

  it('says in one line, without the password, that no server answers, that the database is missing, or that the URL is not one', async () => {
    const closedPort = `postgres://postgres:s3cret-pw@127.0.0.1:1/trawl`;
    const missing = `postgres://postgres:s3cret-pw@127.0.0.1:${server.port}/no_such_database`;
    const cases: [string, RegExp][] = [
      [closedPort, /cannot reach the PostgreSQL store postgres:\/\/postgres@127\.0\.0\.1:1\/trawl: connection refused/],
      [missing, /database "no_such_database" does not exist \(create it first: createdb\)/],
      ['postgres://', /must be a PostgreSQL URL/],
      ['postgres://user:s3cret-pw@host', /names no database/],
      ['mysql://user:s3cret-pw@host/db', /must be a PostgreSQL URL/],
    ];
    for (const [location, message] of cases) {
      await assert.rejects(openPostgresStore(location, { connectTimeoutMs: 5000 }), (e: unknown) => {
        assert.ok(e instanceof StoreLocationError, `${location}: ${(e as Error).message}`);
        assert.match(e.message, message);
        assert.doesNotMatch(e.message, /s3cret/);
        assert.doesNotMatch(e.message, /\n/);
        return true;
      });
    }
  });
});

describe('the PostgreSQL store: what PostgreSQL makes particular', () => {
  it('stores a page whose text holds NUL characters (PostgreSQL text cannot), as U+FFFD', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      const q = await taken(store, 'http://a.org/nul');
      await store.documents.put(doc(q.id, 'a\0b', { title: '\0' }));
      const d = (await store.documents.get(q.id))!;
      assert.deepEqual([d.text, d.title], ['a\uFFFDb', '\uFFFD']);
    } finally {
      await store.close();
    }
  });

  it('tests a page\u2019s links against the seen-set in one round trip, however many', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      const statements = countStatements(store);
      const links = Array.from({ length: 500 }, (_, i) => ({ url: `http://a.org/${i % 250}`, depth: 1 }));
      const r = await store.enqueue({ urls: links, rejected: new Map([['out-of-scope', 7]]) }, T0);
      assert.equal(statements.n, 1);
      assert.equal(r.added.length, 250);
      assert.deepEqual(await store.rejections.all(), [
        { reason: 'already-seen', count: 250 },
        { reason: 'out-of-scope', count: 7 },
      ]);
    } finally {
      await store.close();
    }
  });
});

describe('the PostgreSQL store: anchor text read for many pages at once', () => {
  it('reads the anchors of the pages asked for in one turn in one statement (a group commit\u2019s pages ask together)', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      const urls = Array.from({ length: 6 }, (_, i) => `http://a.org/${i}`);
      await store.enqueue({ urls: urls.map((url) => ({ url, depth: 0 })) }, T0);
      const ids = [...(await store.urls.idsOf(urls)).values()];
      store.anchors.add(
        'http://a.org/',
        urls.map((target, i) => ({ target, text: `link ${i}` })),
      );
      await store.anchors.write();
      const statements = countStatements(store);
      const together = await Promise.all(ids.map((id) => store.anchors.of(id)));
      assert.equal(statements.n, 1);
      const alone: unknown[] = [];
      for (const id of ids) alone.push(await store.anchors.of(id));
      assert.equal(statements.n, 1 + ids.length, 'asked one after the other: a statement each');
      assert.deepEqual(together, alone);
      assert.deepEqual(together[2], { texts: ['link 2'], sources: 1 });
    } finally {
      await store.close();
    }
  });
});

describe('the PostgreSQL store: taking a URL in one round trip', () => {
  it('says when it took the host\u2019s last URL of the kinds asked, so that the crawler need not ask again', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      await store.enqueue(
        {
          urls: [
            { url: 'http://a.org/1', depth: 0 },
            { url: 'http://a.org/2', depth: 1 },
            { url: 'http://b.org/', depth: 0 },
          ],
        },
        T0,
      );
      const first = (await store.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
      assert.deepEqual([first.url, first.kind, first.last], ['http://a.org/1', 'queued', false]);
      // A failed URL due again is more work of the host when retries are asked for.
      await store.urls.finish(first.id, { outcome: { kind: 'failed', status: 503, error: 'http-5xx', reason: '503', retryAt: T0 + 10 }, revisit: null }, T0);
      const second = (await store.urls.take('a.org', { kinds: ['queued', 'retry'], now: T0 + 10 }))!;
      assert.deepEqual([second.url, second.kind, second.last], ['http://a.org/2', 'queued', false]);
      const retry = (await store.urls.take('a.org', { kinds: ['queued', 'retry'], now: T0 + 10 }))!;
      assert.deepEqual([retry.url, retry.kind, retry.last], ['http://a.org/1', 'retry', true]);
      assert.equal(await store.urls.take('a.org', { kinds: ['queued', 'retry'], now: T0 + 10 }), undefined);
    } finally {
      await store.close();
    }
  });

  it('takes several queued URLs at once in the queue\u2019s order, and a due retry when none is queued', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      await store.enqueue(
        {
          urls: [
            { url: 'http://a.org/deep', depth: 2 },
            { url: 'http://a.org/1', depth: 1 },
            { url: 'http://a.org/2', depth: 1 },
          ],
        },
        T0,
      );
      const some = await store.urls.takeSome('a.org', { kinds: ['queued', 'retry'], now: T0 }, 2);
      assert.deepEqual(
        some.map((q) => [new URL(q.url).pathname, q.kind, q.last]),
        [
          ['/1', 'queued', false],
          ['/2', 'queued', false],
        ],
      );
      const [deep] = await store.urls.takeSome('a.org', { kinds: ['queued', 'retry'], now: T0 }, 2);
      assert.deepEqual([deep!.url, deep!.last], ['http://a.org/deep', true]);
      await store.urls.finish(deep!.id, { outcome: { kind: 'failed', status: 503, error: 'http-5xx', reason: '503', retryAt: T0 + 10 }, revisit: null }, T0);
      assert.deepEqual(await store.urls.takeSome('a.org', { kinds: ['queued', 'retry'], now: T0 }, 2), [], 'the retry is not due yet');
      const retry = await store.urls.takeSome('a.org', { kinds: ['queued', 'retry'], now: T0 + 10 }, 2);
      assert.deepEqual(
        retry.map((q) => [q.url, q.kind, q.last]),
        [['http://a.org/deep', 'retry', true]],
      );
    } finally {
      await store.close();
    }
  });

  it('knows from the take whether the page of the URL taken is stored: has() asks nothing more', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    try {
      const held = await taken(store, 'http://a.org/held');
      await store.commitFetch(
        { id: held.id, outcome: { kind: 'indexed', status: 200 }, revisit: { at: T0, intervalMs: 1 }, document: { doc: doc(held.id, 'held') } },
        T0,
      );
      await store.enqueue({ urls: [{ url: 'http://a.org/new', depth: 0 }] }, T0);
      const statements = countStatements(store);
      const again = (await store.urls.take('a.org', { kinds: ['revisit'], now: T0, revisitsDueBy: T0 }))!;
      const fresh = (await store.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
      assert.equal(statements.n, 2);
      assert.deepEqual([again.id, await store.documents.has(again.id)], [held.id, true]);
      assert.equal(await store.documents.has(fresh.id), false);
      assert.equal(statements.n, 2, 'no statement for has()');
      // Once answered (or written since), has() asks the store.
      assert.equal(await store.documents.has(held.id), true);
      assert.equal(statements.n, 3);
    } finally {
      await store.close();
    }
  });
});
