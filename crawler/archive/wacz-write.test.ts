// WACZ out: a .wacz written from real WARC files (made by records.ts, as a crawl makes them), read
// back with yauzl (an independent zip reader) and warcio: the entries and how they are stored, every
// hash and size of the manifest, the CDXJ sorted with each line pointing to its record, the pages.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { WARCParser } from 'warcio';
import yauzl from 'yauzl';
import { conversionRecord, requestRecord, responseRecord, revisitRecord, warcinfoRecord, type Exchange } from './records.ts';
import { zipEntries } from './wacz-fixture.ts';
import { writeWacz } from './wacz-write.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-wacz-write-'));
const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

const exchange = (url: string, body: string, date = '2026-03-04T05:06:07.000Z'): Exchange => ({
  url,
  date: new Date(date),
  status: 200,
  requestHeaders: { 'user-agent': 'test' },
  responseHeaders: { 'content-type': 'text/html; charset=utf-8' },
  body: new TextEncoder().encode(body),
  truncated: false,
});

/** A WARC file as the crawl writes one: warcinfo, then each response with its request; a revisit; a conversion record. */
async function warcFile(dir: string, name: string, urls: string[]): Promise<string> {
  const parts: Uint8Array[] = [await warcinfoRecord(name, { software: 'test' })];
  for (const u of urls) {
    const response = await responseRecord(exchange(u, `<title>${u}</title>`));
    parts.push(response.bytes, (await requestRecord(exchange(u, ''), response.id)).bytes);
    if (u.endsWith('/b')) {
      const x = exchange(u, '', '2026-03-05T00:00:00.000Z');
      parts.push((await revisitRecord(x, { id: response.id, url: u, date: '2026-03-04T05:06:07.000Z', digest: response.digest }, false)).bytes);
    }
  }
  parts.push((await conversionRecord('https://example.org/text', new Date(), 'T', 'text')).bytes);
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts));
  return path;
}

/** The one record at `[start, start + length)` of `bytes`, read by warcio. */
async function recordAt(bytes: Buffer, start: number, length: number) {
  const records = [];
  for await (const r of new WARCParser([bytes.subarray(start, start + length)])) {
    await r.readFully();
    records.push(r);
  }
  assert.equal(records.length, 1, `one record at ${start}+${length}`);
  return records[0]!;
}

