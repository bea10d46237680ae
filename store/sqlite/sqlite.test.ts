// What is particular to the SQLite store: its file, migrations, read-only openings, group commit.
// (The behaviour every backend shares is in the contract suite: contract.test.ts.)
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import type { QueuedUrl } from '../../model/index.ts';
import { doc, T0, taken } from '../contract/harness.ts';
import { openDb, SCHEMA_VERSION, StoreOpenError } from './db.ts';
import { DB_FILE, openSqliteStore, type SqliteStore } from './store.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-sqlite-'));

describe('the SQLite store: its file and schema', () => {
  it('migrates a version 1 database in place', async () => {
    const dir = tmp();
    const raw = new Database(join(dir, DB_FILE));
    raw.exec(`CREATE TABLE urls (id INTEGER PRIMARY KEY, url TEXT NOT NULL UNIQUE, host TEXT NOT NULL, depth INTEGER NOT NULL,
      state TEXT NOT NULL, reason TEXT, http_status INTEGER, hops INTEGER NOT NULL DEFAULT 0, attempts INTEGER NOT NULL DEFAULT 0,
      discovered_at INTEGER NOT NULL, fetched_at INTEGER);
      CREATE TABLE documents (id INTEGER PRIMARY KEY, url TEXT NOT NULL, title TEXT NOT NULL, description TEXT NOT NULL,
        headings TEXT NOT NULL, text TEXT NOT NULL, content_type TEXT NOT NULL, bytes INTEGER NOT NULL, truncated INTEGER NOT NULL,
        http_status INTEGER NOT NULL, fetched_at INTEGER NOT NULL, hash TEXT NOT NULL);
      INSERT INTO urls (id, url, host, depth, state, discovered_at) VALUES (1, 'http://e.org/', 'e.org', 0, 'queued', 1),
        (2, 'http://e.org/doc', 'e.org', 1, 'fetched', 1), (3, 'http://e.org/404', 'e.org', 1, 'failed', 1);
      INSERT INTO documents VALUES (2, 'http://e.org/doc', 't', '', '', 'x', 'text/html', 1, 0, 200, 1, 'h');`);
    raw.pragma('user_version = 1');
    raw.close();
    const store = openSqliteStore(dir);
    try {
      assert.equal(store.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.equal((await store.documents.get(2))?.lang, undefined, 'documents stored before languages were kept have none');
      assert.equal((await store.documents.get(2))?.topic, undefined, 'nor topics, before focused crawling');
      assert.deepEqual(store.db.prepare('SELECT tunnel, topic_score, relevant, links_cut FROM urls WHERE id = 1').get(), {
        tunnel: 0,
        topic_score: null,
        relevant: null,
        links_cut: null,
      });
      assert.deepEqual(store.db.prepare('SELECT url, fetch_url, state FROM urls ORDER BY id').all(), [
        { url: 'http://e.org/', fetch_url: null, state: 'queued' },
        { url: 'http://e.org/doc', fetch_url: null, state: 'indexed' },
        { url: 'http://e.org/404', fetch_url: null, state: 'dead' },
      ]);
    } finally {
      await store.close();
    }
  });

  it("migrates a schema 16 search log: its searches and first clicks rolled up for the console's reports", async () => {
    const dir = tmp();
    const fresh = openSqliteStore(dir);
    const day0 = Date.UTC(2026, 10, 30);
    const s = (id: string, at: number, understood: string, total = 1) => ({
      id,
      at,
      source: 'page' as const,
      query: understood,
      understood,
      filters: { site: 'e.org' },
      page: 1,
      total,
      shown: ['http://e.org/a', 'http://e.org/b'],
      tookMs: 1,
      prefixes: [],
    });
    await fresh.searchLog.append(
      [s('a', day0, 'vacuum'), s('b', day0 + 1, 'vacuum'), s('c', day0 + 2, 'zzz', 0)],
      [
        { searchId: 'a', at: day0 + 3, position: 2, url: 'http://e.org/b' },
        { searchId: 'a', at: day0 + 4, position: 1, url: 'http://e.org/a' },
      ],
    );
    await fresh.close();
    // (Back to schema 16, as the Trawl before the console left it.)
    const raw = new Database(join(dir, DB_FILE));
    raw.exec(`DROP TABLE search_days; DROP TABLE search_refinements; DROP TRIGGER searches_rolled_up; DROP TRIGGER clicks_rolled_up;
      DROP INDEX searches_understood; DROP INDEX searches_refines; ALTER TABLE searches DROP COLUMN refines;`);
    raw.pragma('user_version = 16');
    raw.close();
    const store = openSqliteStore(dir);
    try {
      assert.deepEqual(await store.searchReports.queries({ since: day0, until: day0 + 86_400_000, filters: { site: 'e.org' } }, 10), [
        { query: 'vacuum', searches: 2, clicked: 1, firstClickPosition: 2, noResults: 0 },
        { query: 'zzz', searches: 1, clicked: 0, firstClickPosition: null, noResults: 1 },
      ]);
    } finally {
      await store.close();
    }
  });

  it("migrates a schema 17 database to the search's levers: none set, then kept", async () => {
    const dir = tmp();
    const fresh = openSqliteStore(dir);
    await fresh.searchLog.append([], []);
    await fresh.close();
    // (Back to schema 17, as the Trawl before the levers were in the store left it.)
    const raw = new Database(join(dir, DB_FILE));
    raw.exec('DROP TABLE curation; DROP TABLE curation_history;');
    raw.pragma('user_version = 17');
    raw.close();
    const store = openSqliteStore(dir);
    try {
      assert.equal(store.db.pragma('user_version', { simple: true }), SCHEMA_VERSION);
      assert.equal(await store.curation.synonyms(), undefined);
      assert.equal(await store.curation.version(), 0);
      await store.curation.put({ at: T0, what: 'synonyms', by: 'config', value: ['k8s, kubernetes'] });
      assert.deepEqual(await store.curation.synonyms(), { lines: ['k8s, kubernetes'], at: T0 });
      assert.equal(await store.curation.version(), 1);
    } finally {
      await store.close();
    }
  });

  it('refuses a database written by a newer Trawl', () => {
    const file = join(tmp(), DB_FILE);
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION + 1}`);
    raw.close();
    assert.throws(() => openDb(file), /newer Trawl/);
    assert.throws(() => openDb(file, { readOnly: true }), /newer Trawl/);
  });
});

describe('the SQLite store opened read-only (trawl search, serve, export)', () => {
  it('refuses a directory that holds no crawl, and creates nothing there', () => {
    const dir = tmp();
    assert.throws(
      () => openSqliteStore(dir, { readOnly: true }),
      (e: unknown) => e instanceof StoreOpenError && /no crawl in /.test((e as Error).message),
    );
    assert.deepEqual(readdirSync(dir), [], 'no empty database left behind');
  });

  it('reads a crawl without writing to it: no migration, and writes refuse', async () => {
    const dir = tmp();
    const writer = openSqliteStore(dir);
    const q = await taken(writer, 'http://a.org/p');
    await writer.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, 'read me') } }, T0);
    await writer.close();
    const file = join(dir, DB_FILE);
    const before = statSync(file).mtimeMs;
    const reader = openSqliteStore(dir, { readOnly: true });
    try {
      assert.equal(reader.readOnly, true);
      assert.equal((await reader.documents.get(q.id))!.text, 'read me');
      await assert.rejects(reader.enqueue({ urls: [{ url: 'http://a.org/new', depth: 0 }] }, T0), /readonly|read-only/i);
      assert.equal(reader.curation.writable, false);
      await assert.rejects(reader.curation.put({ at: T0, what: 'rules', by: 'x', value: { queries: [], prefixes: [] } }), /readonly|read-only/i);
    } finally {
      await reader.close();
    }
    assert.equal(statSync(file).mtimeMs, before, 'the file was not written');
    // An older schema is not migrated by a reader: it says how to upgrade.
    const raw = new Database(file);
    raw.pragma(`user_version = ${SCHEMA_VERSION - 1}`);
    raw.close();
    assert.throws(() => openSqliteStore(dir, { readOnly: true }), /older Trawl.*trawl crawl or trawl start/);
  });

  it('opens and reads while another process writes the whole time, never "database is locked" (regression: 4 of 60)', async () => {
    const dir = tmp();
    const seed = openSqliteStore(dir);
    const q = await taken(seed, 'http://a.org/p');
    await seed.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, 'stable') } }, T0);
    await seed.close();
    const writer = spawn(process.execPath, ['--import', 'tsx', new URL('./busy-writer.ts', import.meta.url).pathname, dir], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        writer.stdout!.on('data', (d: Buffer) => d.toString().includes('writing') && resolve());
        writer.once('exit', (code) => reject(new Error(`the writer exited (${code})`)));
      });
      const failures: string[] = [];
      for (let i = 0; i < 60; i++) {
        try {
          const reader = openSqliteStore(dir, { readOnly: true });
          assert.equal((await reader.documents.get(q.id))!.text, 'stable');
          await reader.urls.counts();
          await reader.close();
        } catch (e) {
          failures.push((e as Error).message);
        }
        await new Promise((r) => setImmediate(r));
      }
      assert.deepEqual(failures, []);
    } finally {
      writer.kill('SIGKILL');
    }
  });
});

describe('the SQLite store\u2019s group commit', () => {
  /** A store and a second connection that sees only what is committed (as a process after a crash would). */
  const setup = () => {
    const dir = tmp();
    const store = openSqliteStore(dir);
    const other = new Database(join(dir, DB_FILE), { readonly: true });
    const committed = () => (other.prepare('SELECT count(*) AS n FROM urls').get() as { n: number }).n;
    return { store, other, committed };
  };
  /** Commits a fetch of a taken URL that found one link. */
  const withLink = (store: SqliteStore, q: QueuedUrl) =>
    store.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, links: { urls: [{ url: `${q.url}-link`, depth: 1 }] } }, T0);
  /** Takes the URLs (committed), then commits a fetch of each that found one link. */
  const fetched = async (store: SqliteStore, ...urls: string[]) => {
    const taken_ = [];
    for (const url of urls) taken_.push(await taken(store, url));
    await store.sync();
    for (const q of taken_) await withLink(store, q);
  };

  it('commits a lever pulled at once, with the pages of the group open then, not a group later', async () => {
    const { store, other, committed } = setup();
    await fetched(store, 'http://a.org/1');
    assert.equal(committed(), 1, 'the link of the group is not committed yet');
    await store.curation.put({ at: T0, what: 'synonyms', by: 'x', value: ['a, b'] });
    assert.equal(other.prepare('SELECT count(*) AS n FROM curation').pluck().get(), 1);
    assert.equal(committed(), 2, "the group's pages are committed with it");
    await store.close();
    other.close();
  });

  it('shares one transaction between the pages of a group, committed by sync()', async () => {
    const { store, other, committed } = setup();
    await fetched(store, 'http://a.org/1', 'http://a.org/2');
    assert.equal(committed(), 2, 'the links of the group are not committed yet');
    await store.sync();
    assert.equal(committed(), 4);
    await store.sync(); // nothing open: nothing happens
    await store.close();
    other.close();
  });

  it('commits on its own 50 ms after the group began: not sooner, not later, and pages joining the group do not put it off', async (t) => {
    // (The group's timer on a fake clock: the test says when 50 ms have passed, whatever the machine's speed.)
    t.mock.timers.enable({ apis: ['setTimeout'] });
    const { store, other, committed } = setup();
    const [q1, q2] = [await taken(store, 'http://a.org/1'), await taken(store, 'http://a.org/2')];
    await withLink(store, q1);
    t.mock.timers.tick(30);
    await withLink(store, q2);
    t.mock.timers.tick(19);
    assert.equal(committed(), 2, 'at 49 ms the group is still open');
    t.mock.timers.tick(1);
    assert.equal(committed(), 4, 'at 50 ms both pages of the group are committed');
    const q3 = await taken(store, 'http://a.org/3');
    await withLink(store, q3);
    t.mock.timers.tick(49);
    assert.equal(committed(), 5, 'the next page opened a group of its own');
    t.mock.timers.tick(1);
    assert.equal(committed(), 6);
    await store.close();
    other.close();
  });

  it('rolls back only the page that failed', async () => {
    const { store, other, committed } = setup();
    const q = await taken(store, 'http://a.org/broken');
    await fetched(store, 'http://a.org/ok');
    const broken = { ...doc(q.id, 'x'), title: undefined as unknown as string };
    await assert.rejects(
      store.commitFetch(
        {
          id: q.id,
          outcome: { kind: 'indexed', status: 200 },
          revisit: null,
          document: { doc: broken },
          links: { urls: [{ url: 'http://a.org/broken-link', depth: 1 }] },
        },
        T0,
      ),
    );
    await store.sync();
    assert.equal(committed(), 3, 'broken and ok (taken before), and ok’s link');
    assert.equal(await store.urls.record('http://a.org/broken-link'), undefined);
    assert.equal((await store.urls.record('http://a.org/ok'))!.state, 'indexed');
    await store.close();
    other.close();
  });
});

describe('the SQLite store\u2019s anchor text', () => {
  it('writes its counted links a few thousand to a transaction, letting the event loop turn between two; a failed write keeps them counted', async () => {
    const store = openSqliteStore(tmp());
    try {
      const rows = () => store.db.prepare('SELECT count(*) AS n, coalesce(sum(links), 0) AS links FROM anchors').get() as { n: number; links: number };
      const page = (n: number) => Array.from({ length: n }, (_, i) => ({ target: `http://a.org/${i}`, text: 'to it' }));
      store.anchors.add('http://a.org/', page(5_000));
      // Writes refused: the write fails and every link stays counted, none lost.
      store.db.pragma('query_only = 1');
      await assert.rejects(store.anchors.write());
      assert.equal(store.anchors.buffered, 5_000);
      store.db.pragma('query_only = 0');
      // A second page repeats 1,000 of the links: counted twice.
      store.anchors.add('http://a.org/other', page(1_000));
      let turned = -1;
      setImmediate(() => (turned = rows().n));
      await store.anchors.write();
      assert.ok(turned > 0 && turned < 5_000, `some rows written, not all, when the loop turned (${turned})`);
      assert.deepEqual(rows(), { n: 5_000, links: 6_000 });
      assert.equal(store.anchors.buffered, 0);
    } finally {
      await store.close();
    }
  });
});
