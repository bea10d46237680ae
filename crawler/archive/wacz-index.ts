/**
 * The parts of a WACZ read as lines (crawler/archive/wacz.ts opens the zip): its CDXJ index —
 * `<surt> <timestamp> {json}` per capture, or the older 11-field CDX — and its page lists
 * (pages/*.jsonl). Each is a stream of lines of bounded length, read in bounded memory: what is
 * kept is a small record per payload digest and a title per page, each within its limit, and what
 * is wrong is counted, never thrown.
 */
import { basename } from 'node:path';
import { pipeline, type Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

/** Lines longer than this are skipped without being held (a page list has no reason for them). */
export const MAX_LINE_BYTES = 1 << 20;
/** URLs longer than this are left out: no browser sends them, and each one is kept in memory. */
const MAX_URL_CHARS = 8192;
/** Titles are cut to this: a title is for showing, and a hostile one is otherwise a line long. */
const MAX_TITLE_CHARS = 1000;

/** Problems counted by reason, each with its first example. */
export class Problems {
  private readonly byReason = new Map<string, { count: number; example?: string }>();
  add(reason: string, example?: string): void {
    const seen = this.byReason.get(reason);
    if (seen) seen.count++;
    else this.byReason.set(reason, example === undefined ? { count: 1 } : { count: 1, example: example.slice(0, 200) });
  }
  list(): { reason: string; count: number; example?: string }[] {
    return [...this.byReason].map(([reason, p]) => ({ reason, ...p }));
  }
}

/**
 * The lines of a byte stream, without their CR LF; a line longer than `maxLine` bytes is yielded as
 * `undefined`, its bytes dropped as they come.
 */
export async function* lines(source: AsyncIterable<Buffer>, maxLine = MAX_LINE_BYTES): AsyncGenerator<string | undefined> {
  let parts: Buffer[] = [];
  let held = 0;
  let overlong = false;
  const finish = (tail: Buffer): string | undefined => {
    const line = overlong ? undefined : Buffer.concat([...parts, tail]).toString('utf8');
    parts = [];
    held = 0;
    overlong = false;
    return line?.endsWith('\r') ? line.slice(0, -1) : line;
  };
  for await (const chunk of source) {
    let from = 0;
    for (let eol = chunk.indexOf(0x0a); eol >= 0; eol = chunk.indexOf(0x0a, from)) {
      if (held + eol - from > maxLine) overlong = true;
      yield finish(chunk.subarray(from, eol));
      from = eol + 1;
    }
    if (from < chunk.length && !overlong) {
      held += chunk.length - from;
      if (held > maxLine) {
        overlong = true;
        parts = [];
      } else parts.push(chunk.subarray(from));
    }
  }
  if (held > 0 || overlong) yield finish(Buffer.alloc(0));
}

/** Stops a stream after `max` bytes, telling `cut` so (a gzip member that expands without end). */
export async function* capped(source: AsyncIterable<Buffer>, max: number, cut: () => void): AsyncGenerator<Buffer> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.length;
    if (total > max) {
      cut();
      return;
    }
    yield chunk;
  }
}

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

/**
 * A digest in one spelling whatever the writer chose: `sha1:BASE32` in WARC headers, the bare value
 * in warcio's CDXJ, hex in others — all become the algorithm and the bytes in base64. Unknown
 * spellings are kept as they are.
 */
export function digestKey(digest: string): string {
  const colon = digest.indexOf(':');
  let algo = colon >= 0 ? digest.slice(0, colon).toLowerCase().replace('-', '') : '';
  const value = (colon >= 0 ? digest.slice(colon + 1) : digest).trim().replace(/=+$/, '');
  let bytes: Buffer | undefined;
  if (/^[0-9a-f]+$/i.test(value) && (value.length === 40 || value.length === 64)) bytes = Buffer.from(value, 'hex');
  else if (/^[A-Z2-7]+$/i.test(value) && (value.length === 32 || value.length === 52)) {
    bytes = Buffer.alloc(Math.floor((value.length * 5) / 8));
    let bits = 0;
    let acc = 0;
    let at = 0;
    for (const c of value.toUpperCase()) {
      acc = ((acc << 5) | BASE32.indexOf(c)) & 0xffff;
      bits += 5;
      if (bits >= 8) {
        bits -= 8;
        bytes[at++] = (acc >> bits) & 0xff;
      }
    }
  }
  if (!bytes) return `${algo}:${value}`;
  if (!algo) algo = bytes.length === 20 ? 'sha1' : 'sha256';
  return `${algo}:${bytes.toString('base64')}`;
}

