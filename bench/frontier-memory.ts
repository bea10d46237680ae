/**
 * bench/frontier-memory: queue 1,000,000 URLs over 1,000 hosts into the SQLite frontier and show
 * that the JavaScript heap does not grow in proportion (only per-host counters live in RAM).
 * Run with --expose-gc for exact heap figures:
 *   node --expose-gc --import tsx bench/frontier-memory.ts [--urls 1000000] [--hosts 1000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { schedulerOf } from '../appliance/wiring.ts';
import { loadConfig } from '../config/index.ts';
import { HostUrls } from '../crawler/index.ts';
import { openSqliteStore } from '../store/sqlite/index.ts';

const { values } = parseArgs({ options: { urls: { type: 'string', default: '1000000' }, hosts: { type: 'string', default: '1000' } } });
const total = Number(values.urls);
const hosts = Number(values.hosts);
const gc = (globalThis as { gc?: () => void }).gc;
const heap = () => {
  gc?.();
  return process.memoryUsage().heapUsed / 1e6;
};

const dir = mkdtempSync(join(tmpdir(), 'trawl-frontier-mem-'));
const store = openSqliteStore(dir);
// (A host's URLs and the ring of hosts, as both frontier adapters take them: no fetching here.)
const frontier = new HostUrls(store);
const scheduler = schedulerOf(loadConfig({ overrides: { perHost: { maxConnections: 1, delayMs: 0 } } }));
const before = heap();
const t0 = performance.now();
const samples: string[] = [];
const BATCH = 10_000;
for (let done = 0; done < total; done += BATCH) {
  const batch = Array.from({ length: Math.min(BATCH, total - done) }, (_, i) => {
    const n = done + i;
    return { url: `http://host${n % hosts}.example/section/${Math.floor(n / hosts)}/page.html?q=${n}`, depth: n % 7 };
  });
  for (const h of (await frontier.enqueue({ urls: batch })).hosts) scheduler.addWork(h);
  if ((done + BATCH) % (total / 4) === 0) samples.push(`${((done + BATCH) / 1e6).toFixed(2)}M queued: heap +${(heap() - before).toFixed(1)} MB`);
}
const seconds = (performance.now() - t0) / 1000;
const after = heap();
console.log(
  `queued ${(await store.urls.counts()).queued.toLocaleString('en')} URLs over ${hosts} hosts in ` +
    `${seconds.toFixed(1)} s (${Math.round(total / seconds).toLocaleString('en')} URLs/s, in transactions of ${BATCH})`,
);
for (const s of samples) console.log(`  ${s}`);
console.log(
  `heap growth: ${(after - before).toFixed(1)} MB for ${total.toLocaleString('en')} URLs = ` +
    `${(((after - before) * 1e6) / total).toFixed(1)} bytes per URL${gc ? '' : ' (run with --expose-gc for exact figures)'}`,
);
// Dequeue stays cheap however large the frontier: the partial index finds a host's next URL.
const t1 = performance.now();
let taken = 0;
for (let i = 0; i < 10_000; i++) {
  const h = scheduler.pick(0);
  if (!h) break;
  const q = await frontier.next(h);
  if (q) {
    await store.urls.finish(q.id, { outcome: { kind: 'fetched', status: 200 }, revisit: null }, Date.now());
    taken++;
  }
}
console.log(
  `dequeue: ${taken} URLs in ${(performance.now() - t1).toFixed(0)} ms (${(((performance.now() - t1) / taken) * 1000).toFixed(0)} µs each, ` +
    'round-robin over hosts)',
);
await store.close();
rmSync(dir, { recursive: true, force: true });
