/**
 * bench/query-time: what bench/relevance's queries cost, this checkout against another, as paired
 * runs in one invocation — each side a fresh process over a data directory crawled by its own
 * code (its index, its extraction), the two alternated (ABAB…), and the median of the per-pair
 * ratios printed: a ratio of two runs of different moments is no ratio on a machine whose speed
 * drifts by 40 %.
 *
 *   npx tsx bench/query-time.ts --data DIR --queries bench/relevance/rust.json \
 *     [--against ../old-checkout --against-data DIR2] [--pairs 4]
 *
 * Each run asks every query three ways (exact, as typed halfway, with one typo: relevance/variants.ts)
 * three rounds after one warm-up round, in process (ranking, snippets, facets: a whole answer), and
 * prints its p50 / p90 / p99. The data directories are opened read-only; make each with its own
 * checkout (`bin/trawl.js crawl URL --data DIR`, or a crawl like bench/relevance's). Without
 * --against, this checkout's runs alone.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { variantOf, VARIANTS } from './relevance/variants.ts';

const { values } = parseArgs({
  options: {
    data: { type: 'string' },
    queries: { type: 'string', default: new URL('./relevance/postgresql.json', import.meta.url).pathname },
    against: { type: 'string' },
    'against-data': { type: 'string' },
    pairs: { type: 'string', default: '4' },
    // (A child: one run of one checkout, its figures as a JSON line.)
    child: { type: 'string' },
  },
});

type Figures = { p50: number; p90: number; p99: number; asks: number };

if (values.child) {
  console.log(JSON.stringify(await oneRun(values.child, values.data!, values.queries!)));
  process.exit(0);
}

if (!values.data) {
  console.error('usage: npx tsx bench/query-time.ts --data DIR [--queries FILE] [--against CHECKOUT --against-data DIR] [--pairs N]');
  process.exit(2);
}
if (values.against && !values['against-data']) {
  console.error('--against needs --against-data: a data directory crawled by that checkout');
  process.exit(2);
}
const here = resolve(new URL('..', import.meta.url).pathname);
const sides = [
  { name: 'this', root: here, data: values.data },
  ...(values.against ? [{ name: 'against', root: resolve(values.against), data: values['against-data']! }] : []),
];
const pairs = Number(values.pairs);
const runs: Record<string, Figures[]> = Object.fromEntries(sides.map((s) => [s.name, []]));
console.log(`queries: ${values.queries}; ${pairs} rounds of ${sides.map((s) => `${s.name} (${s.root}, ${s.data})`).join(' then ')}`);
for (let i = 0; i < pairs; i++) {
  // (ABAB…, the order flipped every other round: neither side always runs on the warmer machine.)
  for (const side of i % 2 ? [...sides].reverse() : sides) {
    const out = execFileSync(
      process.execPath,
      ['--import', 'tsx', new URL(import.meta.url).pathname, '--child', side.root, '--data', side.data, '--queries', values.queries!],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const f = JSON.parse(out.trim().split('\n').at(-1)!) as Figures;
    runs[side.name]!.push(f);
    console.log(
      `  round ${i + 1}, ${side.name.padEnd(7)}: p50 ${f.p50.toFixed(2)} ms, p90 ${f.p90.toFixed(2)} ms, p99 ${f.p99.toFixed(2)} ms (${f.asks} asks)`,
    );
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
for (const side of sides) {
  const r = runs[side.name]!;
  const at = (k: 'p50' | 'p90' | 'p99') => `${k} ${median(r.map((x) => x[k])).toFixed(2)} ms`;
  console.log(`${side.name}: median ${at('p50')}, ${at('p90')}, ${at('p99')}`);
}
if (values.against) {
  const ratio = (k: keyof Figures) => median(runs.this!.map((x, i) => x[k] / runs.against![i]![k]));
  console.log(
    `this / against, median of the ${pairs} per-pair ratios: p50 ${ratio('p50').toFixed(2)}, p90 ${ratio('p90').toFixed(2)}, p99 ${ratio('p99').toFixed(2)}`,
  );
}

/** One run: the checkout at `root` over `data` (read-only), every query three ways, three rounds after a warm-up. */
async function oneRun(root: string, data: string, queries: string): Promise<Figures> {
  const { Appliance } = (await import(`${root}/appliance/index.ts`)) as typeof import('../appliance/index.ts');
  const { loadConfig } = (await import(`${root}/config/index.ts`)) as typeof import('../config/index.ts');
  const set = JSON.parse(readFileSync(queries, 'utf8')) as { queries: { q: string }[] };
  const app = await Appliance.open(loadConfig({ overrides: { dataDir: data, seeds: ['http://127.0.0.1/'] } }), { lockFor: 'bench', readOnlyStore: true });
  try {
    for (const { q } of set.queries) await app.index.search(q, { size: 10 });
    const times: number[] = [];
    for (let round = 0; round < 3; round++)
      for (const v of VARIANTS)
        for (const { q } of set.queries) {
          const t0 = performance.now();
          await app.index.search(variantOf(q, v), { size: 10 });
          times.push(performance.now() - t0);
        }
    times.sort((a, b) => a - b);
    const at = (p: number) => times[Math.min(times.length - 1, Math.floor((p / 100) * times.length))]!;
    return { p50: at(50), p90: at(90), p99: at(99), asks: times.length };
  } finally {
    // (A read-only store cannot prune the change log on close: what the run measured stands.)
    await app.close().catch(() => undefined);
  }
}
