// Integration (issue 22): a sharded index over HTTP. The sample web (the installed npm packages'
// docs, several hundred pages on three loopback sites) is crawled into a throwaway PostgreSQL;
// one `trawl serve --store` node indexes every page, two `--shard 1/2` and `--shard 2/2` nodes a
// share each, and a coordinator `--shards` merges the two. The coordinator answers as the one
// node does — the same top ten (URLs, order, scores), totals, facets, pages — while the same
// merge of the shards' answers with each shard's own statistics would not; a shard that hangs or
// is down leaves a partial answer within the timeout, said in the JSON and on the page.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { mergeAnswers } from '../indexer/shards/merge.ts';
import type { ShardAnswer } from '../indexer/shards/index.ts';
import { tokenize } from '../indexer/index.ts';
import { startPostgres, type ThrowawayPostgres } from '../testweb/postgres.ts';
import { startSampleWeb, type SampleWeb } from '../testweb/sample-web.ts';
import { onOutput, waitFor } from '../testweb/wait.ts';

const BIN = fileURLToPath(new URL('../bin/trawl.js', import.meta.url));
const MODULES = fileURLToPath(new URL('../node_modules', import.meta.url));
const dirs: string[] = [];
const tmp = (name: string) => {
  const dir = mkdtempSync(join(tmpdir(), `trawl-shards-${name}-`));
  dirs.push(dir);
  return dir;
};
const TOKEN = 'shard-cluster-token-0123456789';
const TIMEOUT_MS = 1500;

type Proc = { child: ChildProcess; exited: Promise<number | null>; stderr: () => string; stdout: () => string };

function trawl(args: string[]): Proc {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, TRAWL_ADMIN_TOKEN: TOKEN } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  return { child, exited: new Promise((resolve) => child.on('close', resolve)), stderr: () => stderr, stdout: () => stdout };
}

/** The URL a server prints once it listens, read from its output as it comes. */
async function served(p: Proc): Promise<string> {
  return waitFor(() => /Search at (\S+)/.exec(p.stdout())?.[1], onOutput(p.child), { what: 'the server address' }).catch((e: Error) =>
    assert.fail(`${e.message}\n${p.stderr()}`),
  );
}

type Json = {
  total: number;
  partial: boolean;
  facets: unknown;
  hits: { url: string; title: string; score: number; similar?: unknown }[];
  shards?: { asked: number; answered: number; partial: boolean; missing: { shard: string; error: string }[]; statisticsMissed?: number };
};
const get = async <T = Json>(url: string): Promise<T> => {
  const res = await fetch(url);
  assert.equal(res.status, 200, `${url}: ${await res.clone().text()}`);
  return (await res.json()) as T;
};
const searchOf = (base: string, q: string, page = 1) => get(`${base}api/search?q=${encodeURIComponent(q)}&page=${page}`);
/** What must be equal: each hit's URL, title, score and near-duplicates; the totals and the facets. */
const seen = (r: Json) => ({
  total: r.total,
  partial: r.partial,
  facets: r.facets,
  hits: r.hits.map((h) => ({ url: h.url, title: h.title, score: h.score, similar: h.similar })),
});

/** Queries of every kind, over the packages' docs. */
const QUERIES = [
  'parser',
  'stream',
  'install',
  'options',
  'error handling',
  'typescript types',
  'command line',
  'file system path',
  'async callback',
  'http request headers',
  'json schema',
  'node module resolution',
  'configur',
  'instal',
  'optoins',
  '"the default"',
  'license OR copyright',
  'parse -json',
  'buffer encoding',
  'promise resolve reject',
];

