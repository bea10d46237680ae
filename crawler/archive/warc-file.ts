/**
 * The archive's files: gzipped WARC 1.1, one gzip member per record (as the spec recommends: any
 * record can be read on its own from its offset), rotated at `maxFileBytes`. The file being written
 * is named `….warc.gz.open`; a file is given its final name once finished. Beside the open file, an
 * index of where each record ends (`.idx`), appended after each record: after a crash (kill -9), the
 * next start cuts the open file back to the end of its last complete record and finishes it, so
 * every finished file is valid and nothing half-written is ever read. With archive.format wacz, a
 * finished file is then packaged into a WACZ of the same name (wacz-package.ts): its bytes are the
 * WACZ's stored entry `archive/<name>`, where `locateWarc` finds them.
 */
import {
  closeSync,
  existsSync,
  fsyncSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

const OPEN = '.open';
const INDEX = '.idx';

export type Placed = { readonly file: string; readonly offset: number; readonly length: number };

/** Where a WARC file's bytes are: in the file at `path`, from byte `start` (0 but in a WACZ). */
export type WarcLocation = { readonly path: string; readonly start: number };

/** The WACZ a finished WARC file `name` is packaged into: `<name>.wacz`, its .warc(.gz) dropped. */
export const waczNameOf = (name: string): string => `${name.replace(/\.warc(\.gz)?$/i, '')}.wacz`;

/**
 * Where the bytes of WARC file `file` (its final name, as the store's refs keep it) are in `dir`:
 * the file, finished or still open, else the STORED entry `archive/<file>` of its WACZ; undefined
 * when none is there. A record at (offset, length) of the file is at (start + offset, length) of the path.
 */
export async function locateWarc(dir: string, file: string): Promise<WarcLocation | undefined> {
  for (const path of [join(dir, file), join(dir, file + OPEN)]) if (existsSync(path)) return { path, start: 0 };
  const wacz = join(dir, waczNameOf(file));
  if (!existsSync(wacz)) return undefined;
  const { default: yauzl } = await import('yauzl');
  // (The central directory is read, not the entries: a few kB at the end of the file.)
  const zip = await yauzl.openPromise(wacz, { lazyEntries: true, autoClose: false });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== `archive/${file}`) continue;
      if (entry.compressionMethod !== 0) throw new Error(`${wacz}: archive/${file} is compressed, not stored: its records cannot be read in place`);
      return { path: wacz, start: (await zip.readLocalFileHeaderPromise(entry, { minimal: true })).fileDataStart };
    }
    return undefined;
  } finally {
    zip.close();
  }
}

export class RotatingWarcFile {
  private fd: number | undefined;
  private name: string | undefined;
  private size = 0;
  private index: number | undefined;
  private sequence = 0;

  constructor(
    readonly dir: string,
    private readonly maxFileBytes: number,
    /** The first record of every new file (its warcinfo), serialized for that file's name. */
    private readonly header: (fileName: string) => Promise<Uint8Array>,
    /** Told of each file finished (rotated or closed), by its final path. */
    private readonly finished?: (path: string) => void,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /** Finishes the open files a crash left: each cut back to its last complete record. Returns their names. */
  static recover(dir: string): string[] {
    if (!existsSync(dir)) return [];
    const done: string[] = [];
    for (const f of readdirSync(dir)) {
      if (!f.endsWith(OPEN)) continue;
      const path = join(dir, f);
      const ends = existsSync(path + INDEX)
        ? readFileSync(path + INDEX, 'utf8')
            .split('\n')
            .filter(Boolean)
            .map(Number)
        : [];
      const end = ends.length ? Math.max(...ends.filter(Number.isFinite)) : 0;
      const fd = openSync(path, 'r+');
      try {
        if (statSync(path).size > end) ftruncateSync(fd, end);
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
      const final = path.slice(0, -OPEN.length);
      if (end > 0) renameSync(path, final);
      else rmSync(path);
      rmSync(path + INDEX, { force: true });
      if (end > 0) done.push(final);
    }
    return done;
  }

  /** Appends one record (a complete gzip member); rotates first when the file would outgrow its cap. One call at a time. */
  async append(record: Uint8Array): Promise<Placed> {
    if (this.fd !== undefined && this.size > 0 && this.size + record.length > this.maxFileBytes) this.finish();
    if (this.fd === undefined) await this.start();
    const offset = this.size;
    writeAll(this.fd!, record);
    this.size += record.length;
    writeAll(this.index!, Buffer.from(`${this.size}\n`));
    return { file: this.name!, offset, length: record.length };
  }

  /** Makes what was appended durable (a group of records at a time, not each). */
  sync(): void {
    if (this.fd !== undefined) fsyncSync(this.fd);
  }

  /** Finishes the open file: durable, and under its final name. */
  close(): void {
    if (this.fd !== undefined) this.finish();
  }

  /** Where a file is by its final name: still being written, finished, or packaged into a WACZ. */
  locate(file: string): Promise<WarcLocation | undefined> {
    return locateWarc(this.dir, file);
  }

  private async start(): Promise<void> {
    const stamp = new Date().toISOString().replace(/[-:T]/g, '').replace(/\..*$/, '');
    this.name = `trawl-${stamp}-${String(this.sequence++).padStart(5, '0')}-${process.pid}.warc.gz`;
    const head = await this.header(this.name);
    const path = join(this.dir, this.name + OPEN);
    this.fd = openSync(path, 'a');
    this.index = openSync(path + INDEX, 'a');
    writeAll(this.fd, head);
    this.size = head.length;
    writeAll(this.index, Buffer.from(`${this.size}\n`));
  }

  private finish(): void {
    const path = join(this.dir, this.name! + OPEN);
    fsyncSync(this.fd!);
    closeSync(this.fd!);
    closeSync(this.index!);
    const final = join(this.dir, this.name!);
    renameSync(path, final);
    rmSync(path + INDEX, { force: true });
    this.fd = this.index = this.name = undefined;
    this.size = 0;
    this.finished?.(final);
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}
