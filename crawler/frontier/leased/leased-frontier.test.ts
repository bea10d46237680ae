// What only the leased frontier does (the rest is the frontier contract's, contract.test.ts): two
// workers on one throwaway PostgreSQL, each host fetched by one of them at a time; a worker is
// done only when no other holds a host; one that runs until stopped never is; its heartbeat tells
// the run's figures. A fake clock (the contract's) for the leases and the politeness.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Store } from '../../../store/index.ts';
import { openPostgresStore } from '../../../store/postgres/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../../../testweb/postgres.ts';
import { frontierLimits, hostPolicy } from '../../settings-fixture.ts';
import { allowAll, end, FakeClock, queue, runOf, takeOne } from '../contract/harness.ts';
import { HostScheduler } from '../hosts.ts';
import { LeasedFrontier } from './leased-frontier.ts';

describe('the leased frontier', () => {
  let server: ThrowawayPostgres;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server.stop());

  function worker(store: Store, clock: FakeClock, name: string, untilStopped = false): LeasedFrontier {
    const shared = { worker: name, machine: 'test', pid: process.pid, leaseMs: 3_600_000, maxHosts: 4, untilStopped };
    const scheduler = new HostScheduler(hostPolicy({ delayMs: 0 }));
    return new LeasedFrontier({ store, scheduler, robots: allowAll, revisits: 'off', ...frontierLimits(), now: clock.now, shared });
  }

  it('is done only once no other worker holds a host (its work may yet bring more)', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    const clock = new FakeClock();
    try {
      const [a, b] = [worker(store, clock, 'a'), worker(store, clock, 'b')];
      await queue(a, 'http://one.org/1');
      await a.start(runOf());
      const taken = await takeOne(a, clock);
      await b.start(runOf());
      assert.equal((await b.next(clock.now())).kind, 'wait', 'a holds one.org: its page may link to more');
      assert.equal(b.worker, 'b');
      // a's page links to another host: whoever claims it first takes it.
      await end(a, clock, taken, { outcome: { kind: 'indexed', status: 200 }, links: ['http://two.org/1'] });
      clock.set(clock.now() + 5000);
      const [fromB, fromA] = [await b.next(clock.now()), await a.next(clock.now())];
      const next = [fromB, fromA].find((n) => n.kind === 'item');
      assert.ok(next?.kind === 'item' && next.item.url === 'http://two.org/1', JSON.stringify([fromB, fromA]));
      const holder = next === fromB ? b : a;
      await end(holder, clock, next.item);
      clock.set(clock.now() + 5000);
      // Both answer in turn until each is done: the one still holding a host releases it first.
      const reasons = new Set<string>();
      for (let i = 0; i < 4 && reasons.size < 2; i++)
        for (const [name, w] of [
          ['a', a],
          ['b', b],
        ] as const) {
          const n = await w.next(clock.now());
          if (n.kind === 'done') reasons.add(name);
        }
      assert.deepEqual([...reasons].sort(), ['a', 'b']);
      assert.deepEqual(await store.leases.held(clock.now()), [], 'no host held');
    } finally {
      await store.close();
    }
  });

  it('never is done when it runs until stopped (trawl worker), and gives its hosts back when stopped', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    const clock = new FakeClock();
    try {
      const w = worker(store, clock, 'forever', true);
      await queue(w, 'http://one.org/1', 'http://one.org/2');
      await w.start(runOf());
      const first = await takeOne(w, clock);
      await end(w, clock, first);
      for (let i = 0; i < 3; i++) {
        clock.set(clock.now() + 60_000);
        const n = await w.next(clock.now());
        if (n.kind === 'item') await end(w, clock, n.item);
        else assert.equal(n.kind, 'wait', 'nothing left, yet not done');
      }
      assert.equal((await store.urls.counts()).indexed, 2);
      await w.stop();
      assert.deepEqual(await store.leases.held(clock.now()), []);
    } finally {
      await store.close();
    }
  });

  it('tells the run\u2019s figures in its heartbeat', async () => {
    const store = await openPostgresStore(await server.createDatabase());
    const clock = new FakeClock();
    try {
      const w = worker(store, clock, 'beating');
      await w.start({ ...runOf(), figures: () => ({ pages: 7, pagesPerSecond: 1.5 }) });
      const [me] = await store.leases.workers(0);
      assert.deepEqual([me?.id, me?.pages, me?.pagesPerSecond], ['beating', 7, 1.5]);
      await w.stop();
    } finally {
      await store.close();
    }
  });
});
