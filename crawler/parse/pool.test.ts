import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { logTo } from '../../lib/log.ts';
import { onEvent, waitFor } from '../../testweb/wait.ts';
import { execFileSync } from 'node:child_process';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { extract, type Extracted, type ParseJob } from './extract.ts';
import { LeaveToWorker } from './jobs.ts';
import { ParseFailure, ParsePool } from './pool.ts';
import { readdirSync } from 'node:fs';
import { threadNiceness, WORKER_NICENESS } from '../../lib/thread-priority.ts';

/** Every thread of this process and its nice value. */
function threadNicenesses(): Map<number, number | undefined> {
  return new Map(readdirSync('/proc/self/task').map((t) => [Number(t), threadNiceness(Number(t))]));
}

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);

/** What extract() answers for a page, a sitemap or an unsupported type: at once, never a promise. */
function extractNow(job: ParseJob): Extracted {
  const e = extract(job);
  assert.ok(!(e instanceof Promise), 'a page is extracted synchronously');
  return e;
}

const html = (i: number) =>
  Buffer.from(`<html><head><title>Page ${i}</title></head><body><main><h1>H ${i}</h1><p>word${i} text</p><a href="/next/${i}">next</a></main></body></html>`);
const job = (i: number, body: Buffer = html(i), contentType = 'text/html; charset=utf-8'): ParseJob => ({
  body,
  contentType,
  url: `http://e.org/${i}`,
  ...SETTINGS,
});

