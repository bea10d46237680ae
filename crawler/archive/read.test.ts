// The WARC and ARC reader on records written here by hand, to cover what wget does not write:
// WARC 1.0 and 1.1, gzipped per record or not, request, metadata, resource and revisit records,
// chunked and gzip transfers, ARC files, and damage — each file ending with its account.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { readArchive, type ArchiveItem, type Capture, type Ended } from './read.ts';
import { Originals } from './revisits.ts';

const dir = mkdtempSync(join(tmpdir(), 'trawl-read-'));
let serial = 0;

/** One WARC record as bytes: the version line, the headers, the block, two CRLFs. */
function warc(version: string, type: string, headers: Record<string, string>, block: Buffer | string = ''): Buffer {
  const body = Buffer.isBuffer(block) ? block : Buffer.from(block, 'latin1');
  const lines = {
    'WARC-Type': type,
    'WARC-Record-ID': `<urn:uuid:00000000-0000-0000-0000-${String(++serial).padStart(12, '0')}>`,
    'WARC-Date': '2021-03-04T05:06:07Z',
    ...headers,
    'Content-Length': String(body.length),
  };
  const head = `WARC/${version}\r\n${Object.entries(lines)
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('')}\r\n`;
  return Buffer.concat([Buffer.from(head, 'latin1'), body, Buffer.from('\r\n\r\n')]);
}

const http = (status: string, headers: string[], body: Buffer | string = '') =>
  Buffer.concat([
    Buffer.from(`HTTP/1.1 ${status}\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`, 'latin1'),
    Buffer.isBuffer(body) ? body : Buffer.from(body),
  ]);

const chunked = (body: Buffer) => Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
const APP_HTTP = { 'Content-Type': 'application/http; msgtype=response' };

/** A file of every kind of record, in `version`. */
function everyKind(version: string): Buffer[] {
  serial = 0; // (the 304 below refers to the third record's ID)
  const page = '<title>Plain</title><p>plainword</p>';
  return [
    warc(version, 'warcinfo', { 'Content-Type': 'application/warc-fields' }, 'software: hand\r\n'),
    warc(
      version,
      'request',
      { 'WARC-Target-URI': 'http://a.test/plain', 'Content-Type': 'application/http; msgtype=request' },
      'GET /plain HTTP/1.1\r\nHost: a.test\r\n\r\n',
    ),
    warc(
      version,
      'response',
      { 'WARC-Target-URI': 'http://a.test/plain', 'WARC-Payload-Digest': 'sha1:PLAINPLAINPLAIN', ...APP_HTTP },
      http('200 OK', ['Content-Type: text/html'], page),
    ),
    warc(
      version,
      'response',
      { 'WARC-Target-URI': 'http://a.test/chunky', ...APP_HTTP },
      http(
        '200 OK',
        ['Content-Type: text/html', 'Transfer-Encoding: chunked', 'Content-Encoding: gzip'],
        chunked(gzipSync('<title>Chunky</title><p>chunkword</p>')),
      ),
    ),
    warc(version, 'metadata', { 'WARC-Target-URI': 'http://a.test/plain', 'Content-Type': 'application/warc-fields' }, 'outlink: http://a.test/x\r\n'),
    warc(version, 'resource', { 'WARC-Target-URI': 'http://a.test/notes.txt', 'Content-Type': 'text/plain' }, 'resourceword in a resource record'),
    // The same payload at another URL, by digest only (the identical-payload-digest profile).
    warc(
      version,
      'revisit',
      {
        'WARC-Target-URI': 'http://a.test/copy',
        'WARC-Payload-Digest': 'sha1:PLAINPLAINPLAIN',
        'WARC-Profile': 'http://netpreserve.org/warc/1.0/revisit/identical-payload-digest',
        ...APP_HTTP,
      },
      http('200 OK', ['Content-Type: text/html']),
    ),
    // A 304 by record ID: the page is the original's.
    warc(
      version,
      'revisit',
      {
        'WARC-Target-URI': 'http://a.test/plain',
        'WARC-Refers-To': '<urn:uuid:00000000-0000-0000-0000-000000000003>',
        'WARC-Profile': 'http://netpreserve.org/warc/1.1/revisit/server-not-modified',
        ...APP_HTTP,
      },
      http('304 Not Modified', ['Date: Thu, 04 Mar 2021 05:06:07 GMT']),
    ),
    warc(version, 'revisit', { 'WARC-Target-URI': 'http://a.test/lost', 'WARC-Payload-Digest': 'sha1:NOWHERE', ...APP_HTTP }, http('200 OK', [])),
  ];
}

