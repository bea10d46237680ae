/**
 * Parsing off the main thread. Decoding and parsing a page costs about as much CPU as everything
 * else the crawler does for it (bench/crawl), so on a machine with a spare core a pool of worker
 * threads parses while the main thread fetches, stores, indexes and answers searches. Bodies are
 * transferred, not copied. With no workers, pages are parsed inline.
 */
import { silentLog, type Log } from '../../lib/log.ts';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { bundleWorker } from './bundle.ts';
import { extract, type Extracted, type ParseJob } from './extract.ts';

export type PageParser = { parse(job: ParseJob): Promise<Extracted>; close(): Promise<void> };

/** One worker per spare core, at most 4 (more buys nothing: the main thread becomes the limit). */
export function defaultParseWorkers(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 1));
}

type Pending = { resolve: (e: Extracted) => void; reject: (e: Error) => void; job: ParseJob };

/** `ready` once the worker has loaded its module: until then its share of pages is parsed inline. */
type Slot = { worker: Worker; pending: Map<number, Pending>; ready: boolean; current: Int32Array };

/**
 * A parse worker allocates a whole DOM per page and drops it at once: with V8's default young
 * generation it spent a quarter of its time in scavenges. 64 MB made bench/crawl ~8 % faster.
 */
const WORKER_YOUNG_GENERATION_MB = 64;

/**
 * A worker's heap limit. A DOM takes 20–60 times its HTML's size, so a 5 MB page (the default
 * limits.maxBodyBytes) of pathological markup can need a few hundred MB; a page that needs more
 * fails alone (ParseFailure) instead of taking the process's memory.
 */
export const DEFAULT_WORKER_HEAP_MB = 768;

/** After this many worker failures, the pool stops starting workers and parses inline. */
const MAX_FAILURES = 3;

export type ParsePoolOptions = {
  readonly log?: Log;
  /**
   * A module exporting `extract(job): Extracted`, run in the workers, and the same function for
   * inline use. Default: this folder's `extract`. The orchestrator passes one that also analyzes
   * pages for the index, so that tokenizing leaves the main thread too.
   */
  readonly extractor?: {
    readonly module: URL;
    readonly extract: (job: ParseJob) => Extracted;
    /** Passed to the module's `configure(config)` export in each worker (structured-cloneable). */
    readonly config?: unknown;
  };
  /** The worker's entry file (tests pass a broken one). */
  readonly entry?: URL;
  /** Each worker's heap limit (old generation), in MB. */
  readonly maxHeapMb?: number;
};

export class ParsePool implements PageParser {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;
  private failures = 0;
  private readonly log: Log;
  private readonly extract: (job: ParseJob) => Extracted;
  private readonly module: URL;
  private readonly config: unknown;
  private readonly maxHeapMb: number;
  /** The workers' code once known (bundled, or the tsx entry); workers start only then. */
  private code: URL | undefined;
  private starting: number;
  private readyWaiters: (() => void)[] = [];
  /** Pages parsed by workers and inline (for tests and figures). */
  readonly parsed = { inWorkers: 0, inline: 0 };

  constructor(size: number, options: ParsePoolOptions = {}) {
    this.log = options.log ?? silentLog;
    this.extract = options.extractor?.extract ?? extract;
    this.module = options.extractor?.module ?? new URL('./extract.ts', import.meta.url);
    this.config = options.extractor?.config;
    this.maxHeapMb = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB;
    this.starting = size;
    if (size > 0)
      void this.workerCode(options.entry)
        .then((code) => {
          this.code = code;
          if (!this.closed) for (let i = 0; i < size; i++) this.slots.push(this.spawn(code));
        })
        .catch((e: unknown) => this.log.warn(`parse workers could not start (${(e as Error).message}); parsing on the main thread`))
        .finally(() => {
          this.starting = 0;
          this.notifyReady();
        });
  }

  parse(job: ParseJob): Promise<Extracted> {
    // Workers take a moment to start; the first pages of a crawl are parsed inline meanwhile
    // rather than waiting in a queue.
    const ready = this.closed ? [] : this.slots.filter((s) => s.ready);
    if (ready.length === 0) {
      this.parsed.inline++;
      return Promise.resolve().then(() => this.extract(job));
    }
    this.parsed.inWorkers++;
    // The least busy worker takes the job.
    const slot = ready.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    const id = this.nextId++;
    return new Promise<Extracted>((resolve, reject) => {
      slot.pending.set(id, { resolve, reject, job });
      // Copy the body into its own buffer so it can be transferred (undici's chunks share slabs).
      const body = new Uint8Array(job.body);
      slot.worker.postMessage({ id, job: { ...job, body } }, [body.buffer]);
    });
  }

