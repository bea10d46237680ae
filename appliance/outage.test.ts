// A PostgreSQL store that stops answering (issue 22): statements wait, retrying with back-off, and
// go through once the server is back — nothing lost — while /healthz says the store is down. A
// throwaway PostgreSQL, halted and started again on its port.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../search-ui/index.ts';
import { serverDefaults } from '../search-ui/server-fixture.ts';
import { openPostgresStore, type PostgresStore } from '../store/postgres/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { onEvent, waitFor } from '../testweb/wait.ts';
import { newIndex } from './index-load.ts';

describe('a PostgreSQL store through an outage', () => {
  let server: ThrowawayPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server.stop());

  it('waits for the server, then writes what it was given; /healthz says 503 while it is away', async () => {
    const health = new EventEmitter();
    const store: PostgresStore = await openPostgresStore(await server.createDatabase(), {
      outageRetryMs: 60_000,
      onHealth: (h) => health.emit('change', h),
    });
    const app = createApp({
      ...serverDefaults(),
      searcher: newIndex(store, 'porter'),
      status: () => Promise.reject(new Error('unused')),
      version: 't',
      storeHealth: () => store.health(),
    });
    try {
      await store.enqueue({ urls: [{ url: 'http://a.org/before', depth: 0 }] }, 1);
      assert.equal((await app.request('/healthz')).status, 200);
      await server.halt();
      const during = store.enqueue({ urls: [{ url: 'http://a.org/during', depth: 0 }] }, 2);
      await waitFor(() => !store.health().up, onEvent(health, 'change'), { what: 'the store to be seen down' });
      const down = await app.request('/healthz');
      assert.equal(down.status, 503);
      const body = (await down.json()) as { ok: boolean; store: string; error: string };
      assert.deepEqual([body.ok, body.store], [false, 'down']);
      assert.match(body.error, /refused/);
      // (Listened for before the server is back: the waiting write may get through while it starts.)
      const back = once(health, 'change');
      await server.resume();
      assert.deepEqual((await during).added, ['http://a.org/during'], 'the write waited and went through');
      assert.deepEqual(await back, [{ up: true }], 'and said the store answers again');
      assert.equal((await app.request('/healthz')).status, 200);
      assert.deepEqual((await store.urls.counts()).queued, 2);
    } finally {
      await store.close();
    }
  });

  it('gives up after cluster.outageRetry', async () => {
    const store = await openPostgresStore(await server.createDatabase(), { outageRetryMs: 500 });
    try {
      await server.halt();
      const started = Date.now();
      await assert.rejects(store.urls.counts(), /ECONNREFUSED|refused|terminat/i);
      assert.ok(Date.now() - started >= 500, 'it retried for the while given');
    } finally {
      await server.resume();
      await store.close();
    }
  });
});
