/**
 * A zip reader that a zip bomb cannot hurt (OOXML and OpenDocument files are zips).
 *
 * The central directory is read first, and nothing is inflated when it declares too many entries,
 * too many bytes in all, or an absurd compression ratio. Then only the entries a reader asks for are
 * inflated, each bounded by the size it declared: an entry that lies (declares 1 KB, inflates to
 * 100 MB) stops after 1 KB and is refused, without the 100 MB ever being allocated.
 *
 * node:zlib rather than fflate: fflate's inflate into a fixed output buffer silently drops what does
 * not fit (typed-array writes out of bounds are ignored) and its unzip allocates the declared size up
 * front, so it can neither bound nor detect a lying entry; `inflateRawSync` with `maxOutputLength`
 * throws as soon as the output passes the bound, and is native. yauzl checks sizes too, but is built
 * around callbacks and streams for archives larger than memory; a fetched body is in memory already.
 */
import { crc32, inflateRawSync } from 'node:zlib';
import { DOCUMENT_LIMITS, DocumentRefusal } from './types.ts';

export type ZipLimits = {
  readonly maxEntries?: number;
  readonly maxTotalBytes?: number;
  readonly maxRatio?: number;
};

export type ZipEntry = {
  readonly name: string;
  readonly method: number;
  readonly flags: number;
  readonly crc: number;
  readonly compressedSize: number;
  readonly size: number;
  readonly localOffset: number;
};

/** An entry this big (declared) must not claim a ratio above maxRatio; small files compress well legitimately. */
const RATIO_FLOOR_BYTES = 1024 * 1024;
/** The fixed parts of the records read: the end of central directory, a central entry, a local header. */
const EOCD_BYTES = 22;
const CENTRAL_BYTES = 46;
const LOCAL_BYTES = 30;
/** A zip's comment, after its end record, is at most this long (its length is 16 bits). */
const MAX_COMMENT_BYTES = 0xffff;
const EOCD = 0x06054b50;
const EOCD64_LOCATOR = 0x07064b50;
const EOCD64 = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;

export class ZipArchive {
  private constructor(
    private readonly body: Buffer,
    /** By name; the first of duplicate names wins. */
    readonly entries: ReadonlyMap<string, ZipEntry>,
  ) {}

  /** Reads the central directory and runs the bomb checks; inflates nothing. */
  static open(data: Uint8Array, limits: ZipLimits = {}): ZipArchive {
    const body = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const maxEntries = limits.maxEntries ?? DOCUMENT_LIMITS.maxZipEntries;
    const maxTotal = limits.maxTotalBytes ?? DOCUMENT_LIMITS.maxZipBytes;
    const maxRatio = limits.maxRatio ?? DOCUMENT_LIMITS.maxZipRatio;
    const dir = centralDirectory(body);
    if (dir.count > maxEntries) throw new DocumentRefusal('zip-bomb', `the zip declares ${dir.count} entries (at most ${maxEntries})`);
    const entries = new Map<string, ZipEntry>();
    let total = 0;
    let at = dir.offset;
    for (let i = 0; i < dir.count; i++) {
      if (at + CENTRAL_BYTES > body.length || body.readUInt32LE(at) !== CENTRAL) throw damaged(`central directory entry ${i} is not where it should be`);
      const nameLength = body.readUInt16LE(at + 28);
      const extraLength = body.readUInt16LE(at + 30);
      const commentLength = body.readUInt16LE(at + 32);
      const end = at + CENTRAL_BYTES + nameLength + extraLength + commentLength;
      if (end > body.length) throw damaged('the central directory runs past the end of the file');
      const name = body.toString('utf8', at + CENTRAL_BYTES, at + CENTRAL_BYTES + nameLength);
      const sizes = zip64Sizes(body, at, at + CENTRAL_BYTES + nameLength, extraLength);
      const entry: ZipEntry = { name, method: body.readUInt16LE(at + 10), flags: body.readUInt16LE(at + 8), crc: body.readUInt32LE(at + 16), ...sizes };
      total += entry.size;
      if (total > maxTotal) throw new DocumentRefusal('zip-bomb', `the zip's entries declare more than ${maxTotal} bytes in all`);
      if (entry.size > RATIO_FLOOR_BYTES && entry.size > maxRatio * Math.max(entry.compressedSize, 1)) {
        throw new DocumentRefusal('zip-bomb', `${name} declares ${entry.size} bytes from ${entry.compressedSize} (more than ${maxRatio}:1)`);
      }
      if (!entries.has(name)) entries.set(name, entry);
      at = end;
    }
    return new ZipArchive(body, entries);
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  /** The entry's bytes, or undefined when there is no such entry. Inflates at most its declared size. */
  read(name: string): Buffer | undefined {
    const e = this.entries.get(name);
    if (!e) return undefined;
    if (e.flags & 1) throw new DocumentRefusal('encrypted', `${name} is encrypted`);
    const at = e.localOffset;
    if (at + LOCAL_BYTES > this.body.length || this.body.readUInt32LE(at) !== LOCAL) throw damaged(`${name}: no local header at its offset`);
    const start = at + LOCAL_BYTES + this.body.readUInt16LE(at + 26) + this.body.readUInt16LE(at + 28);
    if (start + e.compressedSize > this.body.length) throw damaged(`${name} runs past the end of the file`);
    const raw = this.body.subarray(start, start + e.compressedSize);
    let out: Buffer;
    if (e.method === STORED) out = raw;
    else if (e.method === DEFLATED) out = inflateBounded(raw, e);
    else throw new DocumentRefusal('unsupported', `${name} uses compression method ${e.method}`);
    if (out.length !== e.size) throw damaged(`${name} holds ${out.length} bytes, declares ${e.size}`);
    if (crc32(out) !== e.crc) throw damaged(`${name} fails its CRC-32`);
    return out;
  }

  /** The entry as text (XML parts: UTF-8 unless a byte-order mark says UTF-16). */
  text(name: string): string | undefined {
    const bytes = this.read(name);
    return bytes && decodeXmlBytes(bytes);
  }
}

/** XML's own rule for its encoding, for the two encodings Office and OpenDocument write. */
export function decodeXmlBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes);
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes);
  return new TextDecoder('utf-8').decode(bytes); // strips a UTF-8 BOM
}

