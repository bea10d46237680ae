/**
 * A web archive made searchable (`trawl import`, `trawl start --warc`): each capture of a page in
 * the files — WARC from any crawler, ARC, or the WARCs of a WACZ package — goes through the
 * crawl's own pipeline as if it had just been fetched (crawler.ingest): parsed, judged, stored with
 * its original URL and capture date, indexed at once, duplicates folded, its links' anchor text
 * counted. Nothing is fetched. Streams the files in bounded memory. Every file is accounted for:
 * its format, its captures and what became of them, what was skipped and why, and whether it was
 * read to its end — or why it was not read at all.
 */
import { statSync } from 'node:fs';
import type { Crawler } from '../crawler/index.ts';
import { readArchive, type ArchiveSource, type Damage, type Ended } from '../crawler/archive/read.ts';
import { Originals, type Place } from '../crawler/archive/revisits.ts';
import { isZip, openWacz, WaczError, type WaczPackage, type WaczProblem } from '../crawler/archive/wacz.ts';
import type { FetchResponse } from '../crawler/fetch/fetcher.ts';

type Counts = Map<string, { count: number; example?: string }>;

export type FileSummary = {
  readonly file: string;
  /** `WARC 1.1, gzipped`, `ARC`, `WACZ 1.1.1 of 2 WARCs (WARC 1.1, gzipped)`… */
  readonly format: string;
  readonly captures: number;
  /** What the captures came to: indexed, excluded (a duplicate, noindex…), dead… */
  readonly outcomes: Readonly<Record<string, number>>;
  /** Captures and records skipped, by reason, and an example URL of each. */
  readonly skipped: ReadonlyMap<string, { count: number; example?: string }>;
  /** Records read, by WARC-Type. */
  readonly records: Readonly<Record<string, number>>;
  /** Where the file is damaged (in a WACZ: which of its WARCs); empty when it was read cleanly to its end. */
  readonly damage: readonly (Damage & { readonly where?: string })[];
  /** Why the file was not read at all (not an archive; a WACZ refused). */
  readonly refused?: string;
  /** A WACZ's faults that did not stop it being read (its index, its pages list). */
  readonly problems: readonly WaczProblem[];
};

export type ImportSummary = {
  readonly files: number;
  readonly captures: number;
  readonly outcomes: Readonly<Record<string, number>>;
  readonly skipped: ReadonlyMap<string, { count: number; example?: string }>;
  readonly perFile: readonly FileSummary[];
  /** Every file read to its end (the exit code of `trawl import`). */
  readonly complete: boolean;
};

export type ImportProgress = { readonly file: string; readonly bytes: number; readonly size: number; readonly captures: number };
export type ImportEvents = {
  readonly progress?: (p: ImportProgress) => void;
  readonly fileStarted?: (file: string, index: number, of: number) => void;
  readonly fileDone?: (s: FileSummary) => void;
};

/** Captures handled at once: the parse workers stay busy, the memory bounded. */
const IN_FLIGHT = 8;

export async function importArchives(crawler: Crawler, files: readonly string[], on: ImportEvents = {}): Promise<ImportSummary> {
  const perFile: FileSummary[] = [];
  // (Revisits may refer to a response in an earlier file of the same import.)
  const originals = new Originals();
  for (const [i, file] of files.entries()) {
    on.fileStarted?.(file, i, files.length);
    const s = await importFile(crawler, file, originals, on.progress ?? (() => undefined));
    perFile.push(s);
    on.fileDone?.(s);
  }
  const outcomes: Record<string, number> = {};
  const skipped: Counts = new Map();
  for (const f of perFile) {
    for (const [k, n] of Object.entries(f.outcomes)) outcomes[k] = (outcomes[k] ?? 0) + n;
    for (const [k, x] of f.skipped) count(skipped, k, x.example, x.count);
  }
  return {
    files: files.length,
    captures: perFile.reduce((n, f) => n + f.captures, 0),
    outcomes,
    skipped,
    perFile,
    complete: perFile.every(readToEnd),
  };
}

/** A file was read: not refused, and no damage in it. */
export const readToEnd = (f: FileSummary): boolean => !f.refused && f.damage.length === 0;

