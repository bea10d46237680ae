import assert from 'node:assert/strict';
import { createConnection, createServer, type Socket } from 'node:net';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { Slices } from './slices.ts';

/** Holds the thread for `ms`, as a page's commit or index add does. */
const busy = (ms: number) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};

/**
 * Ten units of work that become ready together, as parse results do: ten messages on a port, which
 * Node delivers in one go. Each unit takes its turn, then holds the thread 6 ms. A byte sent to a
 * loopback socket of this process just before is the search request: returns how many units had
 * run when its data event came, and the order the units ran in.
 */
async function burst(slices: Slices | undefined): Promise<{ doneWhenServed: number; order: number[] }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  const accepted = once(server, 'connection') as Promise<[Socket]>;
  const client = createConnection(port, '127.0.0.1');
  await once(client, 'connect');
  const [socket] = await accepted;
  const order: number[] = [];
  const all = new Promise<void>((resolve) => {
    const { port1, port2 } = new MessageChannel();
    port2.on('message', async (i: number) => {
      await slices?.turn();
      busy(6);
      order.push(i);
      if (order.length === 10) {
        port2.close();
        resolve();
      }
    });
    for (let i = 0; i < 10; i++) port1.postMessage(i);
  });
  client.write('?');
  const [served] = await Promise.all([once(socket, 'data').then(() => order.length), all]);
  client.destroy();
  server.close();
  return { doneWhenServed: served, order };
}

describe('Slices', () => {
  it('lets a request on a socket be served between units of work that became ready together, in their order', async () => {
    const sliced = await burst(new Slices(3));
    assert.ok(sliced.doneWhenServed <= 2, `the request waited for ${sliced.doneWhenServed} units of 6 ms`);
    assert.deepEqual(sliced.order, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'units run in the order they asked');
    // (The same burst unsliced: the request waits for all of it — what the slices are for.)
    assert.equal((await burst(undefined)).doneWhenServed, 10);
  });

  it('grants turns at once while the slice lasts and nobody waits', async () => {
    let now = 0;
    const slices = new Slices(3, () => now);
    assert.equal(slices.turn(), undefined);
    now = 2.9;
    assert.equal(slices.turn(), undefined, 'within the budget');
    now = 3;
    const later = slices.turn();
    assert.ok(later instanceof Promise, 'the budget spent: a later turn');
    assert.ok(slices.turn() instanceof Promise, 'someone waits: behind them');
    assert.equal(slices.queued, 2);
    await later;
    await new Promise((r) => setImmediate(r));
    assert.equal(slices.queued, 0, 'each waiting caller let go, one a turn of the loop');
  });

  it('leaves work that waits for turns about half the thread while searches come back to back (each let in on a turn of the loop)', async () => {
    const shareOfWork = async (gated: boolean) => {
      const slices = new Slices(3);
      let work = 0;
      let searching = 0;
      let stop = false;
      // (Work that always has more to do, a millisecond a unit: a crawl at full speed.)
      const crawl = (async () => {
        while (!stop) {
          await slices.turn();
          busy(1);
          work += 1;
        }
      })();
      const search = async () => {
        busy(6);
        searching += 6;
      };
      const until = performance.now() + 400;
      while (performance.now() < until) {
        await new Promise((r) => setImmediate(r));
        await (gated ? slices.search(search) : search());
      }
      stop = true;
      await crawl;
      return work / (work + searching);
    };
    const gated = await shareOfWork(true);
    // (Searches not gated: the work gets one slice between two of them — what the debt is for.)
    const ungated = await shareOfWork(false);
    assert.ok(gated >= 0.42 && gated > ungated + 0.08, `the work had ${(100 * gated).toFixed(0)} % of the thread (ungated ${(100 * ungated).toFixed(0)} %)`);
    assert.ok(ungated < 0.36, `ungated, the work still had ${(100 * ungated).toFixed(0)} %`);
  });

  it('keeps no search waiting when searches come a few a second, nor when no work waits', async () => {
    const slices = new Slices(3);
    let stop = false;
    const crawl = (async () => {
      while (!stop) {
        await slices.turn();
        busy(1);
      }
    })();
    const waits: number[] = [];
    for (let i = 0; i < 8; i++) {
      await new Promise((r) => setTimeout(r, 30));
      const asked = performance.now();
      await slices.search(async () => {
        waits.push(performance.now() - asked);
        busy(6);
      });
    }
    stop = true;
    await crawl;
    // (Nothing waits now: a search goes at once whatever it owes.)
    const asked = performance.now();
    await slices.search(async () => void waits.push(performance.now() - asked));
    waits.sort((a, b) => a - b);
    assert.ok(waits[Math.floor(waits.length / 2)]! < 1, `searches waited ${waits.map((w) => w.toFixed(1)).join(', ')} ms`);
  });
});
