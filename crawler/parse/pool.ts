/**
 * Parsing off the main thread. Decoding and parsing a page costs about as much CPU as everything
 * else the crawler does for it (bench/crawl), so on a machine with a spare core a pool of worker
 * threads parses while the main thread fetches, stores, indexes and answers searches. Bodies are
 * transferred, not copied. With no workers, pages are parsed inline.
 */
import { silentLog, type Log } from '../../lib/log.ts';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Extracted, ParseJob } from './extract.ts';
import { LeaveToWorker } from './jobs.ts';
import { withoutLoaders, workerCode } from './worker-code.ts';

export type PageParser = { parse(job: ParseJob): Promise<Extracted>; close(): Promise<void> };

/** An extractor: the crawler's own (extract.ts) or the orchestrator's, synchronous or not. */
export type ExtractFn = (job: ParseJob) => Extracted | Promise<Extracted>;

/** One worker per spare core, at most 4 (more buys nothing: the main thread becomes the limit). */
export function defaultParseWorkers(): number {
  return Math.max(0, Math.min(4, availableParallelism() - 1));
}

type Pending = { resolve: (e: Extracted) => void; reject: (e: Error) => void; job: ParseJob };

/** `ready` once the worker has loaded its module: until then its share of pages is parsed inline. */
type Slot = { worker: Worker; pending: Map<number, Pending>; ready: boolean; current: Int32Array; watched: { id: number; since: number } };

/**
 * A parse worker's garbage is a page's worth at a time. With a whole DOM per page, V8's default
 * young generation spent a quarter of its time in scavenges and 64 MB made bench/crawl ~8 % faster;
 * parsed as a stream (no DOM), 32 MB costs the same CPU a page (bench/crawl: 5.1–5.3 vs 4.8–5.2
 * ms) and holds ~30 MB less (peak RSS 282–293 vs 303–319 MB; bench/documents 583 vs 601 MB).
 */
const WORKER_YOUNG_GENERATION_MB = 32;

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
   * inline use — or how to load it (`load`): the parsers are then loaded on this thread only when it
   * first parses a page itself, not before a crawl's first request (issue 23). Default: this
   * folder's `extract`, loaded so. The orchestrator passes one that also analyzes pages for the
   * index, so that tokenizing leaves the main thread too.
   */
  readonly extractor?: {
    readonly module: URL;
    readonly extract?: ExtractFn;
    readonly load?: () => Promise<ExtractFn>;
    /** Passed to the module's `configure(config)` export in each worker (structured-cloneable). */
    readonly config?: unknown;
  };
  /** The worker's entry file (tests pass a broken one). */
  readonly entry?: URL;
  /** Each worker's heap limit (old generation), in MB. */
  readonly maxHeapMb?: number;
  /**
   * Each worker's young generation, in MB (default 32, for pages). Documents take less: PDF.js's
   * garbage is collected by the document worker itself (documents/gc.ts), and 64 MB of young
   * generation per worker is RSS that a crawl of documents holds all along.
   */
  readonly youngGenerationMb?: number;
  /**
   * A job's wall-clock limit in a worker, in ms: past it the worker is stopped and replaced, and the
   * job fails with ParseFailure (`timeout`). Checked a few times per limit, so it ends within ~1.25×.
   */
  readonly timeoutMs?: number;
  /**
   * Whether a job may be parsed on the main thread while no worker is ready (default true). A pool
   * of documents says false: a hostile PDF must never run where no heap or time limit holds.
   */
  readonly inline?: boolean;
  /** What the pool parses, for its log lines ("parse", "document"). */
  readonly name?: string;
  /** Start the workers at the first job rather than at once (documents: a crawl may have none). */
  readonly lazy?: boolean;
  /**
   * Jobs a worker is sent at once (default: no limit); the others wait here, in order, for the first
   * worker that is done. Documents take 1: a PDF waiting in a worker's queue is a second copy of its
   * bytes (the main thread keeps one to hand out again should the worker die), and the next one
   * goes to whichever worker finishes first instead of being bound to one behind a long document.
   */
  readonly jobsPerWorker?: number;
};

type Waiting = Pending;

export class ParsePool implements PageParser {
  private readonly slots: Slot[] = [];
  private nextId = 0;
  private closed = false;
  private failures = 0;
  private readonly log: Log;
  /** How the extractor for inline use is had (given, or loaded), and it once asked for. */
  private readonly loadExtract: () => Promise<ExtractFn>;
  private extract: Promise<ExtractFn> | undefined;
  private readonly module: URL;
  private readonly config: unknown;
  private readonly maxHeapMb: number;
  private readonly youngGenerationMb: number;
  private readonly jobsPerWorker: number;
  /** Jobs that no worker may take yet (jobsPerWorker), oldest first. */
  private readonly waiting: Waiting[] = [];
  private readonly timeoutMs: number | undefined;
  private readonly inline: boolean;
  private readonly name: string;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly size: number;
  private readonly entry: URL | undefined;
  private started = false;
  /** The workers' code once known (bundled, or the tsx entry); workers start only then. */
  private code: URL | undefined;
  private starting = 0;
  private readyWaiters: (() => void)[] = [];
  /** Pages parsed by workers and inline (for tests and figures). */
  readonly parsed = { inWorkers: 0, inline: 0 };

