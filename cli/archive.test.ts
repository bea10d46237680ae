// Integration: web archives through the `trawl` command as a user types it — crawl with --archive,
// export --format warc, import into another data directory, start --warc; archive.format wacz and
// export --format wacz, read back with yauzl and warcio — in child processes.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import yauzl from 'yauzl';
import { ZipFile } from 'yazl';
import { responseRecord, warcinfoRecord } from '../crawler/archive/records.ts';
import { zipEntries } from '../crawler/archive/wacz-fixture.ts';
import { RotatingWarcFile } from '../crawler/archive/warc-file.ts';
import { startFakeWeb, type FakeWeb } from '../testweb/index.ts';
import { onOutput, waitFor } from '../testweb/wait.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const WARCIO = new URL('../node_modules/warcio/dist/cli.js', import.meta.url).pathname;
const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-cli-warc-${name}-`));

type Run = { code: number | null; stdout: Buffer; stderr: string };

/** Runs `trawl ARGS` to its end; stdout kept as bytes (a WARC is binary). */
function run(args: string[]): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out: Buffer[] = [];
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => out.push(d));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout: Buffer.concat(out), stderr })));
}

/** The records warcio's own `index` command reads in a file. */
const records = (file: string) =>
  execFileSync(process.execPath, [WARCIO, 'index', file, '--fields', 'warc-type,warc-target-uri'], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, string>);

const hitUrls = async (dataDir: string, q: string): Promise<string[]> => {
  const r = await run(['search', q, '--data', dataDir, '--json']);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout.toString()) as { hits: { url: string }[] }).hits.map((h) => h.url);
};

describe('trawl and web archives', () => {
  let web: FakeWeb;
  const crawled = tmp('crawled');
  before(async () => {
    web = await startFakeWeb({ graphSize: 6 });
    writeFileSync(join(crawled, 'c.json'), JSON.stringify({ seeds: [`${web.url}graph/0`], scope: { allow: ['URL:/graph/'] } }));
    const r = await run(['crawl', '--config', join(crawled, 'c.json'), '--data', crawled, '--archive']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => web.close());

  it('crawl --archive leaves finished WARC files that an independent reader reads', () => {
    const files = readdirSync(join(crawled, 'archive')).filter((f) => f.endsWith('.warc.gz'));
    assert.ok(files.length >= 1, `finished files: ${files.join(', ')}`);
    const recs = files.flatMap((f) => records(join(crawled, 'archive', f)));
    assert.equal(recs[0]?.['warc-type'], 'warcinfo');
    const pages = recs.filter((r) => r['warc-type'] === 'response' && r['warc-target-uri']?.includes('/graph/'));
    assert.equal(new Set(pages.map((r) => r['warc-target-uri'])).size, 6, 'a response for each page');
  });

  it('export --format warc writes the stored pages as a WARC on stdout', async () => {
    const r = await run(['export', '--format', 'warc', '--data', crawled]);
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual([...r.stdout.subarray(0, 2)], [0x1f, 0x8b], 'gzipped');
    const file = join(tmp('export'), 'out.warc.gz');
    writeFileSync(file, r.stdout);
    const responses = records(file).filter((x) => x['warc-type'] === 'response');
    assert.equal(responses.length, 6);
    assert.match(r.stderr, /exported 6 pages as WARC: 6 archived responses/);
    assert.doesNotMatch(r.stderr, /index/, 'from the store and the archive alone: no index loaded');
    const future = await run(['export', '--format', 'warc', '--since', '2999-01-01', '--data', crawled]);
    assert.equal(future.code, 0, future.stderr);
    assert.match(future.stderr, /exported 0 pages/);
  });

  it('import makes the archive searchable in another data directory, with progress and a summary', async () => {
    const into = tmp('import');
    const files = readdirSync(join(crawled, 'archive'))
      .filter((f) => f.endsWith('.warc.gz'))
      .map((f) => join(crawled, 'archive', f));
    const r = await run(['import', ...files, '--data', into]);
    assert.equal(r.code, 0, r.stderr);
    for (const f of files) {
      const name = f.replace(/[.]/g, '\\.');
      assert.match(r.stderr, new RegExp(`reading ${name}\n`), 'each file named once as it begins');
      assert.match(r.stderr, new RegExp(`${name}: WARC 1\\.1, gzipped; records [\\d,]+ \\w+.*; \\d+ captures \\(.*\\); read to its end\n`), r.stderr);
    }
    assert.match(r.stderr, /imported \d+ captures from \d+ files?: .*6 documents in the index; (all \d+ files were|the file was) read to the end/);
    for (const q of ['graphword2', 'graphword5']) assert.deepEqual(await hitUrls(into, q), await hitUrls(crawled, q), q);
  });

  it('import accounts for every file: one that is no archive, a zip that is no WACZ, one cut short (exit 1)', async () => {
    const dir = tmp('bad-files');
    const good = join(crawled, 'archive', readdirSync(join(crawled, 'archive')).find((f) => f.endsWith('.warc.gz'))!);
    const bytes = readFileSync(good);
    const cut = join(dir, 'cut.warc.gz');
    writeFileSync(cut, bytes.subarray(0, bytes.length - 100));
    const notes = join(dir, 'notes.warc');
    writeFileSync(notes, 'not an archive at all\n');
    const zip = join(dir, 'photos.zip');
    await new Promise<void>((resolve, reject) => {
      const z = new ZipFile();
      z.addBuffer(Buffer.from('a photo'), 'holiday.jpg');
      z.end();
      z.outputStream.pipe(createWriteStream(zip)).on('close', resolve).on('error', reject);
    });
    const r = await run(['import', good, cut, notes, zip, '--data', tmp('bad-into')]);
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.split('\n');
    const lineOf = (f: string) => lines.find((l) => l.startsWith(`[trawl] ${f}: `)) ?? assert.fail(`no line for ${f}: ${r.stderr}`);
    assert.match(lineOf(good), /read to its end$/);
    assert.match(lineOf(cut), /; not read to its end: 1 damaged place$/);
    assert.match(r.stderr, /damaged at byte [\d,]+: the last [\d,]+ bytes are not a complete record/);
    assert.match(lineOf(notes), /unknown; no records; 0 captures; not read to its end/);
    assert.match(r.stderr, /damaged at byte 0: not a WARC or ARC file: it begins "not an archive/);
    assert.match(lineOf(zip), /not read: .*photos\.zip is a zip but not a WACZ.*holiday\.jpg/);
    assert.match(r.stderr, /1 of 4 files were read to the end/);
    assert.match(r.stderr, /error: 3 of 4 files were not read to the end: /);
  });

  it('import says what is wrong with a missing file (exit 2), and start --warc imports and serves', async () => {
    const missing = await run(['import', join(tmpdir(), 'no-such-file.warc.gz'), '--data', tmp('missing')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no-such-file\.warc\.gz does not exist/);

    const file = readdirSync(join(crawled, 'archive')).find((f) => f.endsWith('.warc.gz'))!;
    const child = spawn(process.execPath, [BIN, 'start', '--warc', join(crawled, 'archive', file), '--data', tmp('start'), '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    try {
      // (It serves while it imports: each page is searchable as soon as it is read; the summary ends the import.)
      const url = await waitFor(() => /imported \d+ captures/.test(output) && /Search at (\S+)/.exec(output)?.[1], onOutput(child), {
        what: 'the server address and the import summary',
      }).catch((e: Error) => assert.fail(`${e.message}: ${output}`));
      const body = (await (await fetch(`${url}api/search?q=graphword3&exact=1`)).json()) as { hits: { url: string }[] };
      assert.deepEqual(
        body.hits.map((h) => h.url),
        [`${web.url}graph/3`],
      );
    } finally {
      child.kill('SIGTERM');
    }
    assert.equal(await exited, 0, output);
  });
});

const jsonLines = (b: Buffer) =>
  b
    .toString()
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, string>);

/** The URL of the one record at [start, start + length) of `bytes`, as warcio reads it. */
async function urlAt(bytes: Buffer, start: number, length: number): Promise<string | null | undefined> {
  const urls = [];
  for await (const r of new WARCParser([bytes.subarray(start, start + length)])) urls.push(r.warcTargetURI);
  assert.equal(urls.length, 1);
  return urls[0];
}

describe('trawl and WACZ (archive.format wacz, export --format wacz)', () => {
  let web: FakeWeb;
  const crawled = tmp('wacz');
  const config = join(crawled, 'c.json');
  const archive = join(crawled, 'archive');
  const graph = (n: number) => `${web.url}graph/${n}`;
  before(async () => {
    web = await startFakeWeb({ graphSize: 6 });
    writeFileSync(config, JSON.stringify({ seeds: [graph(0)], scope: { allow: ['URL:/graph/'] }, archive: { format: 'wacz' } }));
    const r = await run(['crawl', '--config', config, '--data', crawled, '--archive']);
    assert.equal(r.code, 0, r.stderr);
  });
  after(() => web.close());

  it('crawl --archive packages each WARC file it finishes into a WACZ of its name: the WARC stored, its HTML pages titled', async () => {
    const files = readdirSync(archive);
    assert.ok(files.length >= 1 && files.every((f) => f.endsWith('.wacz')), `only WACZ files are left: ${files.join(', ')}`);
    const pages: Record<string, string>[] = [];
    for (const f of files) {
      const entries = await zipEntries(await yauzl.openPromise(join(archive, f), { lazyEntries: true }));
      const warc = entries.find((e) => e.name.startsWith('archive/'))!;
      assert.equal(warc.name, `archive/${f.replace(/\.wacz$/, '.warc.gz')}`);
      assert.equal(warc.method, 0, 'stored');
      pages.push(...jsonLines(entries.find((e) => e.name === 'pages/pages.jsonl')!.data).slice(1));
    }
    assert.deepEqual(
      pages.map((p) => [p.url, p.title]).sort(),
      [0, 1, 2, 3, 4, 5].map((n) => [graph(n), `Graph page ${n}`]),
    );
  });

  it('export finds the archived records inside the WACZ files; --format wacz packages them, to a file or stdout', async () => {
    const warc = await run(['export', '--format', 'warc', '--data', crawled]);
    assert.equal(warc.code, 0, warc.stderr);
    assert.match(warc.stderr, /exported 6 pages as WARC: 6 archived responses, 0 as their extracted text/);

    const out = join(tmp('wacz-export'), 'out.wacz');
    const r = await run(['export', '--format', 'wacz', '--output', out, '--data', crawled]);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.length, 0, 'nothing on stdout');
    assert.match(r.stderr, /exported 6 pages as WACZ: 6 archived responses, 0 as their extracted text; 6 captures indexed, 6 pages listed, [\d.]+ kB/);
    assert.deepEqual(readdirSync(join(out, '..')), ['out.wacz'], 'its temporary files removed');
    const bytes = readFileSync(out);
    const entries = await zipEntries(await yauzl.openPromise(out, { lazyEntries: true }));
    const byName = new Map(entries.map((e) => [e.name, e]));
    const manifest = JSON.parse(byName.get('datapackage.json')!.data.toString()) as { resources: { path: string; hash: string; bytes: number }[] };
    for (const res of manifest.resources) {
      assert.equal(res.hash, `sha256:${createHash('sha256').update(byName.get(res.path)!.data).digest('hex')}`, res.path);
      assert.equal(res.bytes, byName.get(res.path)!.data.length, res.path);
    }
    const lines = byName.get('indexes/index.cdx')!.data.toString().trim().split('\n');
    assert.equal(lines.length, 6);
    const urls = [];
    for (const line of lines) {
      const cdx = JSON.parse(line.slice(line.indexOf('{'))) as Record<string, string>;
      const entry = byName.get(`archive/${cdx.filename}`)!;
      assert.equal(entry.method, 0);
      assert.equal(await urlAt(bytes, entry.dataStart + Number(cdx.offset), Number(cdx.length)), cdx.url);
      urls.push(cdx.url);
    }
    assert.deepEqual(urls.sort(), [0, 1, 2, 3, 4, 5].map(graph).sort());
    const pages = jsonLines(byName.get('pages/pages.jsonl')!.data);
    assert.equal(pages[0]!.format, 'json-pages-1.0');
    assert.deepEqual(
      pages
        .slice(1)
        .map((p) => [p.url, p.title])
        .sort(),
      [0, 1, 2, 3, 4, 5].map((n) => [graph(n), `Graph page ${n}`]),
    );

    const piped = await run(['export', '--format', 'wacz', '--data', crawled]);
    assert.equal(piped.code, 0, piped.stderr);
    const fromStdout = await zipEntries(await yauzl.fromBufferPromise(piped.stdout, { lazyEntries: true }));
    assert.deepEqual(
      fromStdout.map((e) => e.name),
      entries.map((e) => e.name),
    );
    const jsonl = await run(['export', '--output', out, '--data', crawled]);
    assert.equal(jsonl.code, 2, 'JSONL goes to stdout');
  });

  it('packages at the next start a WARC file a crash left open', async () => {
    const file = new RotatingWarcFile(archive, 1 << 30, (name) => warcinfoRecord(name, {}));
    const url = 'http://crashed.test/page';
    const html = Buffer.from('<html><head><title>Left open</title></head><body>x</body></html>');
    const headers = { 'content-type': 'text/html' };
    const x = { url, date: new Date(), status: 200, requestHeaders: {}, responseHeaders: headers, body: html, truncated: false };
    await file.append((await responseRecord(x)).bytes);
    const open = readdirSync(archive).find((f) => f.endsWith('.open'))!;
    assert.ok(open, 'a file left open (the crash: never closed)');
    const r = await run(['crawl', '--config', config, '--data', crawled, '--archive']);
    assert.equal(r.code, 0, r.stderr);
    const wacz = open.replace(/\.warc\.gz\.open$/, '.wacz');
    assert.ok(
      readdirSync(archive).every((f) => f.endsWith('.wacz')),
      readdirSync(archive).join(', '),
    );
    const entries = await zipEntries(await yauzl.openPromise(join(archive, wacz), { lazyEntries: true }));
    assert.deepEqual(
      jsonLines(entries.find((e) => e.name === 'pages/pages.jsonl')!.data)
        .slice(1)
        .map((p) => [p.url, p.title]),
      [[url, 'Left open']],
    );
  });
});
