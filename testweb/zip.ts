/** Zip files for the document tests (documents.ts, odf-documents.ts), written by hand so that an entry can lie about its size. */
import { crc32, deflateRawSync, constants as zlib } from 'node:zlib';

/** The declaration every XML part of these zips starts with. */
export const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';

export type ZipInput = {
  readonly name: string;
  readonly data: string | Uint8Array;
  /** Stored, not deflated (ODF's `mimetype` must be). */
  readonly store?: boolean;
  /** Declared uncompressed size, when it should lie (default: the real size). */
  readonly declaredSize?: number;
  /** Already deflated bytes (with their true size in declaredSize); data is then ignored. */
  readonly deflated?: Uint8Array;
};

export function zipFile(inputs: readonly ZipInput[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const input of inputs) {
    const data = typeof input.data === 'string' ? Buffer.from(input.data, 'utf8') : Buffer.from(input.data);
    const body = input.deflated ? Buffer.from(input.deflated) : input.store ? data : deflateRawSync(data);
    const crc = input.deflated ? 0 : crc32(data);
    const size = input.declaredSize ?? data.length;
    const name = Buffer.from(input.name, 'utf8');
    const method = input.store ? 0 : 8;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(body.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(0x0800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(body.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, body);
    centrals.push(central, name);
    offset += 30 + name.length + body.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(inputs.length, 8);
  end.writeUInt16LE(inputs.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Raw deflate of `mib` MiB of zeros, made by repeating one compressed MiB (about 1 KB each). */
export function deflatedZeros(mib: number): Buffer {
  const block = deflateRawSync(Buffer.alloc(1024 * 1024), { level: 9, finishFlush: zlib.Z_SYNC_FLUSH });
  // Each copy is a run of non-final blocks ending byte-aligned; every back-reference points at
  // zeros. A final empty block closes the stream.
  return Buffer.concat([...Array.from({ length: mib }, () => block), Buffer.from([0x03, 0x00])]);
}

// ---------------------------------------------------------------------------------------------
// Office Open XML