  constructor(size: number, options: ParsePoolOptions = {}) {
    this.log = options.log ?? silentLog;
    const given = options.extractor?.extract;
    this.loadExtract = given ? () => Promise.resolve(given) : (options.extractor?.load ?? (() => import('./extract.ts').then((m) => m.extract)));
    this.module = options.extractor?.module ?? new URL('./extract.ts', import.meta.url);
    this.config = options.extractor?.config;
    this.maxHeapMb = options.maxHeapMb ?? DEFAULT_WORKER_HEAP_MB;
    this.youngGenerationMb = options.youngGenerationMb ?? WORKER_YOUNG_GENERATION_MB;
    this.jobsPerWorker = options.jobsPerWorker ?? Infinity;
    this.timeoutMs = options.timeoutMs;
    this.inline = options.inline ?? true;
    this.name = options.name ?? 'parse';
    if (this.timeoutMs !== undefined) {
      this.watchdog = setInterval(() => this.checkTimes(), Math.max(10, Math.min(1000, this.timeoutMs / 4)));
      this.watchdog.unref();
    }
    this.size = size;
    this.entry = options.entry;
    if (!options.lazy) this.start();
  }

  /** Starts the workers (once): at construction, or at the first job of a lazy pool. */
  private start(): void {
    if (this.started) return;
    this.started = true;
    const size = this.size;
    this.starting = size;
    if (size > 0)
      void workerCode(this.module, this.entry, this.log)
        .then((code) => {
          this.code = code;
          if (!this.closed) for (let i = 0; i < size; i++) this.slots.push(this.spawn(code));
        })
        .catch((e: unknown) =>
          this.log.warn(`${this.name} workers could not start (${(e as Error).message})${this.inline ? '; parsing on the main thread' : ''}`),
        )
        .finally(() => {
          this.starting = 0;
          this.notifyReady();
        });
  }

  parse(job: ParseJob): Promise<Extracted> {
    this.start();
    // Workers take a moment to start; the first pages of a crawl are parsed inline meanwhile
    // rather than waiting in a queue (unless the pool may not parse inline: then they wait).
    const ready = this.closed ? [] : this.slots.filter((s) => s.ready);
    if (ready.length === 0) {
      if (!this.inline) return this.afterReady(job);
      // (Workers on their way: an extractor may leave a job to them. None to come: parsed here.)
      if (this.starting === 0 && this.slots.length === 0) return this.inlineParse(job);
      return this.inlineParse({ ...job, whileWorkersStart: true }).catch((e: unknown) => {
        if (!(e instanceof LeaveToWorker)) throw e;
        this.parsed.inline--;
        return this.leftToWorkers(job);
      });
    }
    this.parsed.inWorkers++;
    // The least busy worker takes the job (if it may take one more).
    const slot = ready.reduce((a, b) => (b.pending.size < a.pending.size ? b : a));
    return new Promise<Extracted>((resolve, reject) => {
      if (slot.pending.size < this.jobsPerWorker) this.send(slot, { job, resolve, reject });
      else this.waiting.push({ job, resolve, reject });
    });
  }

  private send(slot: Slot, w: Waiting): void {
    const id = this.nextId++;
    slot.pending.set(id, w);
    // Copy the body into its own buffer so it can be transferred (undici's chunks share slabs).
    const body = new Uint8Array(w.job.body);
    slot.worker.postMessage({ id, job: { ...w.job, body } }, [body.buffer]);
  }

  /** Hands waiting jobs to the ready workers that may take more. */
  private dispatch(): void {
    for (const slot of this.slots) {
      while (this.waiting.length && slot.ready && slot.pending.size < this.jobsPerWorker) this.send(slot, this.waiting.shift()!);
    }
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
    clearInterval(this.watchdog);
    this.starting = 0;
    this.notifyReady();
    // Jobs waiting or in a worker's hands are refused: a stopped worker never answers them.
    const stopped = () => new ParseFailure(`the ${this.name} workers were stopped`, 'unavailable');
    for (const w of this.waiting.splice(0)) w.reject(stopped());
    for (const slot of this.slots) {
      for (const p of slot.pending.values()) p.reject(stopped());
      slot.pending.clear();
    }
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }

  private inlineParse(job: ParseJob): Promise<Extracted> {
    this.parsed.inline++;
    return (this.extract ??= this.loadExtract()).then((fn) => fn(job));
  }

