/**
 * The query side of bench/search-while-crawling, in a process of its own: asks `/api/search` of a
 * Trawl server at a steady rate — open loop: each query leaves at its planned time whether the
 * last has come back or not, so that a server that stalls is charged for every query that
 * arrives meanwhile (no coordinated omission); a latency runs from the request's send to the end
 * of its body (this process's own timer delays are not the server's). Runs until a line `stop`
 * (or the end) on stdin, then prints one JSON line: each answered query as [when it was sent, in
 * ms since the epoch; its latency in ms], and the count of the others by cause. A rate of 0 asks
 * back to back instead (closed loop: one query in flight, the next sent when the last has come
 * back): the heaviest load one searcher can put on the server.
 *
 *   node --import tsx bench/query-load.ts BASE_URL RATE_PER_SECOND QUERIES_JSON
 */
import { createInterface } from 'node:readline';

const [base, rateArg, queriesJson] = process.argv.slice(2);
const rate = Number(rateArg);
const queries = JSON.parse(queriesJson ?? '[]') as string[];
if (!base || !(rate >= 0) || !queries.length) {
  console.error('usage: query-load.ts BASE_URL RATE_PER_SECOND QUERIES_JSON');
  process.exit(2);
}

const samples: [number, number][] = [];
const failures: Record<string, number> = {};
const inFlight = new Set<Promise<void>>();
let stopped = false;

async function ask(q: string): Promise<void> {
  const at = Date.now();
  const sent = performance.now();
  try {
    const res = await fetch(`${base}api/search?q=${encodeURIComponent(q)}`);
    await res.arrayBuffer();
    if (res.status === 200) samples.push([at, performance.now() - sent]);
    else failures[`HTTP ${res.status}`] = (failures[`HTTP ${res.status}`] ?? 0) + 1;
  } catch (e) {
    const cause = (e as Error).message;
    failures[cause] = (failures[cause] ?? 0) + 1;
  }
}

const interval = 1000 / rate;
const start = performance.now();
let n = 0;
const backToBack = async (): Promise<void> => {
  while (!stopped) await ask(queries[n++ % queries.length]!);
};
const tick = (): void => {
  if (stopped) return;
  const p = ask(queries[n % queries.length]!);
  inFlight.add(p);
  void p.finally(() => inFlight.delete(p));
  n++;
  setTimeout(tick, Math.max(0, start + n * interval - performance.now()));
};
if (rate === 0) {
  const p = backToBack();
  inFlight.add(p);
} else tick();

for await (const line of createInterface({ input: process.stdin })) if (line.trim() === 'stop') break;
stopped = true;
await Promise.all(inFlight);
console.log(JSON.stringify({ samples, failures }));