describe('writeWacz', () => {
  it('packages WARC files as WACZ 1.1.1: stored WARCs, a sorted CDXJ whose every line finds its record, pages, a manifest that checks', async () => {
    const dir = tmp();
    const warcs = [
      { name: 'one.warc.gz', path: await warcFile(dir, 'one.warc.gz', ['https://www.example.org/b', 'https://example.org/a?y=1&x=2']) },
      { name: 'two.warc.gz', path: await warcFile(dir, 'two.warc.gz', ['https://docs.example.com/', 'http://127.0.0.1:8080/page']) },
    ];
    const out = join(dir, 'out.wacz');
    const pages = [
      { url: 'https://www.example.org/b', ts: '2026-03-04T05:06:07Z', title: 'B' },
      { url: 'https://docs.example.com/', ts: '2026-03-04T05:06:07.000Z' },
    ];
    const summary = await writeWacz(out, { warcs, pages, title: 'A test collection', software: 'Trawl test', description: 'Two files.' });
    assert.deepEqual(
      readdirSync(dir).filter((f) => f.startsWith('out')),
      ['out.wacz'],
      'no .part left',
    );
    const bytes = readFileSync(out);
    assert.equal(summary.bytes, bytes.length);
    assert.equal(summary.pages, 2);
    assert.equal(summary.records, 5, 'a response for each of the 4 URLs, and one revisit');

    const entries = await zipEntries(await yauzl.openPromise(out, { lazyEntries: true }));
    const byName = new Map(entries.map((e) => [e.name, e]));
    assert.deepEqual(
      entries.map((e) => e.name),
      ['archive/one.warc.gz', 'archive/two.warc.gz', 'indexes/index.cdx', 'pages/pages.jsonl', 'datapackage.json', 'datapackage-digest.json'],
    );
    for (const w of warcs) {
      const e = byName.get(`archive/${w.name}`)!;
      assert.equal(e.method, 0, `${w.name} is STORED`);
      assert.ok(e.data.equals(readFileSync(w.path)), `${w.name}: the WARC's bytes as they were`);
      assert.ok(bytes.subarray(e.dataStart, e.dataStart + e.data.length).equals(e.data), 'and in the .wacz at its data offset');
    }

    // The manifest: every other entry with its hash and size; the digest file, the manifest's hash.
    const manifest = JSON.parse(byName.get('datapackage.json')!.data.toString()) as Record<string, unknown> & {
      resources: { name: string; path: string; hash: string; bytes: number }[];
    };
    assert.equal(manifest.profile, 'data-package');
    assert.equal(manifest.wacz_version, '1.1.1');
    assert.equal(manifest.title, 'A test collection');
    assert.equal(manifest.description, 'Two files.');
    assert.equal(manifest.software, 'Trawl test');
    assert.equal(manifest.mainPageUrl, 'https://www.example.org/b');
    assert.equal(manifest.mainPageDate, '2026-03-04T05:06:07.000Z');
    for (const k of ['created', 'modified']) assert.ok(Number.isFinite(Date.parse(manifest[k] as string)), k);
    assert.deepEqual(
      manifest.resources.map((r) => r.path),
      entries.map((e) => e.name).filter((n) => !n.startsWith('datapackage')),
    );
    for (const r of manifest.resources) {
      const e = byName.get(r.path)!;
      assert.equal(r.hash, sha256(e.data), `${r.path}: hash`);
      assert.equal(r.bytes, e.data.length, `${r.path}: bytes`);
      assert.match(r.name, /^[-a-z0-9._/]+$/);
    }
    assert.deepEqual(JSON.parse(byName.get('datapackage-digest.json')!.data.toString()), {
      path: 'datapackage.json',
      hash: sha256(byName.get('datapackage.json')!.data),
    });

    // The CDXJ: sorted; each line's offset and length read a record of that URL out of the .wacz.
    const lines = byName.get('indexes/index.cdx')!.data.toString().trim().split('\n');
    assert.equal(lines.length, 5);
    assert.deepEqual(lines, [...lines].sort());
    const types: string[] = [];
    for (const line of lines) {
      const m = /^(\S+) (\d{14}) (\{.*\})$/.exec(line);
      assert.ok(m, line);
      const cdx = JSON.parse(m[3]!) as Record<string, string>;
      assert.deepEqual(Object.keys(cdx), ['url', 'mime', 'status', 'digest', 'length', 'offset', 'filename']);
      const entry = byName.get(`archive/${cdx.filename}`)!;
      const record = await recordAt(bytes, entry.dataStart + Number(cdx.offset), Number(cdx.length));
      assert.equal(record.warcTargetURI, cdx.url);
      assert.equal(record.warcDate!.replace(/\D/g, '').slice(0, 14), m[2]);
      assert.equal(cdx.digest, record.warcPayloadDigest);
      types.push(record.warcType);
      assert.equal(cdx.mime, record.warcType === 'revisit' ? 'warc/revisit' : 'text/html');
      assert.equal(cdx.status, '200');
    }
    assert.deepEqual(types.filter((t) => t === 'revisit').length, 1);
    assert.ok(
      lines.some((l) => l.startsWith('org,example)/b 20260304050607 ')),
      'the SURT key: host reversed, www. dropped',
    );
    assert.ok(
      lines.some((l) => l.startsWith('org,example)/a?x=2&y=1 ')),
      'the query sorted',
    );
    assert.ok(
      lines.some((l) => l.startsWith('1,0,0,127:8080)/page ')),
      'a port kept',
    );

    const listed = byName
      .get('pages/pages.jsonl')!
      .data.toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, string>);
    for (const p of listed.slice(1)) assert.match(p.id!, /^[0-9a-f]{16}$/);
    assert.deepEqual(
      listed.map(({ id, ...rest }) => (id === 'pages' ? rest : { ...rest })),
      [
        { format: 'json-pages-1.0', title: 'All Pages' },
        { url: 'https://www.example.org/b', ts: '2026-03-04T05:06:07.000Z', title: 'B' },
        { url: 'https://docs.example.com/', ts: '2026-03-04T05:06:07.000Z' },
      ],
    );
    assert.equal(listed[0]!.id, 'pages');
  });

  it('writes to a stream, and leaves it open; takes pages from an async iterable', async () => {
    const dir = tmp();
    const warcs = [{ name: 'one.warc.gz', path: await warcFile(dir, 'one.warc.gz', ['https://example.org/a']) }];
    const sink = new PassThrough();
    const chunks: Buffer[] = [];
    sink.on('data', (c: Buffer) => chunks.push(c));
    async function* pages() {
      yield { url: 'https://example.org/a', ts: '2026-03-04T05:06:07Z', title: 'A' };
    }
    const summary = await writeWacz(sink, { warcs, pages: pages(), title: 'T', software: 'S' });
    assert.equal(sink.writableEnded, false, 'the stream is not ended');
    const bytes = Buffer.concat(chunks);
    assert.equal(summary.bytes, bytes.length);
    assert.deepEqual(summary, { records: 1, pages: 1, bytes: bytes.length });
    const entries = await zipEntries(await yauzl.fromBufferPromise(bytes, { lazyEntries: true }));
    assert.equal(entries.length, 5);
    assert.ok(entries[0]!.data.equals(readFileSync(warcs[0]!.path)));
  });

  it('fails on a page without a date, and leaves no file behind', async () => {
    const dir = tmp();
    const warcs = [{ name: 'one.warc.gz', path: await warcFile(dir, 'one.warc.gz', ['https://example.org/a']) }];
    const out = join(dir, 'bad.wacz');
    await assert.rejects(writeWacz(out, { warcs, pages: [{ url: 'https://example.org/a', ts: 'yesterday' }], title: 'T', software: 'S' }), /is not a date/);
    assert.equal(existsSync(out), false);
    assert.equal(existsSync(`${out}.part`), false);
    await assert.rejects(writeWacz(out, { warcs: [{ name: 'x/one.warc.gz', path: warcs[0]!.path }], pages: [], title: 'T', software: 'S' }), /no folder/);
  });
});