  /** A job the extractor left to a worker (LeaveToWorker): to one once they are ready, inline if none could start. */
  private async leftToWorkers(job: ParseJob): Promise<Extracted> {
    await this.ready();
    return this.slots.some((s) => s.ready) || this.closed ? this.parse(job) : this.inlineParse(job);
  }

  /** A job for a pool that never parses inline, once its workers are ready; refused if none can start. */
  private async afterReady(job: ParseJob): Promise<Extracted> {
    await this.ready();
    if (this.closed) throw new ParseFailure(`the ${this.name} workers were stopped`, 'unavailable');
    if (!this.slots.some((s) => s.ready)) throw new ParseFailure(`the ${this.name} workers could not start`, 'unavailable');
    return this.parse(job);
  }

  /** The watchdog: a worker on the same job for longer than timeoutMs is stopped, and the job fails. */
  private checkTimes(now = performance.now()): void {
    for (const slot of [...this.slots]) {
      const id = Atomics.load(slot.current, 0);
      if (id !== slot.watched.id) slot.watched = { id, since: now };
      else if (id >= 0 && now - slot.watched.since > this.timeoutMs!) {
        const seconds = this.timeoutMs! >= 1000 ? `${(this.timeoutMs! / 1000).toLocaleString('en')} s` : `${this.timeoutMs} ms`;
        this.replace(
          slot,
          new Error(`took longer than ${seconds}`),
          new ParseFailure(`timeout: extraction took longer than ${seconds}; the worker was stopped`, 'timeout'),
        );
      }
    }
  }

  private notifyReady(): void {
    if (this.closed || (this.starting === 0 && this.slots.every((s) => s.ready))) for (const w of this.readyWaiters.splice(0)) w();
  }

  private spawn(code: URL): Slot {
    // The job the worker is parsing (-1: none), written by the worker (worker.ts).
    const current = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
    const options = {
      workerData: { module: this.module.href, current, config: this.config },
      resourceLimits: { maxYoungGenerationSizeMb: this.youngGenerationMb, maxOldGenerationSizeMb: this.maxHeapMb },
    };
    let worker: Worker;
    try {
      // The parent's loader flags (--import tsx) would load tsx into every worker for nothing.
      worker = new Worker(code, { ...options, execArgv: withoutLoaders(process.execArgv) });
    } catch {
      // A flag that a worker refuses (--trace-gc, say): start it with none.
      worker = new Worker(code, { ...options, execArgv: [] });
    }
    worker.unref();
    const slot: Slot = { worker, pending: new Map(), ready: false, current, watched: { id: -1, since: 0 } };
    worker.on('message', (msg: { id: number; result?: Extracted; error?: string; ready?: true }) => {
      if (msg.ready) {
        slot.ready = true;
        this.notifyReady();
        this.dispatch();
        return;
      }
      const p = slot.pending.get(msg.id);
      if (!p) return;
      slot.pending.delete(msg.id);
      if (msg.error !== undefined) p.reject(new Error(msg.error));
      else p.resolve(msg.result!);
      this.dispatch();
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
  private replace(slot: Slot, e: Error, failure?: ParseFailure): void {
    const i = this.slots.indexOf(slot);
    if (i < 0 || this.closed) return;
    // (Stopped by the watchdog: its exit, later, finds it replaced already.)
    if (failure) void slot.worker.terminate();
    const working = Atomics.load(slot.current, 0);
    const culprit = slot.pending.get(working);
    const others = [...slot.pending.values()].filter((p) => p !== culprit);
    slot.pending.clear();
    if (!culprit) this.failures++;
    if (this.failures >= MAX_FAILURES) {
      this.log.warn(
        `${this.name} worker failed (${e.message}); ${this.failures} failures: ` +
          `${this.inline ? 'parsing on the main thread from now on' : 'no more workers are started'}`,
      );
      this.slots.splice(i, 1);
      void slot.worker.terminate();
      this.notifyReady();
      // Jobs waiting for a worker go the way of new ones: to another worker, inline, or refused.
      if (!this.slots.length) for (const w of this.waiting.splice(0)) this.parse(w.job).then(w.resolve, w.reject);
    } else {
      this.log.warn(
        `${this.name} worker ${failure ? 'stopped' : 'failed'}${culprit ? ` while parsing ${culprit.job.url}` : ''} (${e.message}); starting a new one`,
      );
      this.slots[i] = this.spawn(this.code!);
    }
    culprit?.reject(failure ?? new ParseFailure(`the ${this.name} worker died while parsing it (${e.message})`, 'died'));
    for (const p of others) this.parse(p.job).then(p.resolve, p.reject);
    // (The new worker takes waiting jobs once it is ready.)
  }
}

/**
 * A page that could not be parsed: parsing it killed the worker (memory, or a bug), took longer
 * than the pool's limit, or no worker could take it.
 */
export class ParseFailure extends Error {
  override readonly name = 'ParseFailure';
  constructor(
    message: string,
    readonly why: 'died' | 'timeout' | 'unavailable' = 'died',
  ) {
    super(message);
  }
}
