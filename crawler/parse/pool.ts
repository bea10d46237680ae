/**
 * Parsing off the main thread. Decoding and parsing a page costs about as much CPU as everything
 * else the crawler does for it (bench/crawl), so on a machine with a spare core a pool of worker
 * threads parses while the main thread fetches, stores, indexes and answers searches. Bodies are
 * transferred, not copied. With no workers, pages are parsed inline.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { extract, type Extracted, type ParseJob } from './extract.ts';

export type PageParser = { parse(job: ParseJob): Promise<Extracted>; close(): Promise<void> };

/** One worker per spare core, at most 4 (more buys nothing: the main thread becomes the limit). */
export function defaultParseWorkers(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 1));
}

type Pending = { resolve: (e: Extracted) => void; reject: (e: Error) => void; job: ParseJob };

type Slot = { worker: Worker; pending: Map<number, Pending> };

/** After this many worker failures, the pool stops starting workers and parses inline. */
const MAX_FAILURES = 3;

export type ParsePoolOptions = {
  readonly log?: (m: string) => void;
  /**
   * A module exporting `extract(job): Extracted`, run in the workers, and the same function for
   * inline use. Default: this folder's `extract`. The orchestrator passes one that also analyzes
   * pages for the index, so that tokenizing leaves the main thread too.
   */
  readonly extractor?: { readonly module: URL; readonly extract: (job: ParseJob) => Extracted };
  /** The worker's entry file (tests pass a broken one). */
  readonly entry?: URL;
};

export class ParsePool implements PageParser {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;
  private failures = 0;
  private readonly log: (m: string) => void;
  private readonly extract: (job: ParseJob) => Extracted;
  private readonly module: URL;
  private readonly entry: URL;

  constructor(size: number, options: ParsePoolOptions = {}) {
    this.log = options.log ?? (() => undefined);
    this.extract = options.extractor?.extract ?? extract;
    this.module = options.extractor?.module ?? new URL('./extract.ts', import.meta.url);
    this.entry = options.entry ?? new URL('./worker-entry.mjs', import.meta.url);
    for (let i = 0; i < size; i++) this.slots.push(this.spawn());
  }

  parse(job: ParseJob): Promise<Extracted> {
    if (this.closed || this.slots.length === 0) return Promise.resolve().then(() => this.extract(job));
    // The least busy worker takes the job.
    const slot = this.slots.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.nextId++;
    return new Promise<Extracted>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject, job });
      // Copy the body into its own buffer so it can be transferred (undici's chunks share slabs).
      const body = new Uint8Array(job.body);
      slot.worker.postMessage({ id, job: { ...job, body } }, [body.buffer]);
    });
  }

  /** Workers running now (fewer than asked for after repeated failures). */
  get workers(): number {
    return this.slots.length;
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }

  private spawn(): Slot {
    const worker = new Worker(this.entry, { workerData: { module: this.module.href } });
    worker.unref();
    const slot: Slot = { worker, pending: new Map() };
    worker.on('message', (msg: { id: number; result?: Extracted; error?: string }) => {
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      if (msg.error !== undefined) p.reject(new Error(msg.error));
      else p.resolve(msg.result!);
    });
    worker.on('error', (e) => this.replace(slot, e));
    worker.on('exit', (code) => {
      if (!this.closed && code !== 0) this.replace(slot, new Error(`parse worker exited with code ${code}`));
    });
    return slot;
  }

  /**
   * A worker died (a bug, or memory): its jobs are parsed inline, and a new worker takes its
   * place — unless workers keep failing, in which case parsing stays inline from now on.
   */
  private replace(slot: Slot, e: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0 || this.closed) return;
    this.failures++;
    if (this.failures >= MAX_FAILURES) {
      this.log(`parse worker failed (${e.message}); ${this.failures} failures: parsing on the main thread from now on`);
      this.slots.splice(i, 1);
      void slot.worker.terminate();
    } else {
      this.log(`parse worker failed (${e.message}); starting a new one`);
      this.slots[i] = this.spawn();
    }
    for (const p of slot.pending.values()) {
      try {
        p.resolve(this.extract(p.job));
      } catch (err) {
        p.reject(err as Error);
      }
    }
    slot.pending.clear();
  }
}
