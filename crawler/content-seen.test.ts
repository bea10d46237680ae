// Integration: the content-seen test on a PostgreSQL store, whose commit tests new content itself
// (Store.testsContentAtCommit): the crawler reads nothing first, and the same content under two
// URLs is still stored once — the later commit is given up and made again as a duplicate. A
// throwaway PostgreSQL and the fake web on loopback.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Appliance } from '../appliance/index.ts';
import type { PostgresStore } from '../store/postgres/index.ts';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { startPostgres, watchStatements, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { open } from './crawl-fixture.ts';

describe('a crawl on PostgreSQL: content seen at the commit', () => {
  let server: ThrowawayPostgres;
  let web: FakeWeb;
  let app: Appliance;
  let statements: { readonly texts: readonly string[] };
  const record = async (path: string) => (await app.store.urls.record(new URL(path, web.url).href))!;

  before(async () => {
    server = await startPostgres();
    web = await startFakeWeb({ graphSize: 4 });
    app = await open([web.url], { store: await server.createDatabase() });
    // (Every statement sent outside a transaction: a read by hash would be one.)
    statements = watchStatements((app.store as PostgresStore).pool);
    await (await app.createCrawler()).crawler.run();
  });
  after(async () => {
    await app?.close();
    await web?.close();
    await server?.stop();
  });

  it('stores the same content under two URLs once, the other URL its duplicate', async () => {
    assert.equal(app.store.testsContentAtCommit, true);
    assert.equal((await app.index.search('dupword')).total, 1);
    const [a, b] = [await record('/dup-a'), await record('/dup-b')];
    const [stored, dup] = a.state === 'indexed' ? [a, b] : [b, a];
    assert.deepEqual([stored.state, dup.state], ['indexed', 'excluded']);
    assert.equal(dup.reason, `duplicate of ${stored.url}`);
    assert.deepEqual(await app.store.documents.urlsOf((await app.store.documents.get(stored.id))!), [stored.url, dup.url]);
  });

  it('never read the documents by hash before a commit', () =>
    assert.deepEqual(
      statements.texts.filter((t) => /FROM documents WHERE hash =/.test(t)),
      [],
    ));
});