/** A capture as the index gives it, before its WARC is checked. */
export type IndexLine = { url: string; mime: string; digest?: string; offset: number; length: number; filename: string };

/**
 * One index line → its capture, `null` for a line that is no capture (blank, a CDX header, a
 * `!meta` line), or a string: why it is malformed.
 */
export function parseIndexLine(line: string): IndexLine | null | string {
  if (!line.trim() || line.startsWith(' CDX') || line.startsWith('CDX ') || line.startsWith('!')) return null;
  const first = line.indexOf(' ');
  const second = first < 0 ? -1 : line.indexOf(' ', first + 1);
  if (second < 0) return 'a malformed index line (not `<surt> <timestamp> {json}`)';
  if (!/^\d{4,17}$/.test(line.slice(first + 1, second))) return 'a malformed index line (its timestamp is not digits)';
  const rest = line.slice(second + 1).trim();
  let fields: Record<string, unknown>;
  if (rest.startsWith('{')) {
    try {
      const json: unknown = JSON.parse(rest);
      if (!json || typeof json !== 'object' || Array.isArray(json)) return 'a malformed index line (its JSON is not an object)';
      fields = json as Record<string, unknown>;
    } catch {
      return 'a malformed index line (its JSON does not parse)';
    }
  } else {
    // The 11-field CDX (`CDX N b a m s k r M S V g`): URL, MIME type, status, digest, redirect, meta tags, length, offset, file.
    const f = rest.split(/ +/);
    if (f.length !== 9) return 'a malformed index line (neither CDXJ nor 11-field CDX)';
    fields = { url: f[0], mime: f[1], digest: f[3], length: f[6], offset: f[7], filename: f[8] };
  }
  const { url, mime, digest, filename } = fields;
  const offset = integer(fields.offset);
  const length = integer(fields.length);
  if (typeof url !== 'string' || !url) return 'a malformed index line (no url)';
  if (url.length > MAX_URL_CHARS) return `an index line with a URL longer than ${MAX_URL_CHARS} characters`;
  if (typeof filename !== 'string' || !filename) return 'a malformed index line (no filename)';
  if (offset === undefined || length === undefined || length === 0) return 'a malformed index line (no offset and length)';
  return {
    url,
    mime: typeof mime === 'string' ? mime : '',
    ...(typeof digest === 'string' && digest && digest !== '-' ? { digest } : {}),
    offset,
    length,
    filename,
  };
}

