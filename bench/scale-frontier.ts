/**
 * Part 2 of bench/scale, in a process of its own: a frontier of `urls` queued URLs over `hosts`
 * hosts in a throwaway PostgreSQL 15 (fsync and synchronous commit on, as in production), queued
 * through the store's own `enqueue` in batches (as a crawler's commits queue a page's links), then
 * host claims (`leases.claim`, one statement with FOR UPDATE SKIP LOCKED) timed one by one, each
 * claim's hosts released again as a worker that finished them would. Also timed once each on the
 * full frontier: `urls.counts()` and `hosts.withWork()`, which a crawler calls for its status and
 * its end test. Reads its settings as JSON from argv, prints one JSON line of figures.
 */
import pg from 'pg';
import type { NewUrl } from '../model/index.ts';
import { openPostgresStore } from '../store/postgres/index.ts';
import { startPostgres } from '../testweb/postgres.ts';

export type FrontierSettings = { urls: number; hosts: number; batch: number; claims: number; claimMax: number; workers: number };
export type FrontierFigures = {
  urls: number;
  hosts: number;
  enqueueSeconds: number;
  insertsPerSecond: number;
  batchP50Ms: number;
  batchP99Ms: number;
  claims: number;
  hostsClaimed: number;
  claimP50Ms: number;
  claimP99Ms: number;
  claimMaxMs: number;
  countsMs: number;
  withWorkMs: number;
  databaseMB: number;
};

const s = JSON.parse(process.argv[2]!) as FrontierSettings;
const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
};
const server = await startPostgres({ durable: true });
try {
  const location = await server.createDatabase('frontier');
  const store = await openPostgresStore(location, { poolSize: Math.max(2, s.workers) });
  // URL i is on host i mod H: every batch spreads over many hosts, as a crawl's links do.
  const urlAt = (i: number): NewUrl => ({ url: `http://h${i % s.hosts}.example/p/${Math.floor(i / s.hosts)}`, depth: 1 });
  const batches = Math.ceil(s.urls / s.batch);
  const batchMs: number[] = [];
  let next = 0;
  const t0 = performance.now();
  let lastReport = t0;
  // `workers` enqueuers at once, as that many crawler processes commit at once.
  await Promise.all(
    Array.from({ length: s.workers }, async () => {
      for (let b = next++; b < batches; b = next++) {
        const urls = Array.from({ length: Math.min(s.batch, s.urls - b * s.batch) }, (_, k) => urlAt(b * s.batch + k));
        const t = performance.now();
        await store.enqueue({ urls }, Date.now());
        batchMs.push(performance.now() - t);
        if (performance.now() - lastReport > 30_000) {
          lastReport = performance.now();
          process.stderr.write(`  … ${(batchMs.length * s.batch).toLocaleString('en')} URLs queued in ${((lastReport - t0) / 1000).toFixed(0)} s\n`);
        }
      }
    }),
  );
  const enqueueSeconds = (performance.now() - t0) / 1000;
  // Statistics as autovacuum would have them after such a load (it may not have run yet).
  const admin = new pg.Client({ connectionString: location });
  await admin.connect();
  await admin.query('VACUUM ANALYZE');
  let t = performance.now();
  await store.urls.counts();
  const countsMs = performance.now() - t;
  t = performance.now();
  await store.hosts.withWork();
  const withWorkMs = performance.now() - t;
  // Claims: a worker claims a batch of ready hosts and releases them when done (here at once).
  const claimMs: number[] = [];
  let hostsClaimed = 0;
  for (let k = 0; k < s.claims; k++) {
    const worker = `w${k % 4}`;
    t = performance.now();
    const hosts = await store.leases.claim(worker, { max: s.claimMax, now: Date.now(), leaseMs: 30_000 });
    claimMs.push(performance.now() - t);
    hostsClaimed += hosts.length;
    await store.leases.release(worker, hosts);
  }
  const size = Number((await admin.query<{ size: string }>('SELECT pg_database_size(current_database()) AS size')).rows[0]!.size);
  await admin.end();
  await store.close();
  const figures: FrontierFigures = {
    urls: s.urls,
    hosts: s.hosts,
    enqueueSeconds,
    insertsPerSecond: s.urls / enqueueSeconds,
    batchP50Ms: quantile(batchMs, 0.5),
    batchP99Ms: quantile(batchMs, 0.99),
    claims: s.claims,
    hostsClaimed,
    claimP50Ms: quantile(claimMs, 0.5),
    claimP99Ms: quantile(claimMs, 0.99),
    claimMaxMs: Math.max(...claimMs),
    countsMs,
    withWorkMs,
    databaseMB: size / 1e6,
  };
  console.log(JSON.stringify(figures));
} finally {
  await server.stop();
}