function inflateBounded(raw: Buffer, e: ZipEntry): Buffer {
  try {
    // One byte of slack, so that an entry longer than it says is told from one exactly as long.
    return inflateRawSync(raw, { maxOutputLength: e.size + 1 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
      throw new DocumentRefusal('zip-bomb', `${e.name} inflates to more than the ${e.size} bytes it declares`);
    }
    throw damaged(`${e.name} does not inflate: ${(err as Error).message}`);
  }
}

/** Where the central directory starts and how many entries it declares (zip64 too). */
function centralDirectory(body: Buffer): { offset: number; count: number } {
  // The end record is the file's last bytes, unless a comment follows it.
  let eocd = -1;
  for (let i = body.length - EOCD_BYTES; i >= 0 && i >= body.length - EOCD_BYTES - MAX_COMMENT_BYTES; i--) {
    if (body.readUInt32LE(i) === EOCD) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw damaged('no end of central directory record (not a zip, or cut short)');
  let count = body.readUInt16LE(eocd + 10);
  let offset = body.readUInt32LE(eocd + 16);
  if ((count === 0xffff || offset === 0xffffffff) && eocd >= 20 && body.readUInt32LE(eocd - 20) === EOCD64_LOCATOR) {
    const rec = safeNumber(body.readBigUInt64LE(eocd - 12));
    if (rec + 56 > body.length || body.readUInt32LE(rec) !== EOCD64) throw damaged('the zip64 end record is not where its locator says');
    count = safeNumber(body.readBigUInt64LE(rec + 32));
    offset = safeNumber(body.readBigUInt64LE(rec + 48));
  }
  if (offset > body.length) throw damaged('the central directory starts past the end of the file');
  return { offset, count };
}

/** The sizes and local offset of a central entry, from its zip64 extra field where they overflow 32 bits. */
function zip64Sizes(body: Buffer, at: number, extra: number, extraLength: number): Pick<ZipEntry, 'size' | 'compressedSize' | 'localOffset'> {
  let size = body.readUInt32LE(at + 24);
  let compressedSize = body.readUInt32LE(at + 20);
  let localOffset = body.readUInt32LE(at + 42);
  if (size !== 0xffffffff && compressedSize !== 0xffffffff && localOffset !== 0xffffffff) return { size, compressedSize, localOffset };
  for (let p = extra; p + 4 <= extra + extraLength; ) {
    const id = body.readUInt16LE(p);
    const len = body.readUInt16LE(p + 2);
    if (id === 0x0001) {
      // Only the overflowing fields are present, in this order.
      let q = p + 4;
      const next = (): number => {
        if (q + 8 > p + 4 + len) throw damaged('a zip64 extra field is too short');
        const v = safeNumber(body.readBigUInt64LE(q));
        q += 8;
        return v;
      };
      if (size === 0xffffffff) size = next();
      if (compressedSize === 0xffffffff) compressedSize = next();
      if (localOffset === 0xffffffff) localOffset = next();
      return { size, compressedSize, localOffset };
    }
    p += 4 + len;
  }
  throw damaged('a zip64 entry without its zip64 extra field');
}

function safeNumber(v: bigint): number {
  // Anything past 2^53 is past any file this reader is given: report it as absurd, not wrapped.
  return v > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(v);
}

function damaged(message: string): DocumentRefusal {
  return new DocumentRefusal('damaged', message);
}