async function readAll(path: string, originals?: Originals): Promise<{ captures: Capture[]; skipped: string[]; end: Ended }> {
  const items: ArchiveItem[] = [];
  for await (const item of readArchive(path, originals ? { originals } : {})) items.push(item);
  const end = items.at(-1);
  assert.equal(end?.kind, 'end', 'the last item is the account');
  return {
    captures: items.filter((i): i is Capture => i.kind === 'capture'),
    skipped: items.flatMap((i) => (i.kind === 'skipped' ? [`${i.url} ${i.reason}`] : [])),
    end: end as Ended,
  };
}

const write = (name: string, parts: Buffer[]) => {
  const path = join(dir, name);
  writeFileSync(path, Buffer.concat(parts));
  return path;
};

describe('reading WARC files written by hand', () => {
  for (const [version, gz] of [
    ['1.0', false],
    ['1.1', true],
  ] as const) {
    it(`WARC ${version}${gz ? ', gzipped per record' : ''}: every kind of record, revisits resolved, transfers undone`, async () => {
      const parts = everyKind(version).map((r) => (gz ? gzipSync(r) : r));
      const { captures, skipped, end } = await readAll(write(`every-${version}.warc${gz ? '.gz' : ''}`, parts));
      assert.equal(end.format, `WARC ${version}`);
      assert.equal(end.compressed, gz);
      assert.deepEqual(end.damage, []);
      assert.deepEqual(end.records, { warcinfo: 1, request: 1, response: 2, metadata: 1, resource: 1, revisit: 3 });
      const byUrl = new Map(captures.map((c) => [`${c.url} ${c.status}`, c]));
      assert.deepEqual(
        [...byUrl.keys()],
        ['http://a.test/plain 200', 'http://a.test/chunky 200', 'http://a.test/notes.txt 200', 'http://a.test/copy 200', 'http://a.test/plain 200'].filter(
          (k, i, all) => all.indexOf(k) === i,
        ),
      );
      assert.equal(captures.length, 5);
      const chunky = byUrl.get('http://a.test/chunky 200')!;
      assert.equal(chunky.body.toString(), '<title>Chunky</title><p>chunkword</p>', 'de-chunked and gunzipped');
      assert.equal(chunky.headers['content-encoding'], undefined, 'the body given is decoded: no encoding is claimed');
      assert.equal(chunky.headers['transfer-encoding'], undefined);
      assert.match(byUrl.get('http://a.test/copy 200')!.body.toString(), /plainword/, "the identical payload's body");
      const revisited = captures.filter((c) => c.url === 'http://a.test/plain');
      assert.equal(revisited.length, 2);
      assert.match(revisited[1]!.body.toString(), /plainword/, "a 304 revisit is the original's page");
      assert.equal(revisited[1]!.headers['content-type'], 'text/html', "with the original's headers");
      assert.equal(byUrl.get('http://a.test/notes.txt 200')!.headers['content-type'], 'text/plain');
      assert.equal(captures[0]!.date, Date.parse('2021-03-04T05:06:07Z'));
      assert.deepEqual(skipped, ['http://a.test/lost a revisit of a response that is not in the files imported']);
    });
  }

  it('names both versions in a file that mixes them', async () => {
    const [info, , response] = everyKind('1.0');
    const later = everyKind('1.1')[5]!;
    const { end, captures } = await readAll(write('mixed.warc', [info!, response!, later]));
    assert.equal(end.format, 'WARC 1.0 and 1.1');
    assert.equal(captures.length, 2);
  });

  it('resolves a revisit from a file read before, through the originals shared by an import', async () => {
    const all = everyKind('1.1');
    const originals = new Originals();
    await readAll(write('first.warc', [all[0]!, all[2]!]), originals);
    const { captures, skipped } = await readAll(write('second.warc', [all[0]!, all[6]!]), originals);
    assert.deepEqual(skipped, []);
    assert.equal(captures[0]?.url, 'http://a.test/copy');
    assert.match(captures[0]!.body.toString(), /plainword/);
  });

  it('tells where a file is damaged, and reads on after it', async () => {
    const all = everyKind('1.1').map((r) => gzipSync(r));
    const broken = Buffer.from(all[3]!);
    broken.fill(0x41, 20, 60); // (inside the deflate stream: the member cannot be inflated)
    const path = write('damaged.warc.gz', [all[0]!, all[2]!, broken, all[5]!]);
    const { end, captures } = await readAll(path);
    assert.equal(end.damage.length, 1, JSON.stringify(end.damage));
    assert.equal(end.damage[0]!.at, all[0]!.length + all[2]!.length, 'at the start of the broken member');
    assert.deepEqual(
      captures.map((c) => c.url),
      ['http://a.test/plain', 'http://a.test/notes.txt'],
      'the records before and after it',
    );
  });

  it('tells a file cut short, and a file that is no archive', async () => {
    const all = everyKind('1.1').map((r) => gzipSync(r));
    const cut = await readAll(write('cut.warc.gz', [all[0]!, all[2]!, all[5]!.subarray(0, 50)]));
    assert.equal(cut.captures.length, 1);
    assert.match(cut.end.damage[0]?.reason ?? '', /not a complete record/);
    assert.equal(cut.end.damage[0]?.at, all[0]!.length + all[2]!.length);
    const text = await readAll(write('notes.warc', [Buffer.from('just some notes\n')]));
    assert.equal(text.end.format, 'unknown');
    assert.match(text.end.damage[0]?.reason ?? '', /not a WARC or ARC file: it begins "just some notes/);
    const empty = await readAll(write('empty.warc', []));
    assert.match(empty.end.damage[0]?.reason ?? '', /empty/);
  });
});

describe('reading ARC files written by hand', () => {
  const block = (s: string) => Buffer.from(s, 'latin1');
  const arcRecord = (url: string, body: Buffer) => Buffer.concat([block(`${url} 127.0.0.1 20210304050607 text/html ${body.length}\n`), body, block('\n')]);
  const desc = block('1 0 hand\nURL IP-address Archive-date Content-type Archive-length\n');
  const records = [
    arcRecord('filedesc://hand.arc', desc),
    arcRecord('http://a.test/one', http('200 OK', ['Content-Type: text/html'], '<title>One</title>arcword')),
    arcRecord('http://a.test/two', http('404 Not Found', ['Content-Type: text/html'], 'gone')),
  ];
  for (const gz of [false, true]) {
    it(`ARC${gz ? '.gz (a member per record)' : ''}: its captures and its account`, async () => {
      const { captures, end } = await readAll(write(`hand.arc${gz ? '.gz' : ''}`, gz ? records.map((r) => gzipSync(r)) : records));
      assert.equal(end.format, 'ARC');
      assert.equal(end.compressed, gz);
      assert.deepEqual(end.damage, []);
      assert.deepEqual(
        captures.map((c) => [c.url, c.status, c.date]),
        [
          ['http://a.test/one', 200, Date.UTC(2021, 2, 4, 5, 6, 7)],
          ['http://a.test/two', 404, Date.UTC(2021, 2, 4, 5, 6, 7)],
        ],
      );
      assert.match(captures[0]!.body.toString(), /arcword/);
    });
  }

  it('tells an ARC file cut short', async () => {
    const all = Buffer.concat(records);
    const { captures, end } = await readAll(write('cut.arc', [all.subarray(0, all.length - 10)]));
    assert.equal(captures.length, 1);
    assert.match(end.damage[0]?.reason ?? '', /cut short/);
  });
});
