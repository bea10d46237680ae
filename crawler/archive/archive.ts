/**
 * Archiving while crawling (`archive.warc`): every fetched response goes into the data directory's
 * WARC files — a response record with its request, or, when the page is the same as Trawl already
 * holds (a 304, or the same text again), a revisit record that refers to the response it repeats. A
 * changed page is a new response: every version is kept, and the crawl database points to the
 * latest (store/archive.ts). Records are written one at a time, in the order the fetches ended;
 * archiving never fails a fetch: a write that fails is logged, and the crawl goes on.
 *
 * With `archive.format` wacz, each WARC file finished (rotated, closed at the end, or recovered at
 * the start) is packaged into a WACZ of its name (wacz-package.ts), one at a time, beside the crawl:
 * the crawl does not wait for it, its close does. A packaging that fails is logged, and its WARC
 * file kept (the next start tries again).
 */
import type { Log } from '../../lib/log.ts';
import type { ArchiveStore } from '../../store/index.ts';
import type { FetchResponse } from '../fetch/fetcher.ts';
import { requestRecord, responseRecord, revisitRecord, warcinfoRecord, type Exchange, type Serialized } from './records.ts';
import { RotatingWarcFile } from './warc-file.ts';

export type ArchiveOptions = {
  readonly dir: string;
  readonly maxFileBytes: number;
  /** The warcinfo's fields: the software and version, the crawl's settings (secrets never). */
  readonly info: Readonly<Record<string, string>>;
  /** `wacz`: each finished WARC file packaged into a WACZ (archive.format). */
  readonly format: 'warc' | 'wacz';
  /** The WACZ's title and software (its datapackage.json). */
  readonly title: string;
};

export type ArchiveFigures = { readonly records: number; readonly bytes: number; readonly failures: number; readonly packaged: number };

export class WarcArchive {
  private readonly file: RotatingWarcFile;
  private queue: Promise<void> = Promise.resolve();
  private readonly figures = { records: 0, bytes: 0, failures: 0, packaged: 0 };
  private sinceSync = 0;
  private packing: Promise<void> = Promise.resolve();

  constructor(
    private readonly o: ArchiveOptions,
    private readonly store: ArchiveStore,
    private readonly log: Log,
  ) {
    const recovered = RotatingWarcFile.recover(o.dir);
    if (recovered.length) log.warn(`archive: finished ${recovered.length} WARC file(s) a stop left open, each cut back to its last complete record`);
    const wacz = o.format === 'wacz';
    this.file = new RotatingWarcFile(o.dir, o.maxFileBytes, (name) => warcinfoRecord(name, o.info), wacz ? (path) => this.pack(path) : undefined);
    if (wacz) {
      this.packing = import('./wacz-package.ts').then(
        ({ unpackaged }) => {
          for (const path of unpackaged(o.dir)) this.pack(path);
        },
        (e: unknown) => log.warn(`archive: WACZ packaging unavailable: ${(e as Error).message}`),
      );
    }
  }

  /**
   * Archives one fetch of URL record `urlId`: `unchanged` when the crawl found the same text it held
   * (a 304 is always unchanged). Resolves once written (or once its failure was logged).
   */
  fetched(urlId: number, url: string, res: FetchResponse, unchanged: boolean): Promise<void> {
    if (!res.raw) return Promise.resolve();
    const x: Exchange = {
      url,
      date: new Date(),
      status: res.status,
      requestHeaders: res.raw.requestHeaders,
      responseHeaders: res.raw.rawHeaders,
      body: res.raw.body,
      truncated: res.truncated,
    };
    const same = unchanged || res.status === 304;
    // A response's records are made (digests, gzip) at once, beside other fetches' — only their
    // writing waits its turn: in a queue, one fetch's after another, they made the crawl wait.
    const made = same ? undefined : this.make(x);
    made?.catch(() => undefined); // (its failure is told when its turn comes)
    const done = this.queue.then(() =>
      this.write(urlId, x, same, made).catch((e: unknown) => {
        this.figures.failures++;
        this.log.warn(`archive: ${url} could not be archived: ${(e as Error).message}`);
      }),
    );
    this.queue = done;
    return done;
  }

  /** Durable now (the crawl's own sync calls it). */
  async sync(): Promise<void> {
    await this.queue;
    this.file.sync();
  }

  /** Everything written and finished (and, with wacz, packaged). */
  async close(): Promise<void> {
    await this.queue;
    this.file.close();
    // (A packaging may queue another behind it, those found at the start: wait for the last.)
    for (let last: Promise<void> | undefined; last !== this.packing; ) await (last = this.packing);
  }

  stats(): ArchiveFigures {
    return { ...this.figures };
  }

  /** Packages a finished WARC file, after those before it. */
  private pack(path: string): void {
    const title = this.o.title;
    const software = this.o.info.software ?? 'Trawl';
    this.packing = this.packing
      .then(() => import('./wacz-package.ts'))
      .then(({ packageWarc }) => packageWarc(path, { title, software }))
      .then(
        () => void this.figures.packaged++,
        (e: unknown) => this.log.warn(`archive: ${path} could not be packaged as WACZ (the WARC file is kept): ${(e as Error).message}`),
      );
  }

  private async make(x: Exchange): Promise<{ response: Serialized; request: Serialized }> {
    const response = await responseRecord(x);
    return { response, request: await requestRecord(x, response.id) };
  }

  private async write(urlId: number, x: Exchange, same: boolean, made: ReturnType<WarcArchive['make']> | undefined): Promise<void> {
    const previous = same ? await this.store.latest(urlId) : undefined;
    if (same && previous) {
      const revisit = await revisitRecord(x, { id: previous.recordId, url: x.url, date: previous.date, digest: previous.digest }, x.status === 304);
      await this.append(revisit.bytes);
      return;
    }
    // (A 304 for a page archived before archiving was on has nothing to point to: it is skipped.)
    if (x.status === 304) return;
    const { response, request } = await (made ?? this.make(x));
    const placed = await this.append(response.bytes);
    await this.append(request.bytes);
    await this.store.put(urlId, {
      file: placed.file,
      offset: placed.offset,
      length: placed.length,
      recordId: response.id,
      date: x.date.toISOString(),
      digest: response.digest,
    });
  }

  private async append(bytes: Uint8Array) {
    const placed = await this.file.append(bytes);
    this.figures.records++;
    this.figures.bytes += bytes.length;
    // Durable every few hundred records: a crash loses at most those (the index cuts them off cleanly).
    if (++this.sinceSync >= 256) {
      this.sinceSync = 0;
      this.file.sync();
    }
    return placed;
  }
}
