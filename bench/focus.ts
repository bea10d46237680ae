/**
 * bench/focus: what a focused crawl saves and what it finds. The PostgreSQL manual (Debian's
 * postgresql-doc-15, ~1,200 pages) is served by nginx and crawled from its table of contents twice:
 * unfocused, and focused on config/topics/database-replication.txt. Printed for each: pages
 * fetched, pages indexed, time (median of --runs), and — against a reference list of the pages
 * about replication, high availability and backup, chosen by file name — the focused crawl's
 * recall (reference pages it indexed) and precision (indexed pages in the reference).
 *
 *   npx tsx bench/focus.ts [--root /usr/share/doc/postgresql-doc-15/html] [--runs 3] [--seed index.html] [--cutoff 100] [--tunnel 1] \
 *     [--scorer plain|position] [--normalize]
 *   (Debian: apt-get install postgresql-doc-15 nginx-light)
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import type { CrawlStats } from '../crawler/index.ts';
import { startNginx, startNodeServer } from './corpus-server.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    runs: { type: 'string', default: '3' },
    seed: { type: 'string', default: 'index.html' },
    cutoff: { type: 'string', default: '100' },
    tunnel: { type: 'string', default: '1' },
    scorer: { type: 'string', default: 'plain' },
    normalize: { type: 'boolean', default: false },
  },
});
if (!existsSync(values.root!)) {
  console.error(`${values.root} does not exist. On Debian: apt-get install postgresql-doc-15 (or pass --root DIR)`);
  process.exit(2);
}
const TOPIC = new URL('../config/topics/database-replication.txt', import.meta.url).pathname;
/** The reference: pages of the manual about the topic, by their file names. */
const REFERENCE = new RegExp(
  '(replication|standby|high-availability|failover|hot-standby|warm-standby|logical-|wal-|backup|continuous-archiving|recovery|' +
    'pgbasebackup|pgreceivewal|pgrewind|publication|subscription|different-replication|log-shipping)',
);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

type Run = { seconds: number; fetched: number; indexed: string[]; classifyMs: number; classified: number };

async function crawl(seed: string, focus: Record<string, unknown> | undefined): Promise<Run> {
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-focus-'));
  const app = await Appliance.open(
    loadConfig({
      overrides: {
        seeds: [seed],
        dataDir,
        concurrency: 16,
        perHost: { delayMs: 0, maxConnections: 16 },
        limits: { maxDepth: 100, maxPages: 0 },
        ...(focus ? { focus } : {}),
      },
    }),
    { lockFor: 'bench' },
  );
  await app.loadFocus();
  const { crawler } = await app.createCrawler([], 'off');
  let fetched = 0;
  crawler.on('fetch', () => fetched++);
  let stats: CrawlStats | undefined;
  crawler.on('stats', (s) => (stats = s));
  const t0 = performance.now();
  await crawler.run();
  const seconds = (performance.now() - t0) / 1000;
  const indexed: string[] = [];
  for await (const d of app.store.documents.all()) indexed.push(d.url);
  await app.close();
  rmSync(dataDir, { recursive: true, force: true });
  return { seconds, fetched, indexed, classifyMs: stats?.stages.classify.ms ?? 0, classified: stats?.stages.classify.count ?? 0 };
}

const server = existsSync('/usr/sbin/nginx') ? await startNginx(values.root!, 1) : await startNodeServer(values.root!);
try {
  const seed = new URL(values.seed!, server.bases[0]).href;
  const focus = { topicFile: TOPIC, cutoff: Number(values.cutoff), tunnel: Number(values.tunnel), scorer: values.scorer, normalize: values.normalize };
  const runs = Number(values.runs);
  const plain: Run[] = [];
  const focused: Run[] = [];
  for (let i = 0; i < runs; i++) {
    plain.push(await crawl(seed, undefined));
    focused.push(await crawl(seed, focus));
  }
  const p = plain.at(-1)!;
  const f = focused.at(-1)!;
  const reference = p.indexed.filter((u) => REFERENCE.test(u.slice(u.lastIndexOf('/') + 1)));
  const hits = f.indexed.filter((u) => reference.includes(u));
  const ps = median(plain.map((r) => r.seconds));
  const fs = median(focused.map((r) => r.seconds));
  console.log(`corpus: ${values.root} (${p.indexed.length} pages indexed unfocused; ${reference.length} in the reference list)`);
  console.log(
    `seed: ${values.seed}; focus: ${TOPIC.replace(/.*\/config\//, 'config/')}, ${values.scorer} scorer${values.normalize ? ', normalized' : ''}, ` +
      `cutoff ${values.cutoff}, tunnel ${values.tunnel}; median of ${runs} runs`,
  );
  console.log(`unfocused: ${p.fetched} requests, ${p.indexed.length} indexed, ${ps.toFixed(2)} s`);
  console.log(
    `focused:   ${f.fetched} requests (${((f.fetched / p.fetched) * 100).toFixed(1)} %), ` +
      `${f.indexed.length} indexed, ${fs.toFixed(2)} s (${((fs / ps) * 100).toFixed(1)} %)`,
  );
  console.log(
    `classifying: ${f.classified} pages, ` +
      `${(median(focused.map((r) => r.classifyMs / Math.max(1, r.classified)))).toFixed(2)} ms a page on the main thread (median of runs)`,
  );
  console.log(
    `focused vs reference: recall ${hits.length}/${reference.length} = ${((hits.length / reference.length) * 100).toFixed(1)} %, ` +
      `precision ${hits.length}/${f.indexed.length} = ${((hits.length / Math.max(1, f.indexed.length)) * 100).toFixed(1)} %`,
  );
  const missed = reference.filter((u) => !f.indexed.includes(u)).map((u) => u.slice(u.lastIndexOf('/') + 1));
  if (missed.length) console.log(`missed: ${missed.slice(0, 15).join(', ')}${missed.length > 15 ? ', …' : ''}`);
  const extra = f.indexed.filter((u) => !reference.includes(u)).map((u) => u.slice(u.lastIndexOf('/') + 1));
  if (extra.length) console.log(`indexed outside the reference: ${extra.slice(0, 15).join(', ')}${extra.length > 15 ? ', …' : ''}`);
} finally {
  server.server.kill();
}
