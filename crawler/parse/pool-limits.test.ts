// The parse pool's limits for hostile input: a wall-clock limit per job (a document that makes the
// extractor spin), and a pool that never parses on the main thread (documents).
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { logTo } from '../../lib/log.ts';
import { onEvent, waitFor } from '../../testweb/wait.ts';
import { extract, type Extracted, type ParseJob } from './extract.ts';
import { ParseFailure, ParsePool } from './pool.ts';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);

/** What extract() answers for a page, a sitemap or an unsupported type: at once, never a promise. */
function extractNow(job: ParseJob): Extracted {
  const e = extract(job);
  assert.ok(!(e instanceof Promise), 'a page is extracted synchronously');
  return e;
}

const job = (i: number, text = `<title>Page ${i}</title><p>word${i}</p>`): ParseJob => ({
  body: Buffer.from(text),
  contentType: 'text/html',
  url: `http://e.org/${i}`,
  ...SETTINGS,
});

/**
 * An extractor module like the real one, except that SPIN loops for ever, ASYNC awaits before it
 * goes on (and so spins after a wait, given SPIN too), and HOLD holds its job until the test lets it
 * go (heldJobs): it says so on a BroadcastChannel, which reaches the worker threads, and waits for
 * the word there.
 */
function spinningModule(): { module: URL; channel: string } {
  const module = join(mkdtempSync(join(tmpdir(), 'trawl-pool-')), 'spinning.ts');
  const channel = `trawl-pool-held-${module}`;
  writeFileSync(
    module,
    `import { extract as real } from ${JSON.stringify(fileURLToPath(new URL('./extract.ts', import.meta.url)))};
const held = () =>
  new Promise((resolve) => {
    const channel = new BroadcastChannel(${JSON.stringify(channel)});
    channel.onmessage = (e) => {
      if (e.data !== 'release') return;
      channel.close();
      resolve();
    };
    channel.postMessage('holding');
  });
export async function extract(job) {
  const text = Buffer.from(job.body).toString();
  if (text.includes('ASYNC')) await new Promise((r) => setImmediate(r));
  if (text.includes('HOLD')) await held();
  if (text.includes('SPIN')) for (;;) {}
  return real(job);
}\n`,
  );
  return { module: pathToFileURL(module), channel };
}

/** The test's side of the HOLD jobs of a spinningModule: when one is held in a worker, and letting them go. */
function heldJobs(channel: string): { holding: Promise<void>; release(): void; close(): void } {
  const bc = new BroadcastChannel(channel);
  const holding = new Promise<void>((resolve) => {
    bc.onmessage = (e) => e.data === 'holding' && resolve();
  });
  return { holding, release: () => bc.postMessage('release'), close: () => bc.close() };
}

describe('a parse pool with a time limit', () => {
  const pools: ParsePool[] = [];
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('stops a job that spins, fails it alone as a timeout, and parses the others with a new worker', async () => {
    const logs: string[] = [];
    const pool = new ParsePool(1, {
      log: logTo((m) => logs.push(m)),
      extractor: { module: spinningModule().module, extract },
      timeoutMs: 300,
      name: 'document',
    });
    pools.push(pool);
    await pool.ready();
    for (const word of ['SPIN', 'ASYNC SPIN']) {
      await pool.ready(); // (its replacement, after the first round: inline, the main thread's extract would answer)
      const t0 = performance.now();
      const settled = await Promise.allSettled([pool.parse(job(1)), pool.parse(job(2, `<title>${word}</title>`)), pool.parse(job(3))]);
      const ms = performance.now() - t0;
      const err = (settled[1] as PromiseRejectedResult).reason as ParseFailure;
      assert.ok(err instanceof ParseFailure && err.why === 'timeout', `${word}: ${String(err)}`);
      assert.match(err.message, /^timeout: extraction took longer than 300 ms/);
      assert.ok(ms < 3000, `${word}: ended after ${Math.round(ms)} ms`);
      assert.deepEqual((settled[0] as PromiseFulfilledResult<unknown>).value, extractNow(job(1)));
      assert.deepEqual((settled[2] as PromiseFulfilledResult<unknown>).value, extractNow(job(3)), 'the job queued behind it is parsed by the new worker');
    }
    assert.ok(
      logs.some((l) => /document worker stopped while parsing http:\/\/e\.org\/2/.test(l)),
      logs.join('\n'),
    );
    await pool.ready();
    assert.equal(pool.workers, 1);
  });

  it('lets a job that is only slow (its extractor awaits) finish within the limit', async () => {
    const pool = new ParsePool(1, { extractor: { module: spinningModule().module, extract }, timeoutMs: 2000 });
    pools.push(pool);
    await pool.ready();
    assert.deepEqual(await pool.parse(job(4, '<title>ASYNC</title>')), extractNow(job(4, '<title>ASYNC</title>')));
  });
});

