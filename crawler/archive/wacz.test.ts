// openWacz on packages made for each case: valid ones (a stored WARC read in place, a deflated one
// extracted), zips that are no WACZ, datapackage.json files that lie, the shapes of a zip bomb, and
// index and page lines that cannot be used. WACZs are zipped by yazl, the hostile ones byte by byte
// (wacz-fixture.ts).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import { isZip, openWacz, WaczError, type WaczPackage } from './wacz.ts';
import { cdxj, type Datapackage, deflatedZeros, rawZip, sha256, warc, writeWacz, type ZipEntry } from './wacz-fixture.ts';

const pages = [
  { url: 'https://example.com/a', body: '<title>Page A</title><p>first</p>' },
  { url: 'https://example.com/b', body: '<title>Page B</title><p>second</p>' },
  { url: 'https://example.com/c', body: '<title>Page C</title><p>third</p>' },
];
const { bytes: warcBytes, captures } = warc(pages);
const [revisit, ...responses] = [captures.at(-1)!, ...captures.slice(0, -1)];
const pageList = [
  '{"format":"json-pages-1.0","id":"pages","title":"All Pages"}',
  '{"url":"https://example.com/a","ts":"2024-01-02T03:04:05Z","title":"Page A"}',
  '{"url":"https://example.com/b","ts":"2024-01-02T03:04:05Z","title":"  Page B  "}',
  '{"url":"https://example.com/untitled","ts":"2024-01-02T03:04:05Z"}',
].join('\n');
const extraPages =
  '{"format":"json-pages-1.0","id":"extra-pages"}\n{"url":"https://example.com/c","title":"Page C"}\n{"url":"https://example.com/a","title":"Not A"}\n';

/** The entries of a valid WACZ, the index with the revisit line first (it is not the one byDigest gives). */
const validEntries = (compress = false): ZipEntry[] => [
  { name: 'archive/data.warc.gz', data: warcBytes, compress },
  { name: 'indexes/index.cdxj', data: cdxj([revisit, ...responses], 'data.warc.gz') },
  { name: 'pages/pages.jsonl', data: pageList },
  { name: 'pages/extraPages.jsonl', data: extraPages },
];

