/**
 * WACZ out (Webrecorder's package of web archives, WACZ 1.1.1): WARC files zipped with what a
 * player such as ReplayWeb.page needs to open them from a static file by HTTP ranges — a CDXJ index
 * of the captures (`indexes/index.cdx`), the list of pages (`pages/pages.jsonl`) and the manifest
 * (`datapackage.json`, every other entry with its SHA-256 and size, and `datapackage-digest.json`,
 * the manifest's own hash).
 *
 * The WARC files are STORED, not deflated (they are gzipped already, and the spec wants them so): a
 * record's bytes in the zip are the WARC file's, from the entry's data offset — the CDXJ offsets are
 * the WARC file's own. Memory is bounded but for the CDXJ lines, held to be sorted (a line of some
 * 250 bytes per capture: about 12 MB for a 1 GB WARC of 50,000 captures); the WARC files are read
 * twice (once to index them, once into the zip) and hashed as they are zipped, the pages streamed.
 */
import { createHash } from 'node:crypto';
import { closeSync, createReadStream, createWriteStream, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { getSurt, WARCParser, type WARCRecord } from 'warcio';
import { ZipFile } from 'yazl';

export type WaczPage = {
  readonly url: string;
  /** The capture's date: ISO 8601 (RFC 3339). */
  readonly ts: string;
  readonly title?: string;
};

export type WaczInput = {
  /** The WARC files, each as `archive/<name>` (a name ending in .warc.gz, or .warc). */
  readonly warcs: readonly { readonly name: string; readonly path: string }[];
  /** The entry points of the collection; the first is its main page. */
  readonly pages: Iterable<WaczPage> | AsyncIterable<WaczPage>;
  readonly title: string;
  /** What made it, e.g. `Trawl 0.1.0`. */
  readonly software: string;
  /** Markdown (plain text is). */
  readonly description?: string;
};

export type WaczSummary = {
  /** Captures indexed (response, resource and revisit records). */
  readonly records: number;
  readonly pages: number;
  /** The size of the .wacz. */
  readonly bytes: number;
};

export const WACZ_VERSION = '1.1.1';
const CDX_PATH = 'indexes/index.cdx';
const PAGES_PATH = 'pages/pages.jsonl';
const PART = '.part';

/**
 * Writes a WACZ of `o.warcs` to `out`: a file path (written as `<path>.part`, made durable, then
 * renamed: no half-written .wacz ever bears the name) or a stream (not ended: stdout stays open).
 */
export async function writeWacz(out: string | Writable, o: WaczInput): Promise<WaczSummary> {
  if (!o.warcs.length) throw new Error('a WACZ holds one WARC file at least');
  const lines: string[] = [];
  for (const w of o.warcs) {
    if (!/^[^/\\]+\.warc(\.gz)?$/.test(w.name)) throw new Error(`${w.name}: a WARC file's name in a WACZ ends in .warc.gz or .warc, with no folder`);
    await indexWarc(w, lines);
  }
  // (As `LC_ALL=C sort` orders a CDX file: the SURT key, then the timestamp; what a binary search expects.)
  lines.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

  const zip = new ZipFile();
  let fail!: (e: Error) => void;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  failed.catch(() => undefined);
  zip.on('error', fail);
  /** `source` piped into `through`, a failure of either failing the whole (yazl does not watch a stream it is given lazily). */
  const into = (source: Readable, through: Transform) => {
    source.on('error', fail);
    through.on('error', fail);
    return source.pipe(through);
  };
  const hashed: Promise<Resource>[] = [];
  for (const w of o.warcs) {
    const entry = `archive/${w.name}`;
    const { stream, done } = hashing(entry);
    hashed.push(done);
    const size = statSync(w.path).size;
    // Opened when the zip comes to it: a crawl's hundred WARC files are not all open at once.
    zip.addReadStreamLazy(entry, { compress: false, size }, (cb) => cb(null, into(createReadStream(w.path), stream)));
  }
  const index = Buffer.from(lines.join(''));
  hashed.push(Promise.resolve(resource(CDX_PATH, index)));
  zip.addBuffer(index, CDX_PATH);
  const pages = { count: 0, first: undefined as WaczPage | undefined };
  const { stream: pagesStream, done: pagesDone } = hashing(PAGES_PATH);
  hashed.push(pagesDone);
  zip.addReadStreamLazy(PAGES_PATH, (cb) => cb(null, into(Readable.from(pageLines(o.pages, pages), { objectMode: false }), pagesStream)));

  const { target, finish } = destination(out);
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      bytes += chunk.length;
      cb(null, chunk);
    },
  });
  const written = pipeline(zip.outputStream, counted, target, { end: typeof out === 'string' });
  // (A destination that fails — a closed pipe — fails the whole, or the zip would wait for it forever.)
  written.catch(fail);
  try {
    // The manifest last: it holds every other entry's hash, known once the entry has been zipped.
    const resources = await Promise.race([Promise.all(hashed), failed]);
    const main = pages.first;
    const now = new Date().toISOString();
    const manifest = Buffer.from(
      `${JSON.stringify(
        {
          profile: 'data-package',
          wacz_version: WACZ_VERSION,
          title: o.title,
          ...(o.description ? { description: o.description } : {}),
          created: now,
          modified: now,
          software: o.software,
          ...(main ? { mainPageUrl: main.url, mainPageDate: main.ts } : {}),
          resources,
        },
        null,
        2,
      )}\n`,
    );
    zip.addBuffer(manifest, 'datapackage.json');
    zip.addBuffer(
      Buffer.from(`${JSON.stringify({ path: 'datapackage.json', hash: resource('datapackage.json', manifest).hash }, null, 2)}\n`),
      'datapackage-digest.json',
    );
    zip.end();
    await Promise.race([written, failed]);
    finish();
  } catch (e) {
    zip.outputStream.unpipe();
    counted.destroy();
    if (typeof out === 'string') {
      target.destroy();
      rmSync(out + PART, { force: true });
    }
    throw e;
  }
  return { records: lines.length, pages: pages.count, bytes };
}

