// archive.format wacz, below the crawl: the files a RotatingWarcFile finishes (rotated, then closed)
// packaged each into a WACZ of its name, the WARC removed; every record then found by its ref
// (file, offset, length) inside the WACZ; the pages listed are the 200 HTML responses, titled.
import { readRange } from '../../lib/read-range.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import yauzl from 'yauzl';
import { responseRecord, warcinfoRecord, type Exchange } from './records.ts';
import { htmlPagesOf, packageWarc, unpackaged } from './wacz-package.ts';
import { locateWarc, RotatingWarcFile, waczNameOf, type Placed } from './warc-file.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-wacz-package-'));

const page = (url: string, body: Buffer | string, headers: Record<string, string> = { 'content-type': 'text/html' }, status = 200): Exchange => ({
  url,
  date: new Date('2026-05-06T07:08:09Z'),
  status,
  requestHeaders: {},
  responseHeaders: headers,
  body: typeof body === 'string' ? Buffer.from(body) : body,
  truncated: false,
});

describe('WACZ packaging of finished WARC files', () => {
  it('packages each file a rotation or the close finishes; every ref then reads its record inside the WACZ', async () => {
    const dir = tmp();
    const packed: Promise<unknown>[] = [];
    const file = new RotatingWarcFile(
      dir,
      3000,
      (name) => warcinfoRecord(name, { software: 'test' }),
      (path) => packed.push(packageWarc(path, { title: 'T', software: 'Trawl test' })),
    );
    const placed: { url: string; at: Placed }[] = [];
    for (let i = 0; i < 12; i++) {
      const url = `https://example.org/p${i}`;
      // (Words that do not compress: a few records fill a 3000-byte file.)
      const filler = Array.from({ length: 60 }, (_, k) => ((i * 7919 + k * 104729) % 1e6).toString(36)).join(' ');
      placed.push({ url, at: await file.append((await responseRecord(page(url, `<title>Page ${i}</title><p>${filler}</p>`))).bytes) });
    }
    file.close();
    await Promise.all(packed);
    const files = readdirSync(dir).sort();
    assert.ok(files.length >= 3, `rotated: ${files.join(', ')}`);
    assert.ok(
      files.every((f) => f.endsWith('.wacz')),
      files.join(', '),
    );
    assert.equal(new Set(placed.map((p) => p.at.file)).size, files.length);
    for (const { url, at } of placed) {
      const where = await locateWarc(dir, at.file);
      assert.equal(where?.path, join(dir, waczNameOf(at.file)));
      assert.ok(where.start > 0);
      const records = [];
      for await (const r of new WARCParser([readRange(where.path, where.start + at.offset, at.length)])) records.push(r.warcTargetURI);
      assert.deepEqual(records, [url]);
      assert.deepEqual(await file.locate(at.file), where);
    }
    assert.equal(await locateWarc(dir, 'trawl-none.warc.gz'), undefined);
  });

  it("lists a file's 200 HTML responses with their titles, decoded as the browser would", async () => {
    const dir = tmp();
    const path = join(dir, 'x.warc.gz');
    const records = [
      await warcinfoRecord('x.warc.gz', {}),
      ...(
        await Promise.all([
          responseRecord(page('https://a.test/', '<html><head><title>\n  Plain   title </title></head><body>b</body></html>')),
          responseRecord(page('https://a.test/gz', gzipSync('<title>Gzipped</title>'), { 'content-type': 'text/html', 'content-encoding': 'gzip' })),
          responseRecord(page('https://a.test/latin', Buffer.from('<title>Caf\xe9</title>', 'latin1'), { 'content-type': 'text/html; charset=iso-8859-1' })),
          responseRecord(page('https://a.test/untitled', '<p>no title</p>')),
          responseRecord(page('https://a.test/missing', '<title>Not found</title>', { 'content-type': 'text/html' }, 404)),
          responseRecord(page('https://a.test/data.json', '{}', { 'content-type': 'application/json' })),
        ])
      ).map((r) => r.bytes),
    ];
    writeFileSync(path, Buffer.concat(records));
    const pages = [];
    for await (const p of htmlPagesOf(path)) pages.push(p);
    assert.deepEqual(pages, [
      { url: 'https://a.test/', ts: '2026-05-06T07:08:09.000Z', title: 'Plain title' },
      { url: 'https://a.test/gz', ts: '2026-05-06T07:08:09.000Z', title: 'Gzipped' },
      { url: 'https://a.test/latin', ts: '2026-05-06T07:08:09.000Z', title: 'Café' },
      { url: 'https://a.test/untitled', ts: '2026-05-06T07:08:09.000Z' },
    ]);

    // What a crash left: the WARC file (to package again) and a half-made WACZ (removed).
    writeFileSync(join(dir, 'x.wacz.part'), 'half');
    assert.deepEqual(unpackaged(dir), [path]);
    assert.deepEqual(readdirSync(dir), ['x.warc.gz']);
    const summary = await packageWarc(path, { title: 'T', software: 'S' });
    assert.deepEqual({ records: summary.records, pages: summary.pages }, { records: 6, pages: 4 });
    assert.deepEqual(readdirSync(dir), ['x.wacz']);
    const zip = await yauzl.openPromise(join(dir, 'x.wacz'), { lazyEntries: true });
    const names = [];
    for await (const e of zip.eachEntry()) names.push(e.fileName);
    assert.deepEqual(names, ['archive/x.warc.gz', 'indexes/index.cdx', 'pages/pages.jsonl', 'datapackage.json', 'datapackage-digest.json']);
  });
});
