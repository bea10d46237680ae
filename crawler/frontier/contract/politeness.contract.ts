/** The contract of politeness: connections and delays per host, robots.txt as a gate, a host that keeps failing given up. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { disallowing, drive, type FrontierFactory, heldRobots, queue, type Taken, withFrontier } from './harness.ts';

/** The most requests to one host in flight at once, from when each was handed out and ended. */
function mostInFlight(taken: readonly Taken[], host: string): number {
  const events = taken
    .filter((t) => t.host === host && t.end !== undefined)
    .flatMap((t) => [
      [t.at, 1],
      [t.end!, -1],
    ])
    // (An end and a start at the same time: the end first, as the frontier saw them.)
    .sort((a, b) => a[0]! - b[0]! || a[1]! - b[1]!);
  let now = 0;
  let most = 0;
  for (const [, d] of events) most = Math.max(most, (now += d!));
  return most;
}

export function politenessContract(factory: FrontierFactory): void {
  describe('politeness', () => {
    it(
      'never has more than perHost.maxConnections requests to a host in flight, whatever the concurrency',
      withFrontier(factory, { policy: { maxConnections: 2, delayMs: 0 } }, async ({ frontier, clock }) => {
        await queue(frontier, ...Array.from({ length: 10 }, (_, i) => `http://a.org/${i}`), 'http://b.org/1', 'http://b.org/2');
        const { taken, done } = await drive(frontier, clock, { concurrency: 8, fetchMs: 100 });
        assert.equal(taken.length, 12);
        assert.equal(mostInFlight(taken, 'a.org'), 2);
        assert.equal(mostInFlight(taken, 'b.org'), 2);
        assert.equal(done, 'exhausted');
      }),
    );

    it(
      "waits perHost.delayMs from the end of a host's request to the start of its next",
      withFrontier(factory, { policy: { maxConnections: 1, delayMs: 300 } }, async ({ frontier, clock }) => {
        await queue(frontier, 'http://a.org/1', 'http://a.org/2', 'http://a.org/3', 'http://b.org/1');
        const { taken } = await drive(frontier, clock, { concurrency: 4, fetchMs: 50 });
        const a = taken.filter((t) => t.host === 'a.org');
        assert.equal(a.length, 3);
        for (let i = 1; i < a.length; i++) assert.equal(a[i]!.at - a[i - 1]!.end!, 300, `before ${a[i]!.path}`);
        assert.ok(taken.findIndex((t) => t.host === 'b.org') < 2, 'the other host was not held up meanwhile');
      }),
    );

    it("holds a host's URLs while its robots.txt loads, and no other host's; hands a disallowed URL out marked; keeps its Crawl-delay", async () => {
      const robots = heldRobots(new Map([['a.org', disallowing('/private', 2)]]));
      await withFrontier(factory, { policy: { maxConnections: 1, delayMs: 0 }, robots: robots.source }, async ({ frontier, clock }) => {
        // (One at a time: a store may number the URLs of one batch in another order.)
        for (const url of ['http://a.org/1', 'http://a.org/private', 'http://a.org/2', 'http://b.org/1', 'http://b.org/2']) await queue(frontier, url);
        let bDone = 0;
        const { taken } = await drive(frontier, clock, {
          concurrency: 4,
          fetchMs: 10,
          // (a.org's robots.txt comes once b.org is crawled: b.org must not wait for it.)
          onFinish: (item) => item.host === 'b.org' && ++bDone === 2 && robots.release(),
        });
        assert.deepEqual(robots.loads, ['a.org'], 'loaded once');
        const described = taken.map((t) => `${t.host}${t.path}${t.item.disallowed ? ' (disallowed)' : ''}`);
        assert.deepEqual(described.slice(0, 2), ['b.org/1', 'b.org/2'], 'b.org while a.org waited');
        // (In which order a.org's come: the URL that found robots.txt unknown went back to the
        // queue — behind those a shared frontier took ahead with it.)
        assert.deepEqual(described.slice(2).sort(), ['a.org/1', 'a.org/2', 'a.org/private (disallowed)']);
        const [first, second] = taken.filter((t) => t.host === 'a.org' && !t.item.disallowed);
        assert.equal(second!.at - first!.end!, 2000, "robots.txt's Crawl-delay of 2 s");
      })();
    });

    it(
      'gives a host up once it was suspended perHost.maxSuspensions times: its URLs die, with why',
      withFrontier(
        factory,
        { policy: { maxConnections: 1, delayMs: 0, suspendAfterErrors: 2, suspendMs: 1000 }, maxSuspensions: 1 },
        async ({ frontier, clock, store }) => {
          await queue(frontier, ...[1, 2, 3, 4, 5].map((i) => `http://a.org/${i}`));
          const { taken, done } = await drive(frontier, clock, {
            concurrency: 1,
            fetchMs: 10,
            fate: (_, at) => ({ outcome: { kind: 'failed', error: 'http-5xx', reason: 'HTTP 503', retryAt: at + 60_000 }, hostFault: true }),
          });
          assert.equal(taken.length, 2, 'two failures suspend the host once: given up');
          assert.equal(done, 'exhausted');
          assert.deepEqual(frontier.givenUp('a.org'), { error: 'host-suspended', reason: 'suspended 1 times; last error: http-5xx' });
          const counts = await store.urls.counts();
          assert.deepEqual([counts.dead, counts.queued, counts.failed], [5, 0, 0], 'the failed and the queued URLs died with it');
        },
      ),
    );
  });
}