  /** Workers running or starting (fewer than asked for after repeated failures). */
  get workers(): number {
    return this.slots.length + this.starting;
  }

  /** Resolves when every worker has started and loaded its code (at once with none). */
  ready(): Promise<void> {
    return new Promise((resolve) => {
      this.readyWaiters.push(resolve);
      this.notifyReady();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.starting = 0;
    this.notifyReady();
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }

  private notifyReady(): void {
    if (this.closed || (this.starting === 0 && this.slots.every((s) => s.ready))) for (const w of this.readyWaiters.splice(0)) w();
  }

  /** The bundled worker code as a data: URL; if bundling fails, the entry that loads it through tsx. */
  private async workerCode(entry: URL | undefined): Promise<URL> {
    if (entry) return entry;
    try {
      const source = await bundleWorker(this.module);
      return new URL(`data:text/javascript;base64,${Buffer.from(source).toString('base64')}`);
    } catch (e) {
      // esbuild's BuildFailure lists its errors; its message's first line names none.
      const first = (e as { errors?: { text: string }[] }).errors?.[0]?.text ?? (e as Error).message.split('\n')[0];
      this.log.warn(`parse workers: could not bundle their code (${first}); loading it through tsx instead, which starts slower`);
      return new URL('./worker-entry.mjs', import.meta.url);
    }
  }

  private spawn(code: URL): Slot {
    // The job the worker is parsing (-1: none), written by the worker (worker.ts).
    const current = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
    const options = { workerData: { module: this.module.href, current, config: this.config }, resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB, maxOldGenerationSizeMb: this.maxHeapMb } };
    let worker: Worker;
    try {
      // The parent's loader flags (--import tsx) would load tsx into every worker for nothing.
      worker = new Worker(code, { ...options, execArgv: withoutLoaders(process.execArgv) });
    } catch {
      // A flag that a worker refuses (--trace-gc, say): start it with none.
      worker = new Worker(code, { ...options, execArgv: [] });
    }
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), ready: false, current };
    worker.on('message', (msg: { id: number; result?: Extracted; error?: string; ready?: true }) => {
      if (msg.ready) {
        slot.ready = true;
        this.notifyReady();
        return;
      }
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
   * A worker died. If it was parsing a page, that page is the likely cause (a page too big for the
   * worker's heap limit, or one that trips a bug): it fails with ParseFailure and is not parsed
   * again anywhere — least of all on the main thread, which has no such limit. The worker's other
   * pages are handed out again (some may have been done: their results, sent before the death,
   * are ignored), and a new worker takes its place. Workers that die with no page
   * in hand cannot start at all: after MAX_FAILURES of those, parsing stays inline.
   */
  private replace(slot: Slot, e: Error): void {
    const i = this.slots.indexOf(slot);
    if (i < 0 || this.closed) return;
    const working = Atomics.load(slot.current, 0);
    const culprit = slot.pending.get(working);
    const others = [...slot.pending.values()].filter((p) => p !== culprit);
    slot.pending.clear();
    if (!culprit) this.failures++;
    if (this.failures >= MAX_FAILURES) {
      this.log.warn(`parse worker failed (${e.message}); ${this.failures} failures: parsing on the main thread from now on`);
      this.slots.splice(i, 1);
      void slot.worker.terminate();
      this.notifyReady();
    } else {
      this.log.warn(`parse worker failed${culprit ? ` while parsing ${culprit.job.url}` : ''} (${e.message}); starting a new one`);
      this.slots[i] = this.spawn(this.code!);
    }
    culprit?.reject(new ParseFailure(`the parse worker died while parsing it (${e.message})`));
    for (const p of others) this.parse(p.job).then(p.resolve, p.reject);
  }
}

/** A page that could not be parsed because parsing it killed the worker (memory, or a bug). */
export class ParseFailure extends Error {
  override readonly name = 'ParseFailure';
}

/** Node flags without the module loaders (`--import X`, `--loader X`, `--experimental-loader X`, `--require X`/`-r X`). */
function withoutLoaders(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (/^(--(import|loader|experimental-loader|require)|-r)$/.test(a)) i++;
    else if (!/^--(import|loader|experimental-loader|require)=/.test(a)) out.push(a);
  }
  return out;
}