describe('a parse pool that never parses inline', () => {
  it('waits for its workers instead of parsing on the main thread', async () => {
    const pool = new ParsePool(1, { inline: false });
    try {
      const results = await Promise.all([1, 2, 3].map((i) => pool.parse(job(i))));
      results.forEach((r, i) => {
        assert.deepEqual(r, extractNow(job(i + 1)));
      });
      assert.deepEqual(pool.parsed, { inWorkers: 3, inline: 0 });
    } finally {
      await pool.close();
    }
  });

  it('refuses the job when no worker can start, rather than parse it unprotected', async () => {
    const broken = join(mkdtempSync(join(tmpdir(), 'trawl-pool-')), 'broken.mjs');
    writeFileSync(broken, 'throw new Error("broken worker");\n');
    const pool = new ParsePool(1, { inline: false, entry: pathToFileURL(broken), name: 'document', log: logTo(() => undefined) });
    try {
      const err = await pool.parse(job(1)).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(err instanceof ParseFailure && err.why === 'unavailable', String(err));
      assert.equal(pool.parsed.inline, 0);
    } finally {
      await pool.close();
    }
  });
});

describe('a parse pool that sends each worker one job at a time (documents)', () => {
  it('keeps the others waiting on the main thread and gives each to the first worker that is free', async () => {
    const { module, channel } = spinningModule();
    const held = heldJobs(channel);
    const pool = new ParsePool(2, { extractor: { module, extract }, inline: false, jobsPerWorker: 1 });
    try {
      await pool.ready();
      const done: number[] = [];
      const finished = new EventEmitter();
      const jobs = [job(1, '<title>HOLD</title>'), job(2), job(3), job(4)];
      const all = Promise.all(
        jobs.map((j, i) =>
          pool.parse(j).then(() => {
            done.push(i + 1);
            finished.emit('job');
          }),
        ),
      );
      all.catch(() => undefined); // (awaited below; should the wait fail, the pool's closing refuses them)
      // Without the limit, job 3 is queued in the held job's worker (both have one job): it never ends while job 1 is held.
      await held.holding;
      await waitFor(() => done.length === 3, onEvent(finished, 'job'), { what: 'jobs 2, 3 and 4 to end while job 1 is held' });
      held.release();
      await all;
      assert.deepEqual(done, [2, 3, 4, 1]);
    } finally {
      held.close();
      await pool.close();
    }
  });

  it('hands a waiting job to the worker that replaces one stopped by the time limit', async () => {
    const pool = new ParsePool(1, {
      extractor: { module: spinningModule().module, extract },
      inline: false,
      jobsPerWorker: 1,
      timeoutMs: 300,
      name: 'document',
      log: logTo(() => undefined),
    });
    try {
      const settled = await Promise.allSettled([pool.parse(job(1, '<title>SPIN</title>')), pool.parse(job(2)), pool.parse(job(3))]);
      assert.ok((settled[0] as PromiseRejectedResult).reason instanceof ParseFailure);
      assert.deepEqual((settled[1] as PromiseFulfilledResult<unknown>).value, extractNow(job(2)));
      assert.deepEqual((settled[2] as PromiseFulfilledResult<unknown>).value, extractNow(job(3)));
    } finally {
      await pool.close();
    }
  });

  it('refuses the waiting jobs when it is closed', async () => {
    const { module, channel } = spinningModule();
    const held = heldJobs(channel);
    const pool = new ParsePool(1, { extractor: { module, extract }, inline: false, jobsPerWorker: 1 });
    await pool.ready();
    const first = pool.parse(job(1, '<title>HOLD</title>')).then(
      () => undefined,
      (e: unknown) => e,
    );
    const waiting = pool.parse(job(2)).then(
      () => undefined,
      (e: unknown) => e,
    );
    // (Closed once the worker has the first job in hand.)
    await held.holding;
    held.close();
    await pool.close();
    const err = await waiting;
    assert.ok(err instanceof ParseFailure && err.why === 'unavailable', String(err));
    const inHand = await first;
    assert.ok(inHand instanceof ParseFailure && inHand.why === 'unavailable', `the job the worker had: ${String(inHand)}`);
  });
});
