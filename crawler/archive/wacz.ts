/**
 * Opening a WACZ (Webrecorder's package of web archives, spec 1.1.1): a zip holding WARCs under
 * archive/, a CDXJ index under indexes/, page lists under pages/ and datapackage.json, which lists
 * every file with its size and hash. A WACZ comes from anyone, so it is checked before anything is
 * used: a zip that is not a WACZ, a datapackage.json that lies, and the shapes of a zip bomb (an
 * entry expanding too many times, entries sharing bytes, an entry claiming more bytes than the file
 * has) are refused with the reason; smaller faults are counted as problems. Nothing is held whole in
 * memory but datapackage.json: a stored WARC is read in place in the .wacz, a deflated one is
 * extracted to a temporary file when first asked for.
 */
import { readRange } from '../../lib/read-range.ts';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { checkDatapackage } from './wacz-datapackage.ts';
import { digestKey, lines, Problems, readIndexes, readPages } from './wacz-index.ts';

/** The file is not a WACZ, or one refused: the message is the reason, and names the file. */
export class WaczError extends Error {
  override name = 'WaczError';
}

/** True when the file begins as a zip does (PK\x03\x04, or PK\x05\x06 for an empty zip). */
export function isZip(path: string): boolean {
  const b = readRange(path, 0, 4);
  if (b.length < 4 || b[0] !== 0x50 || b[1] !== 0x4b) return false;
  return (b[2] === 3 && b[3] === 4) || (b[2] === 5 && b[3] === 6);
}

export type WaczLimits = {
  /** datapackage.json and any entry read whole into memory. */
  maxMetadataBytes: number;
  /** Deflated entries larger than 1 MiB expanding more than this many times are a zip bomb. */
  maxRatio: number;
  maxTitles: number;
  maxIndexLines: number;
};
export type WaczWarc = {
  /** The entry's path, e.g. 'archive/data.warc.gz'. */
  readonly name: string;
  /** Its bytes, uncompressed. */
  readonly size: number;
  /** Deflated in the zip (the spec wants stored). */
  readonly compressed: boolean;
  /**
   * Where its bytes are: the .wacz itself at [start, end) for a stored entry; a deflated one is
   * extracted at first call into a temp file (removed by close()).
   */
  locate(): Promise<{ path: string; start: number; end: number }>;
};
export type WaczProblem = { readonly reason: string; readonly count: number; readonly example?: string };
export type WaczPackage = {
  readonly path: string;
  /** datapackage.json's wacz_version. */
  readonly version: string | undefined;
  /** In the zip's order. */
  readonly warcs: readonly WaczWarc[];
  /** Page URL → title, from pages/*.jsonl (entries without a title left out). */
  readonly titles: ReadonlyMap<string, string>;
  /** CDXJ lines read (valid ones). */
  readonly indexLines: number;
  /** A capture listed in the CDXJ with this payload digest (a non-revisit line), for resolving revisit records across the package's WARCs. */
  byDigest(digest: string): { readonly warc: WaczWarc; readonly offset: number; readonly length: number; readonly url: string } | undefined;
  /** What was wrong but did not refuse the package, counted by reason. */
  readonly problems: readonly WaczProblem[];
  close(): Promise<void>;
};

const DEFAULT_LIMITS: WaczLimits = { maxMetadataBytes: 16 << 20, maxRatio: 200, maxTitles: 1_000_000, maxIndexLines: 5_000_000 };
/** Entries up to this size are not held to the ratio: small files of one repeated byte are common. */
const BOMB_FLOOR = 1 << 20;
/** More entries than this is no WACZ (each is held in memory while the package is checked). */
const MAX_ENTRIES = 100_000;
const WARC_NAME = /^archive\/.+\.warc(\.gz)?$/i;
const INDEX_NAME = /^indexes\/[^/]+\.cdxj?(\.gz)?$/i;
const PAGES_NAME = /^pages\/[^/]+\.jsonl$/i;

