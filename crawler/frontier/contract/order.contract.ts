/** The contract of the order URLs come in: breadth-first per host, hosts in turn, revisits every other turn, retries when due. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { drive, type FrontierFactory, queue, T0, withFrontier } from './harness.ts';

export function orderContract(factory: FrontierFactory): void {
  const one = { concurrency: 1, fetchMs: 10 };

  describe('the order of URLs', () => {
    it(
      "hands a host's URLs out breadth-first: lower depth first, then in the order they were queued",
      withFrontier(factory, { policy: { delayMs: 0 } }, async ({ frontier, clock }) => {
        // (One at a time: a store may number the URLs of one batch in another order.)
        for (const [path, depth] of [
          ['/deep', 2],
          ['/second', 1],
          ['/root', 0],
          ['/first', 1],
          ['/root2', 0],
        ] as const)
          await queue(frontier, { url: `http://a.org${path}`, depth });
        const { taken, done } = await drive(frontier, clock, one);
        assert.deepEqual(
          taken.map((t) => t.path),
          ['/root', '/root2', '/second', '/first', '/deep'],
        );
        assert.equal(done, 'exhausted');
      }),
    );

    it(
      'serves hosts in turn: each host once before any host twice, in the same order each round',
      withFrontier(factory, { policy: { delayMs: 0 } }, async ({ frontier, clock }) => {
        for (const host of ['a.org', 'b.org', 'c.org']) await queue(frontier, `http://${host}/1`, `http://${host}/2`, `http://${host}/3`);
        const { taken } = await drive(frontier, clock, one);
        const hosts = taken.map((t) => t.host);
        assert.equal(hosts.length, 9);
        const round = hosts.slice(0, 3);
        assert.deepEqual([...round].sort(), ['a.org', 'b.org', 'c.org']);
        assert.deepEqual(hosts, [...round, ...round, ...round]);
      }),
    );

    it(
      'takes due revisits every other turn while a host also has new URLs, then the rest',
      withFrontier(factory, { policy: { delayMs: 0 }, revisits: 'continuous' }, async ({ frontier, clock }) => {
        await queue(frontier, 'http://a.org/old1', 'http://a.org/old2');
        // Fetched once, each due again half a second later.
        await drive(frontier, clock, { ...one, fate: (_, at) => ({ outcome: { kind: 'indexed', status: 200 }, revisit: { at: at + 500, intervalMs: 500 } }) });
        await queue(frontier, ...['n1', 'n2', 'n3'].map((n) => ({ url: `http://a.org/${n}`, depth: 1 })));
        clock.set(T0 + 10_000);
        const { taken } = await drive(frontier, clock, { ...one, until: (t) => t.length === 5 });
        assert.deepEqual(
          taken.map((t) => [t.path, t.kind]),
          [
            ['/n1', 'queued'],
            ['/old1', 'revisit'],
            ['/n2', 'queued'],
            ['/old2', 'revisit'],
            ['/n3', 'queued'],
          ],
        );
      }),
    );

    it(
      'takes no revisit in a pass over named pages (revisits off)',
      withFrontier(factory, { policy: { delayMs: 0 }, revisits: 'off' }, async ({ frontier, clock }) => {
        await queue(frontier, 'http://a.org/old');
        await drive(frontier, clock, { ...one, fate: (_, at) => ({ outcome: { kind: 'indexed', status: 200 }, revisit: { at: at + 500, intervalMs: 500 } }) });
        await queue(frontier, 'http://a.org/new');
        clock.set(T0 + 10_000);
        const { taken, done } = await drive(frontier, clock, one);
        assert.deepEqual(
          taken.map((t) => t.path),
          ['/new'],
        );
        assert.equal(done, 'exhausted');
      }),
    );

    it(
      'brings a failed URL back once its retry is due, not before, and is not done while it waits',
      withFrontier(factory, { policy: { delayMs: 0 } }, async ({ frontier, clock }) => {
        await queue(frontier, 'http://a.org/flaky', 'http://a.org/steady');
        let failures = 0;
        const { taken, done } = await drive(frontier, clock, {
          ...one,
          fate: (item, at) =>
            item.url.endsWith('/flaky') && failures++ === 0
              ? { outcome: { kind: 'failed', error: 'timeout', reason: 'timeout', retryAt: at + 5000 } }
              : { outcome: { kind: 'indexed', status: 200 } },
        });
        assert.deepEqual(
          taken.map((t) => [t.path, t.kind]),
          [
            ['/flaky', 'queued'],
            ['/steady', 'queued'],
            ['/flaky', 'retry'],
          ],
        );
        assert.ok(taken[2]!.at >= taken[0]!.end! + 5000, `tried again at +${taken[2]!.at - taken[0]!.end!} ms`);
        assert.equal(done, 'exhausted');
      }),
    );
  });
}
