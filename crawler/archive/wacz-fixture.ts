/**
 * Test packages for wacz.test.ts: small WARCs written record by record, WACZs zipped by yazl with a
 * datapackage.json that tells the truth unless told to lie, and, for what no honest writer makes
 * (an entry claiming 5 GB, entries sharing bytes), zips written byte by byte.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32, deflateRawSync, gzipSync } from 'node:zlib';
import type yauzl from 'yauzl';
import yazl from 'yazl';

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export type Capture = { readonly url: string; readonly offset: number; readonly length: number; readonly digest: string; readonly revisit: boolean };

/**
 * A .warc.gz, a gzip member per record: a response per page, and a revisit of the first page's
 * payload (at a second URL). Also its captures as an index would list them.
 */
export function warc(pages: readonly { url: string; body: string }[]): { bytes: Buffer; captures: Capture[] } {
  const members: Buffer[] = [];
  const captures: Capture[] = [];
  let offset = 0;
  const add = (type: 'response' | 'revisit', url: string, http: string, digest: string) => {
    const head = [
      'WARC/1.1',
      `WARC-Type: ${type}`,
      `WARC-Record-ID: <urn:uuid:00000000-0000-4000-8000-${String(members.length).padStart(12, '0')}>`,
      'WARC-Date: 2024-01-02T03:04:05Z',
      `WARC-Target-URI: ${url}`,
      'Content-Type: application/http; msgtype=response',
      `WARC-Payload-Digest: ${digest}`,
      ...(type === 'revisit' ? ['WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest'] : []),
      `Content-Length: ${Buffer.byteLength(http)}`,
    ].join('\r\n');
    const member = gzipSync(`${head}\r\n\r\n${http}\r\n\r\n`);
    members.push(member);
    captures.push({ url, offset, length: member.length, digest, revisit: type === 'revisit' });
    offset += member.length;
  };
  for (const { url, body } of pages) {
    const http = `HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    add('response', url, http, `sha256:${sha256(body)}`);
  }
  if (pages[0]) add('revisit', `${pages[0].url}?again`, 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n', `sha256:${sha256(pages[0].body)}`);
  return { bytes: Buffer.concat(members), captures };
}

/** CDXJ lines for captures in `filename` (any SURT will do: the reader does not use it). */
export function cdxj(captures: readonly Capture[], filename: string): string {
  return captures
    .map((c) => {
      const fields = {
        url: c.url,
        mime: c.revisit ? 'warc/revisit' : 'text/html',
        status: '200',
        digest: c.digest,
        length: String(c.length),
        offset: String(c.offset),
        filename,
      };
      return `com,example)/${c.url.split('/').pop()} 20240102030405 ${JSON.stringify(fields)}\n`;
    })
    .join('');
}

export type ZipEntry = { readonly name: string; readonly data: Buffer | string; readonly compress?: boolean };
export type Datapackage = { wacz_version: string; resources: { name: string; path: string; hash: string; bytes: number }[] };

/**
 * A WACZ at `path` by yazl: the entries, then a datapackage.json listing them all truthfully, after
 * `tamper` has had its way with it ('none' for no datapackage.json, a string for one as it is).
 */
export async function writeWacz(path: string, entries: readonly ZipEntry[], tamper?: ((dp: Datapackage) => void) | string | 'none'): Promise<void> {
  const zip = new yazl.ZipFile();
  const dp: Datapackage = { wacz_version: '1.1.1', resources: [] };
  for (const e of entries) {
    const data = Buffer.from(e.data);
    zip.addBuffer(data, e.name, { compress: e.compress ?? false });
    dp.resources.push({ name: basename(e.name), path: e.name, hash: `sha256:${sha256(data)}`, bytes: data.length });
  }
  if (typeof tamper === 'function') tamper(dp);
  if (tamper !== 'none') zip.addBuffer(Buffer.from(typeof tamper === 'string' ? tamper : JSON.stringify(dp)), 'datapackage.json', { compress: false });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(path));
}

export type RawEntry = {
  readonly name: string;
  readonly data: Buffer;
  /** 0 stored, 8 deflated (`data` deflated already). */
  readonly method?: 0 | 8;
  /** The sizes declared, when they are to lie (default: the truth; stored entries' compressed size defaults to `size`). */
  readonly size?: number;
  readonly compressedSize?: number;
  /** Sizes in a zip64 extra field (0xFFFFFFFF in the headers). */
  readonly zip64?: boolean;
  /** Only a central directory record, sharing the local header and data of entry number `sameAs`. */
  readonly sameAs?: number;
};

/** A zip written byte by byte: local headers and data, the central directory, its end record. */
export function rawZip(entries: readonly RawEntry[]): Buffer {
  const parts: Buffer[] = [];
  const offsets: number[] = [];
  let at = 0;
  const header = (e: RawEntry, central: boolean, offset: number) => {
    const name = Buffer.from(e.name);
    const method = e.method ?? 0;
    const size = e.size ?? (method === 0 ? e.data.length : 0);
    const csize = e.compressedSize ?? (method === 0 ? size : e.data.length);
    const extra = e.zip64 ? Buffer.alloc(20) : Buffer.alloc(0);
    if (e.zip64) {
      extra.writeUInt16LE(1, 0);
      extra.writeUInt16LE(16, 2);
      extra.writeBigUInt64LE(BigInt(size), 4);
      extra.writeBigUInt64LE(BigInt(csize), 12);
    }
    const h = Buffer.alloc(central ? 46 : 30);
    h.writeUInt32LE(central ? 0x02014b50 : 0x04034b50, 0);
    // (The central record has a "version made by" before the fields the two share.)
    const p = central ? 6 : 4;
    if (central) h.writeUInt16LE(45, 4);
    h.writeUInt16LE(e.zip64 ? 45 : 20, p);
    h.writeUInt16LE(0x800, p + 2);
    h.writeUInt16LE(method, p + 4);
    h.writeUInt16LE(0x21, p + 8); // (1980-01-01)
    h.writeUInt32LE(method === 0 ? crc32(e.data) : 0, p + 10);
    h.writeUInt32LE(e.zip64 ? 0xffffffff : csize, p + 14);
    h.writeUInt32LE(e.zip64 ? 0xffffffff : size, p + 18);
    h.writeUInt16LE(name.length, p + 22);
    h.writeUInt16LE(extra.length, p + 24);
    if (central) h.writeUInt32LE(offset, 42);
    return Buffer.concat([h, name, extra]);
  };
  for (const e of entries) {
    if (e.sameAs !== undefined) continue;
    offsets.push(at);
    const local = Buffer.concat([header(e, false, 0), e.data]);
    parts.push(local);
    at += local.length;
  }
  const cdStart = at;
  let local = 0;
  for (const e of entries) {
    const offset = e.sameAs !== undefined ? offsets[e.sameAs]! : offsets[local++]!;
    const c = header(e, true, offset);
    parts.push(c);
    at += c.length;
  }
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(at - cdStart, 12);
  end.writeUInt32LE(cdStart, 16);
  return Buffer.concat([...parts, end]);
}

let zeros: Buffer | undefined;
/** 200 MB of zeros deflated: about 200 KB. */
export function deflatedZeros(): Buffer {
  zeros ??= deflateRawSync(Buffer.alloc(200_000_000), { level: 9 });
  return zeros;
}

export type ReadEntry = { readonly name: string; readonly method: number; readonly dataStart: number; readonly data: Buffer };

/** Every entry of a zip as yauzl reads it: its name, compression method, data offset and content. */
export async function zipEntries(zip: yauzl.ZipFile): Promise<ReadEntry[]> {
  const out: ReadEntry[] = [];
  for await (const e of zip.eachEntry()) {
    const { fileDataStart } = await zip.readLocalFileHeaderPromise(e, { minimal: true });
    const chunks: Buffer[] = [];
    for await (const c of await zip.openReadStreamPromise(e)) chunks.push(c as Buffer);
    out.push({ name: e.fileName, method: e.compressionMethod, dataStart: fileDataStart, data: Buffer.concat(chunks) });
  }
  return out;
}