async function importFile(crawler: Crawler, file: string, originals: Originals, progress: (p: ImportProgress) => void): Promise<FileSummary> {
  const s = new FileTally(file);
  let size: number;
  try {
    const st = statSync(file);
    if (!st.isFile()) return s.refuse('not a file');
    size = st.size;
  } catch (e) {
    return s.refuse((e as Error).message);
  }
  if (!isZip(file) && !/\.wacz$/i.test(file)) {
    const ended = await s.read(crawler, { path: file, start: 0, end: size }, originals, (bytes) => progress({ file, bytes, size, captures: s.captures }));
    s.format = formatOf(ended);
    return s.done();
  }
  let pkg: WaczPackage;
  try {
    pkg = await openWacz(file);
  } catch (e) {
    if (e instanceof WaczError) return s.refuse(e.message);
    throw e;
  }
  try {
    // A revisit whose response is in another of the package's WARCs, not read yet: its index knows where.
    const inPackage = new Originals(async (digest): Promise<Place | undefined> => {
      const at = pkg.byDigest(digest);
      if (!at) return undefined;
      const where = await at.warc.locate();
      return { path: where.path, offset: where.start + at.offset, end: where.end };
    }, originals);
    const total = pkg.warcs.reduce((n, w) => n + w.size, 0);
    const formats = new Set<string>();
    let before = 0;
    for (const warc of pkg.warcs) {
      const where: ArchiveSource = await warc.locate();
      const ended = await s.read(crawler, where, inPackage, (bytes) => progress({ file, bytes: before + bytes, size: total, captures: s.captures }), {
        titles: pkg.titles,
        where: warc.name,
      });
      formats.add(formatOf(ended));
      before += warc.size;
    }
    s.problems = pkg.problems;
    const n = pkg.warcs.length;
    s.format = `WACZ${pkg.version ? ` ${pkg.version}` : ''} of ${n} WARC${n === 1 ? '' : 's'} (${[...formats].join('; ')})`;
  } finally {
    await pkg.close();
  }
  return s.done();
}

const formatOf = (e: Ended | undefined) => (e ? `${e.format}${e.compressed ? ', gzipped' : ''}` : 'unknown');

function count(m: Counts, reason: string, example?: string, n = 1): void {
  const x = m.get(reason) ?? { count: 0, ...(example ? { example } : {}) };
  x.count += n;
  m.set(reason, x);
}

/** One file's figures as it is read. */
class FileTally {
  format = 'unknown';
  captures = 0;
  problems: readonly WaczProblem[] = [];
  private refused: string | undefined;
  private readonly outcomes: Record<string, number> = {};
  private readonly skipped: Counts = new Map();
  private readonly records: Record<string, number> = {};
  private readonly damage: (Damage & { where?: string })[] = [];

  constructor(readonly file: string) {}

  refuse(reason: string): FileSummary {
    this.refused = reason;
    return this.done();
  }

  /** Reads one WARC or ARC (a whole file, or one of a WACZ's), each capture ingested. */
  async read(
    crawler: Crawler,
    source: ArchiveSource,
    originals: Originals,
    progress: (bytes: number) => void,
    o: { titles?: ReadonlyMap<string, string>; where?: string } = {},
  ): Promise<Ended | undefined> {
    const running = new Set<Promise<void>>();
    let ended: Ended | undefined;
    for await (const item of readArchive(source, { originals })) {
      if (item.kind === 'progress') progress(item.bytes);
      else if (item.kind === 'skipped') count(this.skipped, item.reason, item.url);
      else if (item.kind === 'end') ended = item;
      else {
        this.captures++;
        const res: FetchResponse = {
          kind: 'response',
          status: item.status,
          contentType: (item.headers['content-type'] ?? '').toLowerCase(),
          headers: item.headers,
          body: item.body,
          truncated: item.truncated,
          wireBytes: item.body.length,
          ...(item.headers.location ? { location: item.headers.location } : {}),
        };
        const done = crawler.ingest(item.url, res, item.date, o.titles?.get(item.url)).then(
          (r) => {
            if ('refused' in r) count(this.skipped, `not admitted: ${r.refused}`, item.url);
            else this.outcomes[r.outcome] = (this.outcomes[r.outcome] ?? 0) + 1;
          },
          (e: unknown) => count(this.skipped, `could not be handled: ${(e as Error).message}`, item.url),
        );
        const p = done.finally(() => running.delete(p));
        running.add(p);
        if (running.size >= IN_FLIGHT) await Promise.race(running);
      }
    }
    await Promise.all(running);
    if (ended) {
      for (const [k, n] of Object.entries(ended.records)) this.records[k] = (this.records[k] ?? 0) + n;
      for (const d of ended.damage) this.damage.push(o.where ? { ...d, where: o.where } : d);
    }
    return ended;
  }

  done(): FileSummary {
    return {
      file: this.file,
      format: this.format,
      captures: this.captures,
      outcomes: this.outcomes,
      skipped: this.skipped,
      records: this.records,
      damage: this.damage,
      problems: this.problems,
      ...(this.refused ? { refused: this.refused } : {}),
    };
  }
}