const n = (x: number) => x.toLocaleString('en-US');
const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The WACZ at `path`, checked, its index and page titles read; refused with a WaczError. */
export async function openWacz(path: string, limits: Partial<WaczLimits> = {}): Promise<WaczPackage> {
  const limit = { ...DEFAULT_LIMITS, ...limits };
  let zip: ZipFile;
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true });
  } catch (e) {
    throw new WaczError(`${path} is not a readable zip: ${reason(e)}`);
  }
  try {
    return await readPackage(path, zip, limit);
  } catch (e) {
    zip.close();
    throw e instanceof WaczError ? e : new WaczError(`${path}: ${reason(e)}`);
  }
}

type Located = { entry: Entry; dataStart: number };

async function readPackage(path: string, zip: ZipFile, limit: WaczLimits): Promise<WaczPackage> {
  const refuse = (why: string) => new WaczError(`${path}: ${why}`);
  const problems = new Problems();
  const entries = await entriesOf(path, zip, limit.maxRatio);
  const byName = new Map(entries.map((e) => [e.entry.fileName, e]));

  const warcEntries = entries.filter((e) => WARC_NAME.test(e.entry.fileName));
  if (!warcEntries.length) {
    const names = entries.map((e) => e.entry.fileName);
    const holds = names.length
      ? `${n(names.length)} ${names.length === 1 ? 'entry' : 'entries'}: ${names.slice(0, 5).join(', ')}${names.length > 5 ? ', …' : ''}`
      : 'no entries';
    throw new WaczError(`${path} is a zip but not a WACZ: no archive/*.warc(.gz) inside (it holds ${holds})`);
  }
  for (const { entry } of warcEntries) {
    if (!entry.canDecodeFileData()) throw refuse(`${entry.fileName} is encrypted or compressed by method ${entry.compressionMethod}, which cannot be read`);
  }

  const datapackage = byName.get('datapackage.json');
  let version: string | undefined;
  if (!datapackage) problems.add('not WACZ 1.1.1: no datapackage.json');
  else {
    const byPath = new Map([...byName].map(([name, e]) => [name, e.entry]));
    version = await checkDatapackage(zip, datapackage.entry, byPath, limit.maxMetadataBytes, problems, refuse);
  }

  const tmp = new TempFiles();
  const warcs = warcEntries.map((e, i) => warcOf(path, zip, e, i, tmp));
  const indexFiles = entries
    .filter((e) => INDEX_NAME.test(e.entry.fileName))
    .map(({ entry }) => ({ name: entry.fileName, size: entry.uncompressedSize, open: () => zip.openReadStreamPromise(entry) }));
  const index = await readIndexes(indexFiles, warcs, limit, problems);
  const titles = new Map<string, string>();
  const pageLists = entries.filter((e) => PAGES_NAME.test(e.entry.fileName));
  // (pages.jsonl first: a page in both keeps the title of the main list.)
  pageLists.sort((a, b) => Number(b.entry.fileName === 'pages/pages.jsonl') - Number(a.entry.fileName === 'pages/pages.jsonl'));
  for (const { entry } of pageLists) {
    try {
      await readPages(entry.fileName, lines(await zip.openReadStreamPromise(entry)), titles, limit.maxTitles, problems);
    } catch (e) {
      problems.add('a page list that could not be read to its end', `${entry.fileName}: ${reason(e)}`);
    }
  }

  return {
    path,
    version,
    warcs,
    titles,
    indexLines: index.lines,
    byDigest(digest) {
      const c = index.byDigest.get(digestKey(digest));
      return c && { warc: warcs[c.w]!, offset: c.o, length: c.l, url: c.u };
    },
    problems: problems.list(),
    async close() {
      zip.close();
      await tmp.removeAll();
    },
  };
}

/**
 * Every entry of the zip with where its data begins, after the checks that need no reading: no
 * name twice, no entry claiming bytes past the end of the file, none expanding like a zip bomb,
 * and no two entries sharing bytes (the overlapping-entries bomb).
 */
