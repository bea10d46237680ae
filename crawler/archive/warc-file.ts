/**
 * The archive's files: gzipped WARC 1.1, one gzip member per record (as the spec recommends: any
 * record can be read on its own from its offset), rotated at `maxFileBytes`. The file being written
 * is named `….warc.gz.open`; a file is given its final name once finished. Beside the open file, an
 * index of where each record ends (`.idx`), appended after each record: after a crash (kill -9), the
 * next start cuts the open file back to the end of its last complete record and finishes it, so
 * every finished file is valid and nothing half-written is ever read.
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

  /** The path of a file by its final name, whether it is finished yet or still being written. */
  pathOf(file: string): string {
    const final = join(this.dir, file);
    return existsSync(final) ? final : final + OPEN;
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
    renameSync(path, join(this.dir, this.name!));
    rmSync(path + INDEX, { force: true });
    this.fd = this.index = this.name = undefined;
    this.size = 0;
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done);
}