/** A count as CDXJ writers give it: a number, or (pywb, warcio) its digits in a string. */
function integer(v: unknown): number | undefined {
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

/**
 * The titles of one pages/*.jsonl into `titles` (a URL seen before keeps its first title): its
 * header line recognized, every other line a page. Stops at `maxTitles`.
 */
export async function readPages(
  name: string,
  source: AsyncIterable<string | undefined>,
  titles: Map<string, string>,
  maxTitles: number,
  problems: Problems,
): Promise<void> {
  let first = true;
  let n = 0;
  for await (const line of source) {
    n++;
    if (line === undefined) {
      problems.add(`a line longer than ${MAX_LINE_BYTES} bytes in a page list`, `${name} line ${n}`);
      first = false;
      continue;
    }
    if (!line.trim()) continue;
    let page: unknown;
    try {
      page = JSON.parse(line);
    } catch {
      page = undefined;
    }
    if (!page || typeof page !== 'object' || Array.isArray(page)) {
      problems.add('a malformed line in a page list (not a JSON object)', `${name} line ${n}`);
      first = false;
      continue;
    }
    const { format, url, title } = page as Record<string, unknown>;
    if (first) {
      first = false;
      if (typeof format === 'string' && url === undefined) {
        if (format !== 'json-pages-1.0') problems.add('a page list of an unknown format', `${name}: ${format}`);
        continue;
      }
      problems.add('a page list without its json-pages-1.0 header line', name);
    }
    if (typeof url !== 'string' || !url) {
      problems.add('a page without a url in a page list', `${name} line ${n}`);
      continue;
    }
    if (typeof title !== 'string' || !title.trim() || titles.has(url)) continue;
    if (url.length > MAX_URL_CHARS) {
      problems.add(`a page with a URL longer than ${MAX_URL_CHARS} characters`, `${name} line ${n}`);
      continue;
    }
    if (titles.size >= maxTitles) {
      problems.add(`more than ${maxTitles} page titles: the rest left out`, url);
      return;
    }
    titles.set(url, title.trim().slice(0, MAX_TITLE_CHARS));
  }
}

/** A capture by payload digest, kept small: there may be millions (the WARC by its place in the list). */
export type Compact = { readonly w: number; readonly o: number; readonly l: number; readonly u: string };
/** An index file of the package: its name, its size in the zip, and its bytes as they are there. */
export type IndexFile = { readonly name: string; readonly size: number; open(): Promise<Readable> };

/**
 * The CDXJ files under indexes/ (gzipped ones as a stream of gzip members, as zipnum's
 * index.cdx.gz is), each line checked against the package's WARCs; a capture per payload digest.
 */
export async function readIndexes(
  files: readonly IndexFile[],
  warcs: readonly { readonly name: string; readonly size: number }[],
  limits: { readonly maxIndexLines: number; readonly maxRatio: number },
  problems: Problems,
): Promise<{ lines: number; byDigest: Map<string, Compact> }> {
  const warcByFile = new Map<string, number>();
  for (const [i, w] of warcs.entries()) {
    warcByFile.set(w.name, i);
    if (!warcByFile.has(basename(w.name))) warcByFile.set(basename(w.name), i);
  }
  const byDigest = new Map<string, Compact>();
  let valid = 0;
  let read = 0;
  for (const file of files) {
    try {
      const raw = await file.open();
      // (A gzip inside the zip is held to the same ratio as the zip's own entries.)
      const bytes = file.name.toLowerCase().endsWith('.gz')
        ? capped(
            pipeline(raw, createGunzip(), () => {}),
            Math.max(1 << 20, file.size * limits.maxRatio),
            () => problems.add(`an index expanding more than ${limits.maxRatio} times (a gzip bomb?): read no further`, file.name),
          )
        : raw;
      for await (const line of lines(bytes)) {
        if (line === undefined) {
          problems.add(`an index line longer than ${MAX_LINE_BYTES} bytes`, file.name);
          continue;
        }
        const c = parseIndexLine(line);
        if (c === null) continue;
        if (++read > limits.maxIndexLines) {
          problems.add(`more than ${limits.maxIndexLines} index lines: the rest not read`, file.name);
          return { lines: valid, byDigest };
        }
        if (typeof c === 'string') {
          problems.add(c, line);
          continue;
        }
        const w = warcByFile.get(c.filename) ?? warcByFile.get(`archive/${c.filename}`);
        if (w === undefined) {
          problems.add("an index line naming a file that is not among the package's WARCs", c.url);
          continue;
        }
        if (c.offset + c.length > warcs[w]!.size) {
          problems.add('an index line pointing past the end of its WARC', c.url);
          continue;
        }
        valid++;
        if (c.digest && c.mime !== 'warc/revisit') {
          const key = digestKey(c.digest);
          if (!byDigest.has(key)) byDigest.set(key, { w, o: c.offset, l: c.length, u: c.url });
        }
      }
    } catch (e) {
      problems.add('an index that could not be read to its end', `${file.name}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return { lines: valid, byDigest };
}
