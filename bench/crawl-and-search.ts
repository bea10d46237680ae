/**
 * bench/crawl-and-search: crawls the demo's sample web (the installed npm packages' docs on three
 * loopback hosts) and prints crawl throughput, index flush/load figures and query latency.
 * Medians over several runs; these machines are noisy.
 *
 *   npx tsx bench/crawl-and-search.ts [--runs 3] [--delay-ms 0] [--connections 4] [--concurrency 8]
 */
import type { StoredDocument } from '../model/index.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { startSampleWeb } from '../testweb/sample-web.ts';

const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '3' },
    'delay-ms': { type: 'string', default: '0' },
    connections: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '8' },
  },
});
const runs = Number(values.runs);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;
const fmt = (n: number, d = 1) => n.toFixed(d);

const web = await startSampleWeb({ modulesDir: fileURLToPath(new URL('../node_modules', import.meta.url)) });
console.log(
  `sample web: ${web.pageCount} pages on ${web.sites.length} hosts; ${runs} runs; ` +
    `delayMs ${values['delay-ms']}, maxConnections ${values.connections}, concurrency ${values.concurrency}`,
);

const crawl = { seconds: [] as number[], pagesPerSecond: [] as number[], mbPerSecond: [] as number[], pages: 0 };
let lastDir = '';
for (let r = 0; r < runs; r++) {
  if (lastDir) rmSync(lastDir, { recursive: true, force: true });
  lastDir = mkdtempSync(join(tmpdir(), 'trawl-bench-'));
  const app = await Appliance.open(
    loadConfig({
      overrides: {
        seeds: [...web.sites],
        dataDir: lastDir,
        concurrency: Number(values.concurrency),
        perHost: { delayMs: Number(values['delay-ms']), maxConnections: Number(values.connections) },
        // (The sample web's page that never answers, and its page that answers 500, would hold the
        // crawl's end for the default timeout and back-off: a throughput figure is not about them.)
        limits: { timeoutMs: 1000 },
        retry: { maxAttempts: 2, baseDelayMs: 50 },
      },
    }),
    { lockFor: 'bench' },
  );
  const { crawler } = await app.createCrawler();
  let bytes = 0;
  crawler.on('fetch', (e) => (bytes += e.bytes));
  const t0 = performance.now();
  await crawler.run();
  const s = (performance.now() - t0) / 1000;
  const fetched = (await app.status()).crawl.fetched;
  crawl.seconds.push(s);
  crawl.pagesPerSecond.push(fetched / s);
  crawl.mbPerSecond.push(bytes / 1e6 / s);
  crawl.pages = fetched;
  await app.close();
}
console.log(
  `crawl: ${crawl.pages} pages in ${fmt(median(crawl.seconds), 2)} s (median) ` +
    `→ ${fmt(median(crawl.pagesPerSecond))} pages/s, ${fmt(median(crawl.mbPerSecond), 2)} MB/s`,
);

// Flush and load of the last run's index.
const reader = await Appliance.open(loadConfig({ overrides: { dataDir: lastDir } }), { lockFor: 'bench' });
const flushes: number[] = [];
let first: StoredDocument | undefined;
for await (const d of reader.store.documents.all()) {
  first = d;
  break; // (the statement is released: the connection cannot write while it iterates)
}
for (let i = 0; i < 5; i++) {
  // Re-store one page so that each flush has a change to write (an unchanged index is not flushed).
  const changed = { ...first!, text: `${first!.text} revision${i}` };
  await reader.feed.put(changed, undefined, await reader.store.documents.put(changed));
  flushes.push((await reader.flush())!.ms);
}
const documents = reader.index.documentCount;
await reader.close();
const loads: number[] = [];
for (let i = 0; i < 5; i++) {
  const t = performance.now();
  const a = await Appliance.open(loadConfig({ overrides: { dataDir: lastDir } }));
  loads.push(performance.now() - t);
  await a.close();
}
console.log(`index: ${documents} documents; flush ${fmt(median(flushes))} ms (median of 5); open + load ${fmt(median(loads))} ms (median of 5)`);

// Query latency over the loaded index.
const app = await Appliance.open(loadConfig({ overrides: { dataDir: lastDir } }));
const queries: Record<string, string[]> = {
  'one word': ['request', 'timeout', 'parse', 'stream', 'buffer', 'version', 'error', 'install', 'option', 'encoding'],
  'two words': [
    'request timeout',
    'parse html',
    'stream error',
    'semver range',
    'export import',
    'tls certificate',
    'json schema',
    'cookie header',
    'retry handler',
    'utf encoding',
  ],
  'no match': ['zzqx', 'qqqzz wwwyy'],
};
for (const [kind, qs] of Object.entries(queries)) {
  const times: number[] = [];
  for (let rep = 0; rep < 30; rep++)
    for (const q of qs) {
      const t = performance.now();
      await app.index.search(q, { size: 10 });
      times.push(performance.now() - t);
    }
  console.log(`query (${kind}): p50 ${fmt(pct(times, 0.5), 2)} ms, p99 ${fmt(pct(times, 0.99), 2)} ms over ${times.length} searches, snippets included`);
}
await app.close();
rmSync(lastDir, { recursive: true, force: true });
await web.close();