describe('extract', () => {
  it('dispatches by content type', () => {
    assert.equal(extractNow(job(1)).kind, 'page');
    const text = extractNow(job(2, Buffer.from('hello'), 'text/plain'));
    assert.ok(text.kind === 'page' && text.page.text === 'hello');
    const map = extractNow({ ...job(3, Buffer.from('<urlset><url><loc>http://e.org/a</loc></url></urlset>'), 'application/xml') });
    assert.deepEqual(map, { kind: 'sitemap', pages: [{ url: 'http://e.org/a' }], sitemaps: [] });
    const gz = extractNow({ ...job(3, gzipSync('<urlset><url><loc>http://e.org/z</loc></url></urlset>'), 'application/gzip'), url: 'http://e.org/s.xml.gz' });
    assert.deepEqual(gz, { kind: 'sitemap', pages: [{ url: 'http://e.org/z' }], sitemaps: [] });
    const bomb = extractNow({ ...job(3, gzipSync(Buffer.alloc(60 * 1024 * 1024)), 'application/gzip'), url: 'http://e.org/s.xml.gz' });
    assert.equal(bomb.kind, 'unsupported', "a gzipped sitemap bomb is stopped at the protocol's 50 MB");
    assert.deepEqual(extractNow(job(4, Buffer.from([1, 2]), 'image/png')), { kind: 'unsupported', type: 'image/png' });
    assert.deepEqual(extractNow(job(5, Buffer.from('<rss/>'), 'application/rss+xml')), { kind: 'unsupported', type: 'application/rss+xml' });
  });

  it('reports the encoding it decoded with', () => {
    const r = extractNow(job(6, Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=windows-1252'));
    assert.ok(r.kind === 'page');
    assert.equal(r.encoding, 'windows-1252');
    assert.equal(r.page.text, 'café');
  });
});

describe('ParsePool', () => {
  const pools: ParsePool[] = [];
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('hands the job\u2019s links cap to its workers', async () => {
    const pool = new ParsePool(1);
    pools.push(pool);
    const body = Buffer.from(`<title>t</title>${Array.from({ length: 40 }, (_, i) => `<a href="/l${i}">l</a>`).join('')}`);
    // (Until the worker is ready pages are parsed inline: wait for it, then the worker parses.)
    await pool.ready();
    const r = await pool.parse({ body, contentType: 'text/html', url: 'http://e.org/', ...SETTINGS, maxLinks: 15 });
    assert.ok(r.kind === 'page');
    assert.deepEqual([r.page.links.length, r.page.linksCut], [15, 25]);
    assert.deepEqual(pool.parsed, { inWorkers: 1, inline: 0 }, 'parsed in the worker');
  });

  it('runs its workers below the main thread\u2019s priority (Linux: a nice value per thread), the main thread left as it was', async () => {
    const before = threadNicenesses();
    const pool = new ParsePool(2);
    pools.push(pool);
    await pool.ready();
    const now = threadNicenesses();
    const lowered = [...now].filter(([tid, n]) => !before.has(tid) && n === WORKER_NICENESS);
    assert.ok(lowered.length >= 2, `two new threads at nice ${WORKER_NICENESS}: ${JSON.stringify([...now])}`);
    assert.equal(now.get(process.pid), before.get(process.pid), 'the main thread keeps its priority');
  });

  it('parses in worker threads exactly as inline', async () => {
    const pool = new ParsePool(2);
    pools.push(pool);
    assert.equal(pool.workers, 2);
    await pool.ready();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.parse(job(i))));
    results.forEach((r, i) => {
      assert.deepEqual(r, extractNow(job(i)), `page ${i}`);
    });
    assert.deepEqual(pool.parsed, { inWorkers: 40, inline: 0 });
  });

  it('decodes pages in Chinese, Japanese and Korean encodings in its workers (their code-page tables are left out of the bundle)', async () => {
    const pool = new ParsePool(1);
    pools.push(pool);
    await pool.ready();
    const page = (bytes: number[], charset: string) =>
      job(8, Buffer.concat([Buffer.from('<title>t</title><p>'), Buffer.from(bytes)]), `text/html; charset=${charset}`);
    const pages = [
      page([0x93, 0xfa, 0x96, 0x7b], 'shift_jis'),
      page([0xa4, 0xa4, 0xa4, 0xe5], 'big5'),
      page([0xd6, 0xd0, 0xce, 0xc4], 'gbk'),
      page([0xc7, 0xd1, 0xb1, 0xdb], 'euc-kr'),
    ];
    const texts = [];
    for (const p of pages) {
      const r = await pool.parse(p);
      assert.deepEqual(r, extract(p));
      texts.push(r.kind === 'page' ? r.page.text : '');
    }
    assert.deepEqual(texts, ['日本', '中文', '中文', '한글']);
    assert.deepEqual(pool.parsed, { inWorkers: 4, inline: 0 });
  });

  it('parses inline while its workers are still loading, then hands pages to them', async () => {
    const pool = new ParsePool(1);
    pools.push(pool);
    const first = await pool.parse(job(1));
    assert.deepEqual(first, extractNow(job(1)));
    assert.deepEqual(pool.parsed, { inWorkers: 0, inline: 1 }, 'a worker takes far longer than this to load');
    await pool.ready();
    assert.deepEqual(await pool.parse(job(2)), extractNow(job(2)));
    assert.deepEqual(pool.parsed, { inWorkers: 1, inline: 1 });
  });

  it("does not disturb the caller's buffer (it is copied before transfer)", async () => {
    const pool = new ParsePool(1);
    pools.push(pool);
    await pool.ready();
    const body = html(7);
    await pool.parse(job(7, body));
    assert.equal(body.length, html(7).length);
    assert.match(body.toString(), /word7/);
  });

  it('parses inline with no workers', async () => {
    const pool = new ParsePool(0);
    pools.push(pool);
    assert.deepEqual(await pool.parse(job(1)), extractNow(job(1)));
  });

  it('starts its workers when Node runs with a flag that workers refuse (--trace-gc)', () => {
    const script = `import { ParsePool } from ${JSON.stringify(new URL('./pool.ts', import.meta.url).href)};
const pool = new ParsePool(1); await pool.ready();
const r = await pool.parse({ body: Buffer.from('<title>flagged</title>'), contentType: 'text/html', url: 'http://e.org/', ...${JSON.stringify(SETTINGS)} });
console.log(JSON.stringify({ title: r.page.title, parsed: pool.parsed })); await pool.close();`;
    const out = execFileSync(process.execPath, ['--trace-gc', '--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    const result = out
      .trim()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .pop();
    assert.deepEqual(JSON.parse(result ?? '{}'), { title: 'flagged', parsed: { inWorkers: 1, inline: 0 } });
  });

  it('loads the workers through tsx when their code cannot be bundled, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-pool-'));
    const module = join(dir, 'unbundlable.ts');
    writeFileSync(module, 'export function extract( {\n');
    const logs: string[] = [];
    const pool = new ParsePool(1, { log: logTo((m) => logs.push(m)), extractor: { module: pathToFileURL(module), extract } });
    pools.push(pool);
    await pool.ready();
    assert.ok(
      logs.some((l) => /could not bundle their code .*loading it through tsx/.test(l)),
      logs.join('\n'),
    );
    // The tsx entry cannot load the broken module either: the pool ends up parsing inline, correctly.
    assert.deepEqual(await pool.parse(job(3)), extractNow(job(3)));
  });

  it('fails the page that killed its worker, alone, and goes on with a new worker', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-pool-'));
    const module = join(dir, 'deadly.ts');
    // Extracts like the real one, except that a page saying KILL ends the worker thread (as a crash
    // would), and a page saying BLOAT allocates without end (past the worker's heap limit).
    writeFileSync(
      module,
      `import { extract as real } from ${JSON.stringify(fileURLToPath(new URL('./extract.ts', import.meta.url)))};
export function extract(job) {
  const text = Buffer.from(job.body).toString();
  if (text.includes('KILL')) process.exit(1);
  if (text.includes('BLOAT')) { const hoard = []; for (;;) hoard.push(new Array(100000).fill(hoard.length)); }
  return real(job);
}\n`,
    );
    const logs: string[] = [];
    const pool = new ParsePool(1, { log: logTo((m) => logs.push(m)), extractor: { module: pathToFileURL(module), extract }, maxHeapMb: 64 });
    pools.push(pool);
    await pool.ready();
    for (const [word, reason] of [
      ['KILL', /exited with code 1/],
      ['BLOAT', /memory/i],
    ] as const) {
      const bad = job(100, Buffer.from(`<title>${word}</title>`));
      const jobs = [pool.parse(job(1)), pool.parse(bad), pool.parse(job(2)), pool.parse(job(3))];
      const settled = await Promise.allSettled(jobs);
      assert.equal(settled[1]!.status, 'rejected', `${word}: ${logs.join(' | ')}`);
      const err = (settled[1] as PromiseRejectedResult).reason as Error;
      assert.ok(err instanceof ParseFailure, `${word}: ${err}`);
      assert.match(err.message, reason);
      for (const i of [0, 2, 3])
        assert.deepEqual(
          (settled[i] as PromiseFulfilledResult<unknown>).value,
          extractNow([job(1), bad, job(2), job(3)][i]!),
          `${word}: page ${i} still parsed`,
        );
      await pool.ready();
      assert.equal(pool.workers, 1, 'a new worker took its place');
    }
    assert.ok(
      logs.some((l) => /while parsing http:\/\/e\.org\/100/.test(l)),
      logs.join('\n'),
    );
    // Worker deaths caused by pages never make the pool give up its workers.
    assert.deepEqual(await pool.parse(job(5)), extractNow(job(5)));
    assert.ok(pool.parsed.inWorkers > 4);
  });

  it('falls back to parsing inline when workers keep failing, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-pool-'));
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'throw new Error("broken worker");\n');
    const logs: string[] = [];
    const logged = new EventEmitter();
    const pool = new ParsePool(1, {
      log: logTo((m) => {
        logs.push(m);
        logged.emit('line');
      }),
      entry: pathToFileURL(broken),
    });
    pools.push(pool);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => pool.parse(job(i))));
    results.forEach((r, i) => {
      assert.deepEqual(r, extractNow(job(i)));
    });
    // Each failure starts a new worker, until the third one: then the pool stays inline, and says so.
    await waitFor(() => logs.some((l) => /parsing on the main thread from now on/.test(l)), onEvent(logged, 'line'), {
      what: 'the pool to give its workers up',
    });
    assert.equal(pool.workers, 0, logs.join('\n'));
    assert.deepEqual(await pool.parse(job(9)), extractNow(job(9)));
  });

  it('sends a job the extractor leaves to a worker (LeaveToWorker) to one, or parses it here when none can start', async () => {
    // Leaves every job it is given on the main thread while workers start; parses the rest.
    const leaving = (j: ParseJob) => {
      if (j.whileWorkersStart) throw new LeaveToWorker('not here');
      return extract(j);
    };
    const dir = mkdtempSync(join(tmpdir(), 'trawl-pool-'));
    const module = join(dir, 'leaving.ts');
    writeFileSync(
      module,
      "import { threadId } from 'node:worker_threads';\n" +
        `import { extract as real } from ${JSON.stringify(fileURLToPath(new URL('./extract.ts', import.meta.url)))};\n` +
        "export function extract(job) { const e = real(job); return { ...e, page: { ...e.page, title: 'thread ' + threadId } }; }\n",
    );
    const working = new ParsePool(1, { extractor: { module: pathToFileURL(module), extract: leaving } });
    pools.push(working);
    const r = await working.parse(job(1));
    assert.ok(r.kind === 'page' && /^thread [1-9]/.test(r.page.title), 'parsed by the worker');
    assert.deepEqual(working.parsed, { inWorkers: 1, inline: 0 });
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'throw new Error("broken worker");\n');
    const failing = new ParsePool(1, {
      log: logTo(() => undefined),
      entry: pathToFileURL(broken),
      extractor: { module: pathToFileURL(module), extract: leaving },
    });
    pools.push(failing);
    assert.deepEqual(await failing.parse(job(2)), extractNow(job(2)), 'no worker could start: parsed here after all');
  });
});