describe('a sharded index over HTTP on one PostgreSQL', () => {
  let server: ThrowawayPostgres;
  let web: SampleWeb;
  let db: string;
  let config: string;
  const running: Proc[] = [];
  before(async () => {
    server = await startPostgres();
    web = await startSampleWeb({ modulesDir: MODULES });
    db = await server.createDatabase();
    config = join(tmp('config'), 'trawl.json');
    writeFileSync(
      config,
      JSON.stringify({
        seeds: web.sites,
        concurrency: 8,
        perHost: { maxConnections: 4, delayMs: 0 },
        cluster: { shardTimeoutMs: TIMEOUT_MS },
        index: { flushIntervalMs: 1000 },
        // (The sample web's deliberate failures — a page that never answers, one that answers 500 —
        // would hold the crawl's end for the default timeout and back-off: nothing here is about them.)
        limits: { timeoutMs: 1000 },
        retry: { maxAttempts: 2, baseDelayMs: 50 },
      }),
    );
    const crawl = trawl(['crawl', '--config', config, '--store', db, '--data', tmp('crawl')]);
    assert.equal(await crawl.exited, 0, crawl.stderr());
  });
  after(async () => {
    for (const p of running) if (p.child.exitCode === null) p.child.kill('SIGKILL');
    await Promise.all(running.map((p) => p.exited));
    await web.close();
    await server.stop();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
  const start = (args: string[]) => {
    const p = trawl(['serve', '--config', config, '--port', '0', ...args]);
    running.push(p);
    return p;
  };

  it(
    'two shards merged answer as one node over every page: the same top ten, scores, totals and facets; ' + "with each shard's own statistics they would not",
    async () => {
      const node = start(['--store', db, '--data', tmp('node')]);
      const shards = [start(['--store', db, '--data', tmp('shard1'), '--shard', '1/2']), start(['--store', db, '--data', tmp('shard2'), '--shard', '2/2'])];
      const [one, a, b] = (await Promise.all([node, ...shards].map(served))) as [string, string, string];
      const coordinator = start(['--shards', `${a},${b}`]);
      const merged = await served(coordinator);
      assert.match(coordinator.stdout(), /coordinator of 2 shards \(2 answering, \d+ documents\)/);
      const documents = (await get<{ documents: number }>(`${one}healthz`)).documents;
      assert.ok(documents > 300, `${documents} pages crawled`);
      const health = await get<{ ok: boolean; documents: number; shards: { up: boolean; shard: string; documents: number }[] }>(`${merged}healthz`);
      assert.deepEqual(
        health.shards.map((s) => [s.up, s.shard]),
        [
          [true, '1/2'],
          [true, '2/2'],
        ],
      );
      assert.equal(health.documents, documents, 'the shards hold every page once');
      assert.ok(
        health.shards.every((s) => s.documents > documents / 3),
        'both hold a good share',
      );

      let reordered = 0;
      let compared = 0;
      for (const q of QUERIES) {
        for (const page of [1, 2]) {
          const whole = await searchOf(one, q, page);
          const sharded = await searchOf(merged, q, page);
          assert.deepEqual(seen(sharded), seen(whole), `${q} (page ${page})`);
          assert.deepEqual(sharded.shards, { asked: 2, answered: 2, partial: false, missing: [] }, q);
        }
        // The same merge, of the shards' answers ranked with their own statistics.
        const local = await Promise.all(
          [a, b].map(
            async (u) =>
              (await (
                await fetch(`${u}api/shard/search`, {
                  method: 'POST',
                  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
                  body: JSON.stringify({ q, page: 1, size: 10 }),
                })
              ).json()) as ShardAnswer,
          ),
        );
        const m = mergeAnswers(local, { page: 1, size: 10, phrases: q.includes('"'), foldDistance: 3, last: true });
        // (A page whose leaders a shard sent without their hit needs a second round, as the
        // coordinator makes: such a query is left out of this comparison, which is one round's.)
        if (!('response' in m)) continue;
        compared++;
        if (JSON.stringify(m.response.hits.map((h) => h.url)) !== JSON.stringify((await searchOf(one, q)).hits.map((h) => h.url))) reordered++;
      }
      assert.ok(compared >= QUERIES.length / 2, `${compared} of ${QUERIES.length} queries merged in one round`);
      assert.ok(reordered >= compared / 4, `local statistics reorder the top ten of ${reordered} of ${compared} queries`);
      console.log(`local statistics reorder the top ten of ${reordered} of ${compared} queries (${QUERIES.length - compared} needed a second round)`);

      // Completions as you type: the same words, most frequent first.
      for (const q of ['pars', 'conf', 'http req']) {
        const stems = async (u: string) => [
          ...new Set((await get<{ suggestions: string[] }>(`${u}api/suggest?q=${encodeURIComponent(q)}`)).suggestions.map((s) => tokenize(s).join(' '))),
        ];
        assert.deepEqual(await stems(merged), await stems(one), q);
      }
      const status = await get<{ shards: { url: string; up: boolean }[]; index: { documents: number } }>(`${merged}api/status`);
      assert.deepEqual(
        status.shards.map((s) => [s.url, s.up]),
        [
          [a, true],
          [b, true],
        ],
      );
      assert.equal(status.index.documents, documents);

      // A shard that hangs (stopped: it takes the connection and never answers): the answer comes
      // within the timeout, from the other shard, and says which is missing.
      shards[1]!.child.kill('SIGSTOP');
      try {
        const started = performance.now();
        const r = await searchOf(merged, 'options');
        const ms = performance.now() - started;
        assert.ok(ms < 3 * TIMEOUT_MS + 1000, `answered in ${Math.round(ms)} ms`);
        assert.equal(r.shards!.partial, true);
        assert.deepEqual(
          r.shards!.missing.map((x) => x.shard),
          [b],
        );
        assert.match(r.shards!.missing[0]!.error, /no answer within 1500 ms/);
        assert.ok(r.hits.length > 0 && r.total < (await searchOf(one, 'options')).total, "the other shard's pages only");
        const page = await (await fetch(`${merged}?q=options`)).text();
        assert.match(page, /Results may be missing: 1 of 2 parts of the index did not answer/);
      } finally {
        shards[1]!.child.kill('SIGCONT');
      }
      // Down: refused at once.
      shards[1]!.child.kill('SIGKILL');
      await shards[1]!.exited;
      const started = performance.now();
      const r = await searchOf(merged, 'options');
      assert.ok(performance.now() - started < TIMEOUT_MS, 'a refused connection is told at once');
      assert.deepEqual(
        r.shards!.missing.map((x) => x.shard),
        [b],
      );
      // (Asked again each time the coordinator says something: it tells when a shard stops answering.)
      const down = await waitFor(
        async () => {
          const h = await get<{ ok: boolean; shards: { up: boolean }[] }>(`${merged}healthz`);
          return !h.shards[1]!.up && h;
        },
        onOutput(coordinator.child),
        { what: 'the coordinator to see the shard down' },
      );
      assert.deepEqual([down.ok, down.shards.map((s) => s.up)], [true, [true, false]], 'healthz: still answering, one shard down');
    },
  );
});

describe('trawl serve --shard and --shards, given wrong', () => {
  it('refuses a shard without a shared store, a coordinator with a shard, and a K/N that is not one, with exit code 2', async () => {
    for (const [args, message] of [
      [['--shard', '1/2', '--data', tmp('alone')], /--shard 1\/2 needs the store the shards share: give --store/],
      [['--shards', 'http://127.0.0.1:9/', '--shard', '1/2'], /a coordinator \(--shards\) holds no shard of its own/],
      [['--shard', '0/2'], /`cluster.shard`: "0\/2": K counts from 1 to N/],
      [['--shards', 'ftp://example.org/'], /`cluster.shards.0`: must be an absolute http/],
    ] as const) {
      const p = trawl(['serve', '--port', '0', ...args]);
      assert.equal(await p.exited, 2, args.join(' '));
      assert.match(p.stderr(), message);
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });
});
