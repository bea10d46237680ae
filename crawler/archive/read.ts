/**
 * Reading web archives written by any crawler: WARC (0.17 to 1.1, gzipped or not) through warcio,
 * and ARC (the Internet Archive's older format, arc.ts). Yields each capture of a page — a
 * `response` or `resource` record, or a `revisit` resolved to the response it repeats (revisits.ts)
 * — with its URL, capture date, status, headers and decoded body (chunked and gzip transfers
 * undone), streaming, in bounded memory. What cannot be used is told, not thrown: a record that is
 * not a capture is counted by type, one too large is skipped with its reason, and damage (a wrong
 * Content-Length, a gzip member cut short, bytes that are not a record) is told with where it is,
 * after which reading goes on from the next record it can find. The last item says what the file
 * was: its format, its records by type, and whether it was read to its end.
 */
import { readRange } from '../../lib/read-range.ts';
import { closeSync, createReadStream, openSync, readSync, statSync } from 'node:fs';
import { constants, inflateRawSync } from 'node:zlib';
import { WARCParser } from 'warcio';
import { readArc } from './arc.ts';
import type { ArchiveItem, ArchiveSource, Damage } from './items.ts';
import { Originals, readOriginal } from './revisits.ts';

export type { ArchiveItem, ArchiveSource, Capture, Damage, Ended, Progress, Skipped } from './items.ts';

export type ReadOptions = {
  /** Records larger than this are skipped (a capture of a video, a disk image). */
  readonly maxBodyBytes?: number;
  /** The responses seen so far (shared by the files of one import), for revisits. */
  readonly originals?: Originals;
};

const MAX_RECORD_BYTES = 64 * 1024 * 1024;
/** Headers that described the bytes on the wire: the body given is whole and decoded. */
const WIRE = new Set(['transfer-encoding', 'content-encoding', 'content-length']);

export const wholeFile = (path: string): ArchiveSource => ({ path, start: 0, end: statSync(path).size });