type Resource = { name: string; path: string; hash: string; bytes: number };

/** A data package resource's name: lower case, `-._/` and alphanumerics (the Frictionless pattern). */
const resourceName = (path: string) =>
  basename(path)
    .toLowerCase()
    .replace(/[^-a-z0-9._/]/g, '-');

const resource = (path: string, bytes: Buffer): Resource => ({
  name: resourceName(path),
  path,
  hash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
  bytes: bytes.length,
});

/** A pass-through that hashes and counts what the zip reads of an entry. */
function hashing(path: string): { stream: Transform; done: Promise<Resource> } {
  const h = createHash('sha256');
  let bytes = 0;
  let resolve!: (r: Resource) => void;
  const done = new Promise<Resource>((r) => (resolve = r));
  const stream = new Transform({
    transform(chunk: Buffer, _enc, cb) {
      h.update(chunk);
      bytes += chunk.length;
      cb(null, chunk);
    },
    flush(cb) {
      resolve({ name: resourceName(path), path, hash: `sha256:${h.digest('hex')}`, bytes });
      cb();
    },
  });
  return { stream, done };
}

function destination(out: string | Writable): { target: Writable; finish: () => void } {
  if (typeof out !== 'string') return { target: out, finish: () => undefined };
  const part = out + PART;
  return {
    target: createWriteStream(part),
    finish: () => {
      const fd = openSync(part, 'r');
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      renameSync(part, out);
    },
  };
}

/** pages.jsonl: its header line, then a line a page. */
async function* pageLines(pages: WaczInput['pages'], seen: { count: number; first: WaczPage | undefined }): AsyncGenerator<Buffer> {
  yield Buffer.from(`${JSON.stringify({ format: 'json-pages-1.0', id: 'pages', title: 'All Pages' })}\n`);
  for await (const p of pages) {
    const time = Date.parse(p.ts);
    if (!Number.isFinite(time)) throw new Error(`${p.url}: its capture date ${p.ts} is not a date`);
    const ts = new Date(time).toISOString();
    seen.first ??= { ...p, ts };
    seen.count++;
    const id = createHash('sha256').update(`${ts} ${p.url}`).digest('hex').slice(0, 16);
    yield Buffer.from(`${JSON.stringify({ id, url: p.url, ts, ...(p.title ? { title: p.title } : {}) })}\n`);
  }
}

/** The CDXJ lines of one WARC file's captures, each with the record's offset and length in the file. */
async function indexWarc(w: { name: string; path: string }, lines: string[]): Promise<void> {
  const parser = new WARCParser(createReadStream(w.path));
  try {
    for await (const record of parser) {
      await record.skipFully();
      const line = cdxLine(record, parser.offset, parser.recordLength, w.name);
      if (line) lines.push(line);
    }
  } catch (e) {
    throw new Error(`${w.path}: not a WARC file warcio can read, at byte ${parser.offset}: ${(e as Error).message}`);
  }
}

/** `<SURT> <14-digit timestamp> {json}` for a capture; null for a record that is not one. */
function cdxLine(record: WARCRecord, offset: number, length: number, filename: string): string | null {
  const type = record.warcType;
  const url = record.warcTargetURI;
  if ((type !== 'response' && type !== 'resource' && type !== 'revisit') || !url) return null;
  const timestamp = (record.warcDate ?? '').replace(/\D/g, '').slice(0, 14).padEnd(14, '0');
  const http = record.httpHeaders;
  const mime =
    type === 'revisit' ? 'warc/revisit' : ((type === 'response' ? http?.headers.get('content-type') : record.warcContentType) ?? '').split(';')[0]!.trim();
  const status = type === 'resource' ? '200' : String(http?.statusCode ?? '');
  const digest = record.warcPayloadDigest;
  const fields = { url, mime, status, ...(digest ? { digest } : {}), length: String(length), offset: String(offset), filename };
  return `${getSurt(url)} ${timestamp} ${JSON.stringify(fields)}\n`;
}
