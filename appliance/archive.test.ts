// Integration: web archives in and out. A crawl with archive.warc on writes WARC files that an
// independent reader (warcio's own index command) reads whole; importing them into a fresh data
// directory answers the same queries with the same URLs; a WARC written by wget imports; files cut
// short or with a wrong Content-Length cost their bad records only; a crash leaves a readable file.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import type { Crawler } from '../crawler/index.ts';
import { responseRecord, warcinfoRecord } from '../crawler/archive/records.ts';
import { RotatingWarcFile } from '../crawler/archive/warc-file.ts';
import { IMPORT_SETTINGS } from '../cli/shared.ts';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { wgetWarc } from '../testweb/wget.ts';
import { Appliance } from './appliance.ts';
import { importArchives } from './import.ts';

const WARCIO = new URL('../node_modules/warcio/dist/cli.js', import.meta.url).pathname;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-${name}-`));

/** What warcio's own `index` command reads in a file: one object per record. */
const indexOf = (file: string) =>
  execFileSync(process.execPath, [WARCIO, 'index', file, '--fields', 'warc-type,warc-target-uri,warc-refers-to,offset'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);

async function importInto(files: string[]): Promise<{ app: Appliance; summary: Awaited<ReturnType<typeof importArchives>> }> {
  const app = await Appliance.open(loadConfig({ overrides: { dataDir: tmp('import'), parseWorkers: 0, ...IMPORT_SETTINGS } }), { lockFor: 'test' });
  const { crawler } = await app.createCrawler([], 'off');
  const summary = await importArchives(crawler, files);
  await app.refreshAnchors();
  return { app, summary };
}

describe('archiving while crawling, and importing it back', () => {
  let web: FakeWeb;
  let crawled: Appliance;
  let crawler: Crawler;
  let dataDir: string;
  let files: string[];
  const archive = () => join(dataDir, 'archive');

  before(async () => {
    web = await startFakeWeb({ graphSize: 12 });
    dataDir = tmp('archive');
    crawled = await Appliance.open(
      // (Retries soon: the fake web's /error answers 500 at every attempt, and the default back-off
      // of 10 s and 20 s, in each of the two passes, made a minute of waiting.)
      loadConfig({
        overrides: {
          dataDir,
          seeds: [web.url],
          perHost: { delayMs: 0 },
          retry: { maxAttempts: 2, baseDelayMs: 50 },
          parseWorkers: 0,
          archive: { warc: true, maxFileBytes: 64 * 1024 },
        },
      }),
      { lockFor: 'test' },
    );
    ({ crawler } = await crawled.createCrawler());
    await crawler.run();
    // A second pass: the pages come back 304 or unchanged, as revisits.
    const done = new Promise((r) => crawler.once('done', r));
    await crawled.recrawl({ all: true });
    await done;
    await crawled.close();
    files = readdirSync(archive()).map((f) => join(archive(), f));
  });
  after(async () => {
    await web?.close();
  });

  it('writes rotated, finished, gzipped WARC 1.1 files that an independent reader reads whole', () => {
    assert.ok(files.length >= 2, `rotated at 64 KB: ${files.length} files`);
    assert.ok(
      files.every((f) => f.endsWith('.warc.gz')),
      'every file finished',
    );
    let responses = 0;
    for (const f of files) {
      const records = indexOf(f);
      assert.equal(records[0]!['warc-type'], 'warcinfo', 'a warcinfo first in each file');
      responses += records.filter((r) => r['warc-type'] === 'response').length;
      const text = gunzipSync(readFileSync(f)).toString('latin1');
      assert.match(text, /^WARC\/1\.1\r\n/);
      assert.match(text, /software: Trawl \d+\.\d+\.\d+/);
    }
    assert.ok(responses >= 40, `${responses} responses`);
  });

  it('keeps the bytes as received, the request beside each response, and no credential', () => {
    const all = files.map((f) => gunzipSync(readFileSync(f)).toString('latin1')).join('');
    assert.match(all, /WARC-Type: request\r\n/);
    assert.match(all, /\r\nGET \/ HTTP\/1\.1\r\n/);
    assert.match(all, /WARC-Concurrent-To: <urn:uuid:/);
    assert.doesNotMatch(all, /\r\nauthorization:/i);
  });

  it('writes revisits that refer to the response they repeat', () => {
    const records = files.flatMap(indexOf);
    const ids = new Set(
      files.flatMap((f) =>
        [
          ...gunzipSync(readFileSync(f))
            .toString('latin1')
            .matchAll(/WARC-Record-ID: (<urn:uuid:[^>]+>)/g),
        ].map((m) => m[1]),
      ),
    );
    const revisits = records.filter((r) => r['warc-type'] === 'revisit');
    assert.ok(revisits.length >= 10, `${revisits.length} revisits`);
    for (const r of revisits) assert.ok(ids.has(r['warc-refers-to']!), `refers to a record of the archive: ${JSON.stringify(r)}`);
  });

  it('imports into a fresh data directory that answers the same queries with the same URLs', async () => {
    const { app, summary } = await importInto(files);
    const original = await Appliance.open(loadConfig({ overrides: { dataDir } }), {});
    try {
      assert.ok(summary.captures > 0 && summary.skipped.size === 0, JSON.stringify([...summary.skipped]));
      assert.equal(app.index.documentCount, original.index.documentCount);
      for (const q of ['graphword3', 'graphword7', 'graph']) {
        const [a, b] = [await app.index.search(q, { size: 50 }), await original.index.search(q, { size: 50 })];
        assert.deepEqual(a.hits.map((h) => h.url).sort(), b.hits.map((h) => h.url).sort(), q);
      }
    } finally {
      await app.close();
      await original.close();
    }
  });
});

describe('importing archives from elsewhere', () => {
  let web: FakeWeb;
  before(async () => {
    web = await startFakeWeb({ graphSize: 8 });
  });
  after(async () => {
    await web?.close();
  });

  it('imports a WARC written by wget, links and anchor text included', async () => {
    const dir = tmp('wget');
    const warc = await wgetWarc(dir, new URL('/graph/0', web.url).href);
    const { app, summary } = await importInto([warc]);
    try {
      assert.ok((summary.outcomes.indexed ?? 0) >= 3, JSON.stringify(summary.outcomes));
      assert.equal((await app.index.search('graphword1')).hits[0]?.url, new URL('/graph/1', web.url).href);
      const doc = await app.store.documents.get((await app.store.urls.record(new URL('/graph/1', web.url).href))!.id);
      assert.ok(doc && doc.fetchedAt < Date.now() && doc.fetchedAt > Date.now() - 600_000, 'stored with its capture date');
    } finally {
      await app.close();
    }
  });

  it('skips what is malformed, with a count and a reason, and reads on', async () => {
    const dir = tmp('bad');
    const good = await responseRecord({
      url: 'http://a.test/good',
      date: new Date(),
      status: 200,
      requestHeaders: {},
      responseHeaders: { 'content-type': 'text/html' },
      body: Buffer.from('<title>Good</title><p>goodword</p>'),
      truncated: false,
    });
    const later = await responseRecord({
      url: 'http://a.test/later',
      date: new Date(),
      status: 200,
      requestHeaders: {},
      responseHeaders: { 'content-type': 'text/html' },
      body: Buffer.from('<title>Later</title><p>laterword</p>'),
      truncated: false,
    });
    // A gzipped file whose last member is cut short.
    const cut = join(dir, 'cut.warc.gz');
    writeFileSync(cut, Buffer.concat([await warcinfoRecord('cut.warc.gz', {}), good.bytes, later.bytes.subarray(0, later.bytes.length - 30)]));
    // An uncompressed file whose first response claims more bytes than it has.
    const plain = (r: Uint8Array) => gunzipSync(r).toString('latin1');
    const lying = join(dir, 'lying.warc');
    writeFileSync(lying, plain(good.bytes).replace(/Content-Length: (\d+)/, (_m, n) => `Content-Length: ${Number(n) + 5000}`) + plain(later.bytes), 'latin1');
    const { app, summary } = await importInto([cut, lying]);
    try {
      const [cutFile, lyingFile] = summary.perFile;
      assert.match(cutFile?.damage[0]?.reason ?? '', /not a complete record/, JSON.stringify(cutFile?.damage));
      assert.match(lyingFile?.damage[0]?.reason ?? '', /malformed record: its Content-Length \(\d+\) runs past the end/, JSON.stringify(lyingFile?.damage));
      assert.equal(lyingFile?.damage[0]?.at, 0, 'the first record is the damaged one');
      assert.equal(summary.complete, false);
      assert.equal((await app.index.search('goodword')).total, 1, 'the good record of the cut file');
      assert.equal((await app.index.search('laterword')).total, 1, 'the record after the lying one');
    } finally {
      await app.close();
    }
  });

  it('leaves, after a crash, a file readable up to its last complete record', async () => {
    const dir = tmp('crash');
    const file = new RotatingWarcFile(dir, 1 << 30, (name) => warcinfoRecord(name, {}));
    const r = await responseRecord({
      url: 'http://a.test/x',
      date: new Date(),
      status: 200,
      requestHeaders: {},
      responseHeaders: {},
      body: Buffer.from('x'),
      truncated: false,
    });
    await file.append(r.bytes);
    // The process dies in the middle of the next record: half of it on disk, its end not indexed.
    const open = readdirSync(dir).find((f) => f.endsWith('.open'))!;
    appendFileSync(join(dir, open), r.bytes.subarray(0, 40));
    assert.deepEqual(RotatingWarcFile.recover(dir).length, 1);
    const finished = readdirSync(dir);
    assert.deepEqual(
      finished.map((f) => f.endsWith('.warc.gz')),
      [true],
    );
    assert.deepEqual(
      indexOf(join(dir, finished[0]!)).map((x) => x['warc-type']),
      ['warcinfo', 'response'],
    );
  });
});
