/**
 * ARC 1.0, the Internet Archive's format before WARC: a header line per record — `URL IP-address
 * archive-date content-type length` — then `length` bytes (for http URLs the response, headers and
 * all), then a newline. The first record (`filedesc://`) describes the file. Read whole-file or
 * per-record gzipped (ARC.gz), streaming.
 */
import { createReadStream } from 'node:fs';
import { createGunzip } from 'node:zlib';
import type { ArchiveItem, ArchiveSource } from './items.ts';

export async function* readArc(source: ArchiveSource, gz: boolean, maxBodyBytes: number): AsyncGenerator<ArchiveItem> {
  const stream = createReadStream(source.path, { start: source.start, end: source.end - 1 });
  const unzip = gz ? createGunzip() : undefined;
  const input = unzip ? stream.pipe(unzip) : stream;
  let buffer: Buffer = Buffer.alloc(0);
  let read = 0;
  let records = 0;
  /** Bytes still to pass over: the rest of a record too large to keep. */
  let discard = 0;
  const damage: { at: number; reason: string }[] = [];
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
      read += chunk.length;
      if (discard) {
        const n = Math.min(discard, buffer.length);
        discard -= n;
        buffer = buffer.subarray(n);
      }
      for (;;) {
        while (buffer.length && (buffer[0] === 0x0a || buffer[0] === 0x0d)) buffer = buffer.subarray(1);
        const eol = buffer.indexOf(0x0a);
        if (eol < 0) {
          // (A header line is short: a megabyte without a newline is not ARC.)
          if (buffer.length > 1 << 20) throw new Error('a megabyte without a line break where an ARC header line should be');
          break;
        }
        const fields = buffer.subarray(0, eol).toString('latin1').trim().split(' ');
        const length = Number(fields.at(-1));
        if (fields.length < 5 || !Number.isSafeInteger(length) || length < 0) {
          throw new Error(`a malformed ARC header line: ${fields.join(' ').slice(0, 80)}`);
        }
        if (length > maxBodyBytes) {
          records++;
          yield { kind: 'skipped', reason: `larger than ${maxBodyBytes} bytes`, url: fields[0]! };
          const here = Math.min(buffer.length, eol + 1 + length);
          discard = eol + 1 + length - here;
          buffer = buffer.subarray(here);
          if (discard) break;
          continue;
        }
        if (buffer.length < eol + 1 + length) break;
        const block = buffer.subarray(eol + 1, eol + 1 + length);
        buffer = buffer.subarray(eol + 1 + length);
        records++;
        yield { kind: 'progress', bytes: gz ? stream.bytesRead : read };
        const [url, , date] = fields as [string, string, string];
        if (!/^https?:\/\//i.test(url)) continue;
        const parsed = httpResponse(block);
        if (!parsed) {
          yield { kind: 'skipped', reason: 'an ARC record that is not an HTTP response', url };
          continue;
        }
        const d = /^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)/.exec(date);
        yield { kind: 'capture', url, date: d ? Date.UTC(+d[1]!, +d[2]! - 1, +d[3]!, +d[4]!, +d[5]!, +d[6]!) : Date.now(), ...parsed, truncated: false };
      }
    }
    if (buffer.length || discard) damage.push({ at: gz ? stream.bytesRead : read - buffer.length, reason: 'the last record is cut short' });
  } catch (e) {
    damage.push({ at: gz ? stream.bytesRead : read - buffer.length, reason: (e as Error).message.split('\n')[0]! });
  } finally {
    stream.destroy();
  }
  yield { kind: 'end', format: 'ARC', compressed: gz, records: { arc: records }, damage };
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