async function entriesOf(path: string, zip: ZipFile, maxRatio: number): Promise<Located[]> {
  const refuse = (why: string) => new WaczError(`${path}: ${why}`);
  const all: Entry[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (all.length >= MAX_ENTRIES) throw refuse(`more than ${n(MAX_ENTRIES)} entries in the zip`);
      all.push(entry);
    }
  } catch (e) {
    throw e instanceof WaczError ? e : new WaczError(`${path} is a broken zip: ${reason(e)}`);
  }
  const names = new Set<string>();
  const located: Located[] = [];
  for (const entry of all) {
    const name = entry.fileName;
    if (names.has(name)) throw refuse(`the zip holds two entries named ${name}`);
    names.add(name);
    // (30 bytes: a local header without its name; what its data claims must fit in the file after it.)
    if (entry.relativeOffsetOfLocalHeader + 30 + entry.compressedSize > zip.fileSize) {
      const claim = entry.compressionMethod === 0 ? `${n(entry.uncompressedSize)} bytes` : `${n(entry.compressedSize)} compressed bytes`;
      throw refuse(`${name} claims ${claim}; the file has only ${n(zip.fileSize)}`);
    }
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.compressionMethod !== 0 && entry.uncompressedSize > BOMB_FLOOR && ratio > maxRatio) {
      throw refuse(`${name} expands ${n(Math.round(ratio))} times (${n(entry.compressedSize)} bytes to ${n(entry.uncompressedSize)}): a zip bomb?`);
    }
    let dataStart: number;
    try {
      dataStart = (await zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart;
    } catch (e) {
      throw refuse(`${name} cannot be found in the zip: ${reason(e)}`);
    }
    located.push({ entry, dataStart });
  }
  const spans = located
    .map(({ entry, dataStart }) => ({ name: entry.fileName, start: entry.relativeOffsetOfLocalHeader, end: dataStart + entry.compressedSize }))
    .sort((a, b) => a.start - b.start);
  let last: (typeof spans)[number] | undefined;
  for (const span of spans) {
    if (last && span.start < last.end) {
      throw refuse(
        `${span.name} overlaps ${last.name} in the zip (bytes ${n(span.start)} to ${n(Math.min(span.end, last.end))}): entries sharing bytes, a zip bomb?`,
      );
    }
    if (!last || span.end > last.end) last = span;
  }
  return located.filter(({ entry }) => !entry.fileName.endsWith('/'));
}

/** The temporary directory of a package's extracted WARCs, made at the first, removed with all of them. */
class TempFiles {
  private dir: Promise<string> | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  closed = false;
  async extract(zip: ZipFile, entry: Entry, i: number): Promise<string> {
    this.dir ??= mkdtemp(join(tmpdir(), 'trawl-wacz-'));
    const file = join(await this.dir, `${i}-${basename(entry.fileName)}`);
    const done = (async () => pipeline(await zip.openReadStreamPromise(entry), createWriteStream(file, { flags: 'wx' })))();
    this.pending.add(done);
    try {
      await done;
    } catch (e) {
      await rm(file, { force: true });
      throw e;
    } finally {
      this.pending.delete(done);
    }
    return file;
  }
  async removeAll(): Promise<void> {
    this.closed = true;
    await Promise.allSettled([...this.pending]);
    if (this.dir) await rm(await this.dir, { recursive: true, force: true });
  }
}

function warcOf(path: string, zip: ZipFile, { entry, dataStart }: Located, i: number, tmp: TempFiles): WaczWarc {
  const compressed = entry.compressionMethod !== 0;
  const size = entry.uncompressedSize;
  let extracted: Promise<string> | undefined;
  return {
    name: entry.fileName,
    size,
    compressed,
    async locate() {
      if (tmp.closed) throw new WaczError(`${path}: closed`);
      if (!compressed) return { path: resolve(path), start: dataStart, end: dataStart + size };
      extracted ??= tmp.extract(zip, entry, i).catch((e: unknown) => {
        extracted = undefined;
        throw new WaczError(`${path}: ${entry.fileName} cannot be extracted: ${reason(e)}`);
      });
      return { path: await extracted, start: 0, end: size };
    },
  };
}
