/** The contract of host leases: many workers on one frontier, each host fetched by one at a time. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Store } from '../store.ts';
import { T0, withStore, type StoreFactory } from './harness.ts';

const LEASE = 30_000;
const claim = (s: Store, worker: string, max: number, now = T0) => s.leases.claim(worker, { max, now, leaseMs: LEASE });
const queue = (s: Store, ...urls: string[]) => s.enqueue({ urls: urls.map((url) => ({ url, depth: 0 })) }, T0);
const sorted = (xs: readonly string[]) => [...xs].sort();

export function leaseContract(factory: StoreFactory): void {
  const test = (fn: Parameters<typeof withStore>[1]) => withStore(factory, fn);

  describe('host leases', () => {
    it(
      'gives each host with work to one worker at a time',
      test(async (s) => {
        await queue(s, 'http://a.org/', 'http://b.org/', 'http://c.org/', 'http://c.org/2');
        const one = await claim(s, 'w1', 2);
        const two = await claim(s, 'w2', 2);
        assert.equal(one.length, 2);
        assert.deepEqual(sorted([...one, ...two]), ['a.org', 'b.org', 'c.org'], 'every host once');
        assert.deepEqual(await claim(s, 'w3', 5), [], 'nothing left to claim');
        assert.deepEqual(
          (await s.leases.held(T0)).map((l) => [l.host, l.worker, l.expiresAt]).sort(),
          [...one.map((h) => [h, 'w1', T0 + LEASE]), ...two.map((h) => [h, 'w2', T0 + LEASE])].sort(),
        );
      }),
    );

    it(
      'claims hosts with queued URLs, due retries and (when asked) due revisits — not those without work',
      test(async (s) => {
        await queue(s, 'http://retry.org/', 'http://revisit.org/', 'http://done.org/');
        for (const host of ['retry.org', 'revisit.org', 'done.org']) {
          const q = (await s.urls.take(host, { kinds: ['queued'], now: T0 }))!;
          const outcome =
            host === 'retry.org'
              ? { kind: 'failed' as const, error: 'timeout' as const, reason: 'timeout', retryAt: T0 + 5000 }
              : { kind: 'indexed' as const, status: 200 };
          await s.urls.finish(q.id, { outcome, revisit: host === 'revisit.org' ? { at: T0 + 9000, intervalMs: 9000 } : null }, T0);
        }
        assert.deepEqual(await claim(s, 'w', 10, T0 + 4999), [], 'the retry is not due yet; revisits not asked for');
        assert.deepEqual(await claim(s, 'w', 10, T0 + 5000), ['retry.org']);
        assert.deepEqual(await s.leases.claim('w', { max: 10, now: T0 + 9000, leaseMs: LEASE, revisitsDueBy: T0 + 9000 }), ['revisit.org']);
      }),
    );

    it(
      'serves the hosts least recently claimed first',
      test(async (s) => {
        await queue(s, 'http://a.org/', 'http://a.org/2', 'http://b.org/', 'http://b.org/2');
        const first = await claim(s, 'w', 1);
        await s.leases.release('w', first);
        const second = await claim(s, 'w', 1, T0 + 1);
        assert.notDeepEqual(second, first, 'the other host now');
        await s.leases.release('w', second);
        assert.deepEqual(await claim(s, 'w', 1, T0 + 2), first);
      }),
    );

    it(
      'renews a lease while it is held; a lease that ran out goes to another worker with its in-flight URLs queued again',
      test(async (s) => {
        await queue(s, 'http://a.org/1', 'http://a.org/2');
        assert.deepEqual(await claim(s, 'w1', 1), ['a.org']);
        const inFlight = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 }))!;
        assert.deepEqual(await s.leases.renew('w1', ['a.org', 'b.org'], T0 + 20_000, LEASE), ['a.org'], 'only what it holds');
        assert.deepEqual(await claim(s, 'w2', 1, T0 + 40_000), [], 'renewed: held until T0 + 50,000');
        assert.deepEqual(await s.leases.renew('w2', ['a.org'], T0 + 40_000, LEASE), [], 'not its lease');
        // w1 dies: its lease runs out, w2 takes the host over and finds the URL w1 had in flight queued again.
        assert.deepEqual(await claim(s, 'w2', 1, T0 + 50_000), ['a.org']);
        const c = await s.urls.counts();
        assert.deepEqual([c.fetching, c.queued], [0, 2]);
        const again = (await s.urls.take('a.org', { kinds: ['queued'], now: T0 + 50_000 }))!;
        assert.deepEqual([again.id, again.attempts], [inFlight.id, 1], 'the same URL, its lost attempt not counted');
        assert.deepEqual(await s.leases.renew('w1', ['a.org'], T0 + 50_001, LEASE), [], 'w1 lost it');
        assert.deepEqual(
          (await s.leases.held(T0 + 50_001)).map((l) => l.worker),
          ['w2'],
        );
      }),
    );

    it(
      'lets another worker claim a released host at once',
      test(async (s) => {
        await queue(s, 'http://a.org/1');
        await claim(s, 'w1', 1);
        await s.leases.release('w1', ['a.org']);
        await s.leases.release('w2', ['a.org']);
        assert.deepEqual(await s.leases.held(T0), []);
        assert.deepEqual(await claim(s, 'w2', 1), ['a.org']);
        await s.leases.release('w1', ['a.org']);
        assert.deepEqual(
          (await s.leases.held(T0)).map((l) => l.worker),
          ['w2'],
          'a worker releases only its own lease',
        );
      }),
    );

    it(
      'expires leases that ran out, queuing their in-flight URLs again; recovery leaves leased hosts alone',
      test(async (s) => {
        await queue(s, 'http://a.org/1', 'http://b.org/1', 'http://c.org/1');
        await s.leases.claim('w1', { max: 1, now: T0, leaseMs: 1000 });
        await s.leases.claim('w2', { max: 1, now: T0, leaseMs: 5000 });
        for (const l of await s.leases.held(T0)) await s.urls.take(l.host, { kinds: ['queued'], now: T0 });
        await s.urls.take('c.org', { kinds: ['queued'], now: T0 });
        assert.equal(await s.urls.recoverInFlight(), 1, 'only c.org\u2019s URL: the others are their leaseholders\u2019');
        assert.equal((await s.urls.counts()).fetching, 2);
        const expired = await s.leases.expire(T0 + 1000);
        assert.equal(expired.hosts.length, 1);
        assert.equal(expired.requeued, 1);
        assert.deepEqual(
          (await s.leases.held(T0 + 1000)).map((l) => l.worker),
          ['w2'],
        );
        assert.equal((await s.urls.counts()).fetching, 1);
        assert.deepEqual(await s.leases.expire(T0 + 1000), { hosts: [], requeued: 0 }, 'nothing twice');
      }),
    );

    it(
      'keeps a host released with the time its politeness allows from every claim until then',
      test(async (s) => {
        await queue(s, 'http://a.org/1', 'http://a.org/2');
        await claim(s, 'w1', 1);
        await s.leases.release('w1', ['a.org'], new Map([['a.org', T0 + 500]]));
        assert.deepEqual(await s.leases.held(T0), [], 'released');
        assert.deepEqual(await claim(s, 'w2', 1, T0 + 499), [], 'not before the host may be asked again');
        assert.deepEqual(await claim(s, 'w2', 1, T0 + 500), ['a.org']);
      }),
    );

    it(
      'lists every lease, those that ran out unrenewed (stale) too',
      test(async (s) => {
        await queue(s, 'http://a.org/1', 'http://b.org/1');
        await s.leases.claim('w1', { max: 1, now: T0, leaseMs: 1000 });
        await s.leases.claim('w2', { max: 1, now: T0, leaseMs: 5000 });
        const all = await s.leases.list();
        assert.deepEqual(all.map((l) => [l.worker, l.expiresAt]).sort(), [
          ['w1', T0 + 1000],
          ['w2', T0 + 5000],
        ]);
        assert.deepEqual(
          (await s.leases.held(T0 + 2000)).map((l) => l.worker),
          ['w2'],
          'w1’s ran out: listed, not held',
        );
      }),
    );

    it(
      'keeps each worker’s last heartbeat, the most recent first',
      test(async (s) => {
        const beat = { machine: 'm', pid: 1, startedAt: T0, hosts: 2, pages: 10, pagesPerSecond: 1.5 };
        await s.leases.heartbeat({ ...beat, id: 'w1', now: T0 + 10 });
        await s.leases.heartbeat({ ...beat, id: 'w2', now: T0 + 20 });
        await s.leases.heartbeat({ ...beat, id: 'w1', now: T0 + 30, pages: 12, stopped: true });
        const seen = await s.leases.workers(T0);
        assert.deepEqual(
          seen.map((w) => [w.id, w.seenAt, w.pages, w.stoppedAt]),
          [
            ['w1', T0 + 30, 12, T0 + 30],
            ['w2', T0 + 20, 10, null],
          ],
        );
        assert.deepEqual(seen[1], {
          id: 'w2',
          machine: 'm',
          pid: 1,
          startedAt: T0,
          seenAt: T0 + 20,
          hosts: 2,
          pages: 10,
          pagesPerSecond: 1.5,
          stoppedAt: null,
        });
        assert.deepEqual(
          (await s.leases.workers(T0 + 25)).map((w) => w.id),
          ['w1'],
          'only those heard from since',
        );
      }),
    );
  });
}