describe('openWacz', () => {
  let dir: string;
  let count = 0;
  const file = (bytes?: Buffer | string) => {
    const path = join(dir, `p${++count}.wacz`);
    if (bytes !== undefined) writeFileSync(path, bytes);
    return path;
  };
  const wacz = async (...args: Parameters<typeof writeWacz> extends [string, ...infer R] ? R : never) => {
    const path = file();
    await writeWacz(path, ...args);
    return path;
  };
  const refused = (path: string, message: RegExp, limits = {}) =>
    assert.rejects(openWacz(path, limits), (e: unknown) => e instanceof WaczError && message.test(e.message) && e.message.includes(path));
  const opened: WaczPackage[] = [];
  const open = async (path: string, limits = {}) => {
    const pkg = await openWacz(path, limits);
    opened.push(pkg);
    return pkg;
  };

  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-wacz-test-'));
  });
  after(async () => {
    for (const pkg of opened) await pkg.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads a valid WACZ: its stored WARC in place, titles, index, captures by digest', async () => {
    const path = await wacz(validEntries());
    assert.equal(isZip(path), true);
    const pkg = await open(path);
    assert.equal(pkg.version, '1.1.1');
    assert.deepEqual(pkg.problems, []);
    assert.deepEqual(
      pkg.warcs.map((w) => [w.name, w.size, w.compressed]),
      [['archive/data.warc.gz', warcBytes.length, false]],
    );
    const at = await pkg.warcs[0]!.locate();
    assert.equal(at.path, path);
    assert.deepEqual(readFileSync(path).subarray(at.start, at.end), warcBytes);
    assert.deepEqual(
      [...pkg.titles],
      [
        ['https://example.com/a', 'Page A'],
        ['https://example.com/b', 'Page B'],
        ['https://example.com/c', 'Page C'],
      ],
    );
    assert.equal(pkg.indexLines, 4);
    // The revisit shares page A's digest; the capture is A's response. Digests are found in any spelling.
    for (const digest of [revisit.digest, `SHA-256:${sha256(pages[0]!.body).toUpperCase()}`]) {
      const c = pkg.byDigest(digest)!;
      assert.deepEqual([c.warc, c.url, c.offset, c.length], [pkg.warcs[0], pages[0]!.url, responses[0]!.offset, responses[0]!.length]);
      const record = gunzipSync(warcBytes.subarray(c.offset, c.offset + c.length)).toString();
      assert.ok(record.includes('WARC-Type: response\r\n') && record.includes('WARC-Target-URI: https://example.com/a\r\n'));
    }
    assert.equal(pkg.byDigest(responses[2]!.digest)?.url, 'https://example.com/c');
    assert.equal(pkg.byDigest(`sha256:${sha256('nothing')}`), undefined);
  });

  it('extracts a deflated WARC at its first locate() into a temp file, which close() removes', async () => {
    const pkg = await openWacz(await wacz(validEntries(true)));
    const w = pkg.warcs[0]!;
    assert.equal(w.compressed, true);
    const at = await w.locate();
    assert.ok(at.path.startsWith(tmpdir()));
    assert.deepEqual([at.start, at.end], [0, warcBytes.length]);
    assert.deepEqual(readFileSync(at.path), warcBytes);
    assert.equal((await w.locate()).path, at.path);
    assert.equal(pkg.byDigest(responses[1]!.digest)?.offset, responses[1]!.offset);
    await pkg.close();
    assert.equal(existsSync(at.path), false);
    await assert.rejects(w.locate(), WaczError);
  });

  it('refuses a zip that is not a WACZ, saying what it holds', async () => {
    const path = await wacz(
      ['a.txt', 'b.txt', 'c.txt'].map((name) => ({ name, data: 'text' })),
      'none',
    );
    await refused(path, /is a zip but not a WACZ: no archive\/\*\.warc\(\.gz\) inside \(it holds 3 entries: a\.txt, b\.txt, c\.txt\)$/);
    const empty = await wacz([], 'none');
    assert.equal(isZip(empty), true);
    await refused(empty, /it holds no entries/);
  });

  it('refuses a file that is not a zip, and a broken zip, with yauzl’s reason', async () => {
    const text = file('hello, not a zip\n');
    assert.equal(isZip(text), false);
    await refused(text, /not a readable zip: End of central directory record signature not found/);
    const good = readFileSync(await wacz(validEntries()));
    await refused(file(good.subarray(0, good.length >> 1)), /not a readable zip: End of central directory/);
    // (Bytes taken out of the middle: the end record is there, nothing is where it says.)
    await refused(file(Buffer.concat([good.subarray(0, 50), good.subarray(150)])), /broken zip: invalid central directory file header signature/);
  });

  it('refuses a datapackage.json that lies about a size, a hash, or a file that is not there', async () => {
    const warcSize = warcBytes.length;
    await refused(
      await wacz(validEntries(), (dp) => {
        dp.resources[0]!.bytes += 1;
      }),
      new RegExp(`datapackage.json says archive/data.warc.gz has ${warcSize + 1} bytes; it has ${warcSize.toLocaleString('en-US')}$`),
    );
    await refused(
      await wacz(validEntries(), (dp) => {
        dp.resources[2]!.hash = `sha256:${'0'.repeat(64)}`;
      }),
      new RegExp(`datapackage.json says pages/pages.jsonl's sha256 is 0{64}; it is ${sha256(pageList)}$`),
    );
    await refused(
      await wacz(validEntries(), (dp) => {
        dp.resources.push({ name: 'gone.warc.gz', path: 'archive/gone.warc.gz', hash: `sha256:${'0'.repeat(64)}`, bytes: 10 });
      }),
      /datapackage.json lists archive\/gone\.warc\.gz, which is not in the zip$/,
    );
  });

  it('takes from js-wacz, and only from it, a hash of each 64 KiB block fed twice (harvard-lil/js-wacz#127)', async () => {
    const big = randomBytes(150_000);
    const twice = (b: Buffer) => {
      const blocks = Array.from({ length: Math.ceil(b.length / 65536) }, (_, i) => b.subarray(i * 65536, (i + 1) * 65536));
      return sha256(Buffer.concat(blocks.flatMap((block) => [block, block])));
    };
    const entries = [...validEntries(), { name: 'archive/big.warc', data: big }];
    const js = (software?: string) => (dp: Datapackage) => {
      Object.assign(dp, software ? { software } : {});
      dp.resources[4]!.hash = `sha256:${twice(big)}`;
    };
    await refused(await wacz(entries, js()), /archive\/big\.warc's sha256 is/);
    const pkg = await open(await wacz(entries, js('@harvard-lil/js-wacz 0.1.6')));
    assert.deepEqual(pkg.problems, [
      { reason: 'a hash as js-wacz writes it (each 64 KiB read hashed twice, harvard-lil/js-wacz#127), taken', count: 1, example: 'archive/big.warc' },
    ]);
  });

  it('refuses a datapackage.json too large or not JSON; without one, opens and says so', async () => {
    await refused(await wacz(validEntries()), /datapackage.json has [\d,]+ bytes, more than the 64 allowed/, { maxMetadataBytes: 64 });
    await refused(await wacz(validEntries(), '{"resources": ['), /datapackage.json is not JSON/);
    await refused(await wacz(validEntries(), '{"wacz_version": "1.1.1"}'), /datapackage.json has no resources list/);
    const pkg = await open(await wacz(validEntries(), 'none'));
    assert.deepEqual(pkg.problems, [{ reason: 'not WACZ 1.1.1: no datapackage.json', count: 1 }]);
    assert.equal(pkg.version, undefined);
    assert.equal(pkg.indexLines, 4);
    const unlisted = await open(
      await wacz(validEntries(), (dp) => {
        dp.resources.splice(3, 1);
      }),
    );
    assert.deepEqual(unlisted.problems, [{ reason: 'an entry not listed in datapackage.json', count: 1, example: 'pages/extraPages.jsonl' }]);
  });

  it('refuses a zip bomb by its ratio before inflating it, and an entry inflating past its declared size', async () => {
    const bomb = file(rawZip([{ name: 'archive/bomb.warc', data: deflatedZeros(), method: 8, size: 200_000_000 }]));
    const started = Date.now();
    await refused(bomb, /archive\/bomb\.warc expands 1,0\d\d times \([\d,]+ bytes to 200,000,000\): a zip bomb\?$/);
    assert.ok(Date.now() - started < 1000);
    await (await openWacz(bomb, { maxRatio: 5000 })).close();
    const datapackage = JSON.stringify({ resources: [{ path: 'archive/liar.warc', bytes: 1000, hash: `sha256:${'0'.repeat(64)}` }] });
    const liar = rawZip([
      { name: 'archive/liar.warc', data: deflatedZeros(), method: 8, size: 1000 },
      { name: 'datapackage.json', data: Buffer.from(datapackage) },
    ]);
    await refused(file(liar), /archive\/liar\.warc cannot be read: too many bytes in the stream/);
  });

  it('refuses entries that share bytes (the overlapping-entries bomb)', async () => {
    const data = Buffer.from('WARC/1.1\r\n\r\n');
    await refused(
      file(
        rawZip([
          { name: 'archive/a.warc', data },
          { name: 'archive/b.warc', data, sameAs: 0 },
        ]),
      ),
      /archive\/b\.warc overlaps archive\/a\.warc in the zip \(bytes 0 to \d+\): entries sharing bytes, a zip bomb\?$/,
    );
    // a.warc claims its data runs on over b.warc's header and data.
    const claimed = data.length + 30 + 'archive/b.warc'.length + data.length;
    await refused(
      file(
        rawZip([
          { name: 'archive/a.warc', data, size: claimed, compressedSize: claimed },
          { name: 'archive/b.warc', data },
        ]),
      ),
      /archive\/b\.warc overlaps archive\/a\.warc/,
    );
  });

  it('refuses an entry claiming more bytes than the file has (a zip64 entry of 5 GB)', async () => {
    const zip = rawZip([{ name: 'archive/big.warc.gz', data: Buffer.from('WARC'), zip64: true, size: 5_000_000_000, compressedSize: 5_000_000_000 }]);
    await refused(file(zip), new RegExp(`archive/big\\.warc\\.gz claims 5,000,000,000 bytes; the file has only ${zip.length}$`));
  });

  it('counts index lines that point outside their WARC, to an unknown file, or do not parse; and bad page lines', async () => {
    const outside = { ...responses[1]!, url: 'https://example.com/outside', digest: `sha256:${sha256('outside')}`, offset: warcBytes.length - 10 };
    const index = [
      cdxj(responses, 'data.warc.gz'),
      cdxj([{ ...responses[0]!, url: 'https://example.com/elsewhere' }], 'other.warc.gz'),
      cdxj([{ ...responses[0]!, url: 'https://example.com/elsewhere2' }], 'other.warc.gz'),
      cdxj([outside], 'data.warc.gz'),
      'com,example)/x 20240102030405 {"url": "https://example.com/x"\n',
      'garbage\n',
    ].join('');
    const badPages = [
      '{"url":"https://example.com/nohead","title":"No header"}',
      'not json',
      `{"url":"https://example.com/big","title":"${'x'.repeat(1_500_000)}"}`,
      '{"url":"https://example.com/after","title":"After"}\n',
    ].join('\n');
    const pkg = await open(
      await wacz([
        { name: 'archive/data.warc.gz', data: warcBytes },
        { name: 'indexes/index.cdxj', data: index },
        { name: 'pages/pages.jsonl', data: badPages },
      ]),
    );
    assert.equal(pkg.indexLines, 3);
    assert.equal(pkg.byDigest(outside.digest), undefined);
    assert.deepEqual(pkg.problems, [
      { reason: "an index line naming a file that is not among the package's WARCs", count: 2, example: 'https://example.com/elsewhere' },
      { reason: 'an index line pointing past the end of its WARC', count: 1, example: 'https://example.com/outside' },
      { reason: 'a malformed index line (its JSON does not parse)', count: 1, example: 'com,example)/x 20240102030405 {"url": "https://example.com/x"' },
      { reason: 'a malformed index line (not `<surt> <timestamp> {json}`)', count: 1, example: 'garbage' },
      { reason: 'a page list without its json-pages-1.0 header line', count: 1, example: 'pages/pages.jsonl' },
      { reason: 'a malformed line in a page list (not a JSON object)', count: 1, example: 'pages/pages.jsonl line 2' },
      { reason: 'a line longer than 1048576 bytes in a page list', count: 1, example: 'pages/pages.jsonl line 3' },
    ]);
    assert.deepEqual([...pkg.titles.keys()], ['https://example.com/nohead', 'https://example.com/after']);
  });

  it('reads a gzipped CDXJ of several gzip members (zipnum’s index.cdx.gz), its index.idx left alone', async () => {
    const gz = Buffer.concat([gzipSync(cdxj(responses.slice(0, 2), 'data.warc.gz')), gzipSync(cdxj([responses[2]!, revisit], 'data.warc.gz'))]);
    const pkg = await open(
      await wacz([
        { name: 'archive/data.warc.gz', data: warcBytes },
        { name: 'indexes/index.cdx.gz', data: gz },
        { name: 'indexes/index.idx', data: '!meta 0 {"format": "cdxj-gzip-1.0", "filename": "index.cdx.gz"}\ncom,example)/a {"offset": 0}\n' },
      ]),
    );
    assert.deepEqual(pkg.problems, []);
    assert.equal(pkg.indexLines, 4);
    assert.equal(pkg.byDigest(responses[2]!.digest)?.url, 'https://example.com/c');
    // A gzipped index of zeros expanding without end is read no further than its ratio allows.
    const bomb = await open(
      await wacz([
        { name: 'archive/data.warc.gz', data: warcBytes },
        { name: 'indexes/index.cdx.gz', data: gzipSync(Buffer.alloc(20_000_000), { level: 9 }) },
      ]),
    );
    assert.deepEqual(
      bomb.problems.map((p) => p.reason),
      ['an index expanding more than 200 times (a gzip bomb?): read no further', 'an index line longer than 1048576 bytes'],
    );
  });
});