/** The captures of an archive, with the records skipped, how far reading has come, and at last how it ended. */
export async function* readArchive(from: string | ArchiveSource, o: ReadOptions = {}): AsyncGenerator<ArchiveItem> {
  const source = typeof from === 'string' ? wholeFile(from) : from;
  const maxBodyBytes = o.maxBodyBytes ?? MAX_RECORD_BYTES;
  const originals = o.originals ?? new Originals();
  const head = peek(source);
  const gz = head[0] === 0x1f && head[1] === 0x8b;
  const text = gz ? gunzipHead(head) : head;
  if (text.subarray(0, 11).toString('latin1') === 'filedesc://') {
    yield* readArc(source, gz, maxBodyBytes);
    return;
  }
  const records: Record<string, number> = {};
  const versions = new Set<string>();
  const damage: Damage[] = [];
  if (!/^WARC\/\d/.test(text.subarray(0, 6).toString('latin1'))) {
    const shown = JSON.stringify(text.subarray(0, 16).toString('latin1'));
    damage.push({ at: 0, reason: source.end === source.start ? 'the file is empty' : `not a WARC or ARC file: it begins ${shown}` });
    yield { kind: 'end', format: 'unknown', compressed: gz, records, damage };
    return;
  }
  let start = source.start;
  while (start < source.end) {
    const stream = createReadStream(source.path, { start, end: source.end - 1 });
    const parser = new WARCParser(stream);
    let lastEnd = start;
    let failedAt: number;
    try {
      for await (const record of parser) {
        const at = start + parser.offset;
        yield { kind: 'progress', bytes: at - source.start };
        const type = record.warcType ?? 'untyped';
        records[type] = (records[type] ?? 0) + 1;
        const version = /^WARC\/(\d+\.\d+)$/.exec(record.warcHeaders.protocol ?? '');
        if (version) versions.add(version[1]!);
        const url = record.warcTargetURI ?? undefined;
        if (type !== 'response' && type !== 'resource' && type !== 'revisit') continue;
        if (!url || !/^https?:\/\//i.test(url)) {
          yield { kind: 'skipped', reason: `a ${type} record without an http(s) WARC-Target-URI`, ...(url ? { url } : {}) };
          continue;
        }
        if (record.warcContentLength > maxBodyBytes) {
          yield { kind: 'skipped', reason: `larger than ${maxBodyBytes} bytes`, url };
          continue;
        }
        const date = Date.parse(record.warcDate ?? '');
        const http = record.httpHeaders;
        let pairs: [string, string][] = http ? [...http.headers] : [['content-type', record.warcContentType ?? '']];
        // A Content-Length that runs past the end of the file swallowed what followed: this record
        // is damage, and reading goes on from the next one that can be found.
        if (!gz && at + record.warcContentLength > source.end)
          throw new Error(`its Content-Length (${record.warcContentLength}) runs past the end of the file`);
        let body: Buffer = Buffer.from(await record.readFully(true));
        if (!gz && at + parser.recordLength > source.end) throw new Error(`its Content-Length (${record.warcContentLength}) runs past the end of the file`);
        lastEnd = at + parser.recordLength;
        let status = type === 'resource' ? 200 : Number(http?.statusCode ?? 0);
        if (type === 'revisit') {
          const place = await originals.find(record);
          const original = place ? await readOriginal(place) : undefined;
          if (!original) {
            yield { kind: 'skipped', reason: 'a revisit of a response that is not in the files imported', url };
            continue;
          }
          // (A 304 revisit has no page of its own: the original's status and headers are the page's.)
          if (!status || status === 304) [status, pairs] = [original.status, original.headers];
          body = original.body;
        } else if (status) originals.remember(record, { path: source.path, offset: at, end: source.end });
        if (!status) {
          yield { kind: 'skipped', reason: `a ${type} record without an HTTP status line`, url };
          continue;
        }
        const headers: Record<string, string> = {};
        for (const [k, v] of pairs) {
          const key = k.toLowerCase();
          if (!WIRE.has(key)) headers[key] = headers[key] ? `${headers[key]}, ${v}` : v;
        }
        const truncated = record.warcHeader('WARC-Truncated');
        yield { kind: 'capture', url, date: Number.isFinite(date) ? date : Date.now(), status, headers, body, truncated: truncated != null };
      }
      // A gzip member cut short or damaged ends the parser quietly: say so when bytes were left
      // unread, and look for a record after them.
      failedAt = Math.max(lastEnd, start + parser.offset);
      if (failedAt >= source.end) break;
      const next = resync(source, failedAt + 1, gz);
      damage.push({
        at: failedAt - source.start,
        reason:
          next === undefined
            ? `the last ${source.end - failedAt} bytes are not a complete record (a file cut short?)`
            : gz
              ? 'a gzip member that does not inflate'
              : 'a record that cannot be read',
      });
      if (next === undefined) break;
      start = next;
      continue;
    } catch (e) {
      failedAt = Math.max(start + parser.offset, lastEnd);
      damage.push({ at: failedAt - source.start, reason: `a malformed record: ${(e as Error).message.split('\n')[0]}` });
    } finally {
      stream.destroy();
    }
    const next = resync(source, failedAt + 1, gz);
    if (next === undefined) break;
    start = next;
  }
  yield { kind: 'end', format: versions.size ? `WARC ${[...versions].sort().join(' and ')}` : 'unknown', compressed: gz, records, damage };
}

/** Where the next record may begin after `from`: the next gzip member, or the next `WARC/` version line. */
function resync(source: ArchiveSource, from: number, gz: boolean): number | undefined {
  const fd = openSync(source.path, 'r');
  try {
    const needle = gz ? Buffer.from([0x1f, 0x8b, 0x08]) : Buffer.from('WARC/');
    const chunk = Buffer.alloc(1 << 20);
    for (let at = from; at < source.end; ) {
      const n = readSync(fd, chunk, 0, Math.min(chunk.length, source.end - at), at);
      if (n <= 0) return undefined;
      const view = chunk.subarray(0, n);
      for (let i = view.indexOf(needle); i >= 0; i = view.indexOf(needle, i + 1)) {
        // (A WARC header line begins a line: after CRLF, or at the very start.)
        if (gz || at + i === source.start || (i >= 1 && view[i - 1] === 0x0a)) return at + i;
      }
      if (n < chunk.length) return undefined;
      at += n - needle.length;
    }
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** The first bytes of the source. */
function peek(source: ArchiveSource): Buffer {
  return readRange(source.path, source.start, Math.min(64 * 1024, source.end - source.start));
}

/**
 * The first bytes of the first gzip member, from the first bytes of the file: its deflate stream
 * inflated alone (a later member may be damaged, and the first may be cut off where peek stopped).
 */
function gunzipHead(head: Buffer): Buffer {
  const flags = head[3] ?? 0;
  let at = 10;
  if (flags & 4) at += 2 + (head.length >= 12 ? head.readUInt16LE(10) : 0);
  for (const bit of [8, 16]) if (flags & bit) while (at < head.length && head[at++] !== 0);
  if (flags & 2) at += 2;
  try {
    return inflateRawSync(head.subarray(at), { finishFlush: constants.Z_SYNC_FLUSH });
  } catch {
    return Buffer.alloc(0);
  }
}
