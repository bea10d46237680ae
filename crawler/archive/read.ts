/**
 * Reading web archives written by any crawler: WARC (0.17 to 1.1, gzipped or not) through warcio,
 * and ARC (the Internet Archive's older format) by its own few lines below. Yields each capture of a
 * page — a `response` (or `resource`) record with its URL, capture date, status, headers and decoded
 * body — streaming, in bounded memory. What cannot be used is told, not thrown: a record that is not
 * a capture, one too large, and a malformed one (a wrong Content-Length, a gzip member cut short),
 * after which reading goes on from the next record it can find.
 */
import { createReadStream, openSync, readSync, closeSync, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { WARCParser } from 'warcio';

export type Capture = {
  readonly kind: 'capture';
  readonly url: string;
  readonly date: number;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
  readonly truncated: boolean;
};
export type Skipped = { readonly kind: 'skipped'; readonly reason: string; readonly url?: string };
export type Progress = { readonly kind: 'progress'; readonly bytes: number };

/** Records larger than this are skipped (a capture of a video, a disk image). */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/** The captures of an archive file, with the records skipped and how far reading has come. */
export async function* readArchive(path: string, maxBodyBytes = MAX_RECORD_BYTES): AsyncGenerator<Capture | Skipped | Progress> {
  const size = statSync(path).size;
  const gz = startsWith(path, 0, [0x1f, 0x8b]);
  if (isArc(path, gz)) {
    yield* readArc(path, gz, maxBodyBytes);
    return;
  }
  let start = 0;
  while (start < size) {
    const parser = new WARCParser(createReadStream(path, { start }));
    let failedAt: number | undefined;
    let lastEnd = start;
    try {
      for await (const record of parser) {
        const at = start + parser.offset;
        yield { kind: 'progress', bytes: at };
        const type = record.warcType;
        const url = record.warcTargetURI ?? undefined;
        if (type !== 'response' && type !== 'resource') continue;
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
        const headers: Record<string, string> = {};
        if (http) for (const [k, v] of http.headers) headers[k.toLowerCase()] = headers[k.toLowerCase()] ? `${headers[k.toLowerCase()]}, ${v}` : v;
        else headers['content-type'] = record.warcContentType ?? '';
        const body = Buffer.from(await record.readFully(true));
        // A Content-Length that runs past the end of the file swallowed what followed: skip this
        // record and read on from the next one that can be found.
        if (!gz && at + parser.recordLength > size) throw new Error(`its Content-Length (${record.warcContentLength}) runs past the end of the file`);
        lastEnd = at + parser.recordLength;
        const status = type === 'resource' ? 200 : Number(http?.statusCode ?? 0);
        if (!status) {
          yield { kind: 'skipped', reason: 'a response record without an HTTP status line', url };
          continue;
        }
        yield {
          kind: 'capture',
          url,
          date: Number.isFinite(date) ? date : Date.now(),
          status,
          headers,
          body,
          truncated: record.warcHeader('WARC-Truncated') !== undefined && record.warcHeader('WARC-Truncated') !== null,
        };
      }
      // A gzip member cut short ends the parser quietly: say so when bytes were left unread.
      const left = size - Math.max(lastEnd, start + parser.offset);
      if (gz && left > 0) yield { kind: 'skipped', reason: `the last ${left} bytes are not a complete record (a file cut short?)` };
      return;
    } catch (e) {
      failedAt = start + parser.offset;
      yield { kind: 'skipped', reason: `a malformed record at byte ${failedAt}: ${(e as Error).message.split('\n')[0]}` };
    }
    const next = resync(path, failedAt + 1, gz);
    if (next === undefined) return;
    start = next;
  }
}

/** Where the next record may begin after `from`: the next gzip member, or the next `WARC/` version line. */
function resync(path: string, from: number, gz: boolean): number | undefined {
  const fd = openSync(path, 'r');
  try {
    const needle = gz ? Buffer.from([0x1f, 0x8b, 0x08]) : Buffer.from('WARC/');
    const chunk = Buffer.alloc(1 << 20);
    for (let at = from; ; ) {
      const n = readSync(fd, chunk, 0, chunk.length, at);
      if (n <= 0) return undefined;
      for (let i = chunk.subarray(0, n).indexOf(needle); i >= 0; i = chunk.subarray(0, n).indexOf(needle, i + 1)) {
        // (A WARC header line begins a line: after CRLF, or at the very start.)
        if (gz || at + i === 0 || (i >= 1 && chunk[i - 1] === 0x0a)) return at + i;
      }
      if (n < chunk.length) return undefined;
      at += n - needle.length;
    }
  } finally {
    closeSync(fd);
  }
}

function startsWith(path: string, at: number, bytes: number[]): boolean {
  const fd = openSync(path, 'r');
  try {
    const b = Buffer.alloc(bytes.length);
    return readSync(fd, b, 0, b.length, at) === b.length && bytes.every((x, i) => b[i] === x);
  } finally {
    closeSync(fd);
  }
}

/** An ARC file begins with a `filedesc://` record. */
function isArc(path: string, gz: boolean): boolean {
  if (!gz) return startsWith(path, 0, [...Buffer.from('filedesc://')]);
  return /\.arc\.gz$/i.test(path);
}

/**
 * ARC 1.0: a header line per record — `URL IP-address archive-date content-type length` — then
 * `length` bytes (for http URLs the response, headers and all), then a newline. The first record
 * (`filedesc://`) describes the file.
 */
async function* readArc(path: string, gz: boolean, maxBodyBytes: number): AsyncGenerator<Capture | Skipped | Progress> {
  const stream = createReadStream(path);
  const source = gz ? stream.pipe(createGunzip()) : stream;
  let buffer: Buffer = Buffer.alloc(0);
  let read = 0;
  for await (const chunk of source as AsyncIterable<Buffer>) {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    read += chunk.length;
    for (;;) {
      while (buffer.length && (buffer[0] === 0x0a || buffer[0] === 0x0d)) buffer = buffer.subarray(1);
      const eol = buffer.indexOf(0x0a);
      if (eol < 0) break;
      const fields = buffer.subarray(0, eol).toString('latin1').trim().split(' ');
      const length = Number(fields.at(-1));
      if (fields.length < 5 || !Number.isSafeInteger(length) || length < 0) {
        yield { kind: 'skipped', reason: `a malformed ARC header line: ${fields.join(' ').slice(0, 80)}` };
        return;
      }
      if (buffer.length < eol + 1 + length) break;
      const block = buffer.subarray(eol + 1, eol + 1 + length);
      buffer = buffer.subarray(eol + 1 + length);
      yield { kind: 'progress', bytes: read };
      const [url, , date] = fields as [string, string, string];
      if (!/^https?:\/\//i.test(url)) continue;
      if (length > maxBodyBytes) {
        yield { kind: 'skipped', reason: `larger than ${maxBodyBytes} bytes`, url };
        continue;
      }
      const parsed = httpResponse(block);
      if (!parsed) {
        yield { kind: 'skipped', reason: 'an ARC record that is not an HTTP response', url };
        continue;
      }
      const d = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/.exec(date);
      yield { kind: 'capture', url, date: d ? Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!) : Date.now(), ...parsed, truncated: false };
    }
  }
}

/** An HTTP response as bytes → status, headers (lower-case), body. */
function httpResponse(block: Buffer): { status: number; headers: Record<string, string>; body: Buffer } | undefined {
  const end = block.indexOf('\r\n\r\n');
  const head = end < 0 ? undefined : block.subarray(0, end).toString('latin1').split('\r\n');
  const status = head ? /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(head[0]!) : null;
  if (!head || !status) return undefined;
  const headers: Record<string, string> = {};
  for (const line of head.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(status[1]), headers, body: block.subarray(end + 4) };
}
