/**
 * WAL checkpoints off the main thread. In WAL mode with `synchronous = NORMAL` a commit appends to
 * the WAL without an fsync; a checkpoint copies the WAL's pages into the database file and syncs
 * it. SQLite's automatic checkpoint runs inside the COMMIT that crosses 1,000 pages (~4 MB), on the
 * writer's thread — the crawl's main thread, which also answers searches: on rust-doc, 87 such
 * commits in a 57 s crawl, 9–57 ms each, waiting on the disk (issue 23).
 *
 * Here the writer's connection has `wal_autocheckpoint = 0`, and a worker thread with its own
 * connection (checkpoint-worker.mjs) runs a PASSIVE checkpoint every CHECK_MS when the WAL was
 * written since its last one; PASSIVE never waits for the writer nor makes it wait. What the
 * worker cannot do is done here:
 *
 * - Starting the WAL over. SQLite rewinds it at a write only if the writer's transaction began
 *   once every frame was copied; the group commit keeps a transaction open almost all the time, so
 *   a worker's checkpoint practically never ends between two. Once the worker reports a WAL longer
 *   than RESTART_BYTES, the writer checkpoints between two transactions itself: a PASSIVE
 *   checkpoint of what was committed since the worker's (a group commit or two), after which its
 *   next transaction starts the WAL over. The WAL's file stays near RESTART_BYTES.
 * - Bounding the WAL when even that cannot start it over (a reader holding an old snapshot): past
 *   `hardLimitBytes` the writer checkpoints it (TRUNCATE, not waiting for readers: what they hold
 *   is copied later), and says so in the log the first time.
 * - A worker that fails (cannot start, cannot open the file, any error) is logged once and the
 *   writer's automatic checkpoint comes back: checkpoints on the main thread, as before.
 * - close() stops the worker and waits for it to end; the store then closes its connection, the
 *   last, which copies what is left into the database file and removes the WAL.
 */
import { existsSync, statSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { silentLog, type Log } from '../../lib/log.ts';
import type { Db } from './db.ts';

/** Set by the build (scripts/build.ts) in the compiled CLI; undeclared when the TypeScript runs through tsx. */
declare const TRAWL_BUILD: string | undefined;

/** How often the worker looks whether the WAL was written (a checkpoint copies at most this long's writes). */
const CHECK_MS = 500;

/**
 * The WAL's length at which the writer makes it start over (above). Each time costs the main
 * thread a checkpoint of what was committed since the worker's (tens to hundreds of KB, not the
 * ~4 MB of SQLite's automatic one); at 32 MB, rust-doc's crawl (~3 MB of WAL a second) does it
 * every ~10 s instead of 1.5 times a second.
 */
const RESTART_BYTES = 32 * 1024 * 1024;

/**
 * The WAL file's size past which the writer checkpoints it all itself. Four times RESTART_BYTES:
 * reached only when the WAL cannot start over — a reader's old snapshot, or a worker that cannot
 * keep up.
 */
const HARD_LIMIT_BYTES = 4 * RESTART_BYTES;

/** SQLite's own automatic checkpoint, restored when the worker fails. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

/** How long close() waits for the worker's current checkpoint before it stops the thread. */
const STOP_WAIT_MS = 10_000;

export type CheckpointerOptions = {
  /** Where a failure, or a WAL past its limit, is told. */
  readonly log?: Log;
  /** The worker's script (tests: one that cannot start); default: the build's file, else checkpoint-worker.mjs. */
  readonly workerUrl?: URL;
  /** How often the worker looks at the WAL (default CHECK_MS). */
  readonly checkMs?: number;
  /** The WAL's length at which the writer makes it start over (default RESTART_BYTES). */
  readonly restartBytes?: number;
  /** The WAL's size past which the writer checkpoints itself (default HARD_LIMIT_BYTES). */
  readonly hardLimitBytes?: number;
};

/** What the checkpointer did, for the tests and the log. */
export type CheckpointFigures = {
  /** Checkpoints the worker made that found frames to copy. */
  readonly byWorker: number;
  /** Checkpoints the writer made itself so that the WAL starts over (RESTART_BYTES). */
  readonly restarts: number;
  /** Checkpoints the writer made itself because the WAL's file passed its hard limit. */
  readonly overLimit: number;
};

type State = 'starting' | 'running' | 'failed' | 'closed';

type WorkerMessage = { ready?: true; error?: string; checkpointed?: { log: number } };

/** The worker's file: the build's beside the compiled CLI, else the source beside this one. */
function defaultWorkerUrl(): URL {
  if (typeof TRAWL_BUILD === 'string') {
    const built = new URL('./workers/checkpoint-worker.js', import.meta.url);
    if (existsSync(built)) return built;
  }
  return new URL('./checkpoint-worker.mjs', import.meta.url);
}

export class WalCheckpointer {
  private state: State = 'starting';
  private readonly worker: Worker | undefined;
  private readonly exited: Promise<void>;
  private readonly log: Log;
  private readonly hardLimit: number;
  private readonly restartFrames: number;
  private readonly wal: string;
  /** The worker reported a WAL longer than RESTART_BYTES: the writer checkpoints at its next call between two transactions. */
  private restartDue = false;
  /** The WAL's size past which the writer checkpoints next (raised after a checkpoint that readers kept from finishing). */
  private limit: number;
  private toldLimit = false;
  private held = false;
  private byWorker = 0;
  private restarts = 0;
  private overLimit = 0;
  private alive = false;
  private settle!: (running: boolean) => void;
  /** Resolves to true once the worker checkpoints (the writer's automatic checkpoint is then off), false if it failed. */
  readonly ready: Promise<boolean>;

  constructor(
    private readonly db: Db,
    file: string,
    options: CheckpointerOptions = {},
  ) {
    this.log = options.log ?? silentLog;
    this.hardLimit = options.hardLimitBytes ?? HARD_LIMIT_BYTES;
    this.limit = this.hardLimit;
    this.restartFrames = Math.ceil((options.restartBytes ?? RESTART_BYTES) / (db.pragma('page_size', { simple: true }) as number));
    this.wal = `${file}-wal`;
    this.ready = new Promise((resolve) => (this.settle = resolve));
    let exit!: () => void;
    this.exited = new Promise((resolve) => (exit = resolve));
    try {
      // (No loader flags: the worker's file is JavaScript, and tsx in a thread costs ~0.3 s of CPU.)
      this.worker = new Worker(options.workerUrl ?? defaultWorkerUrl(), { workerData: { file, intervalMs: options.checkMs ?? CHECK_MS }, execArgv: [] });
    } catch (e) {
      exit();
      this.fail(e as Error);
      return;
    }
    this.alive = true;
    // A store left open must not keep the process alive: close() waits for the thread instead.
    this.worker.unref();
    this.worker.on('message', (m: WorkerMessage) => this.onMessage(m));
    this.worker.on('error', (e) => this.fail(e));
    this.worker.on('exit', (code) => {
      this.alive = false;
      exit();
      if (this.state === 'starting' || this.state === 'running') this.fail(new Error(`the thread ended (exit code ${code})`));
    });
  }

  /** Whether the worker thread is running (false once it failed, and once close() resolved). */
  get live(): boolean {
    return this.alive;
  }

  /** What the checkpointer did so far. */
  get figures(): CheckpointFigures {
    return { byWorker: this.byWorker, restarts: this.restarts, overLimit: this.overLimit };
  }

  /**
   * Called by the writer between two transactions: the checkpoint that lets the WAL start over,
   * when due, and past the WAL's hard limit, a checkpoint of all of it. (Its size is looked at
   * after every commit — a stat, microseconds, for a commit every 50 ms or more — and in any state
   * but closed: whatever keeps the WAL from starting over, the automatic checkpoint could not
   * restart it either.)
   */
  afterCommit(): void {
    if (this.state === 'closed' || this.db.inTransaction) return;
    if (this.restartDue && this.state === 'running') {
      this.restartDue = false;
      this.restarts++;
      // (Not waiting: if the worker is checkpointing right now, its next report asks again.)
      checkpointNow(this.db, 'PASSIVE', 0);
    }
    let size: number;
    try {
      size = statSync(this.wal).size;
    } catch {
      return; // (No WAL: nothing to bound.)
    }
    if (size <= this.limit) return;
    if (!this.toldLimit) {
      this.toldLimit = true;
      this.log.warn(
        `crawl database: the WAL reached ${mb(size)} (limit ${mb(this.hardLimit)}): ` +
          'checkpointing it on the main thread (a reader holding an old snapshot, or the checkpointer falling behind); told once',
      );
    }
    this.overLimit++;
    const [row] = checkpointNow(this.db, 'TRUNCATE', 0);
    if (row && row.busy === 0) {
      this.limit = this.hardLimit;
      this.hold(false);
    } else if (row && row.log < 0) {
      // The worker was checkpointing (SQLite says busy with no frame counts, and lets one
      // connection at a time checkpoint without waiting): it begins no other until the writer's.
      this.hold(true);
    } else {
      // Readers kept it from finishing (what they hold is copied later): not again before the
      // WAL grows by half the limit more.
      this.limit = size + this.hardLimit / 2;
      this.hold(false);
    }
  }

  /** Whether the worker may begin checkpoints: not while the writer waits to checkpoint the WAL itself. */
  private hold(held: boolean): void {
    if (held !== this.held && this.state === 'running') this.worker?.postMessage({ hold: held });
    this.held = held;
  }

  /** Stops the worker and waits for it to end (its current checkpoint finishes first, up to STOP_WAIT_MS). */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.settle(false);
    if (!this.worker) return;
    this.worker.postMessage({ stop: true });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), STOP_WAIT_MS)));
    if ((await Promise.race([this.exited, late])) === 'late') {
      this.log.warn(`crawl database: the checkpointer did not end within ${STOP_WAIT_MS / 1000} s; stopped`);
      await this.worker.terminate();
    }
    clearTimeout(timer);
    await this.exited;
  }

  private onMessage(m: WorkerMessage): void {
    if (m.ready && this.state === 'starting') {
      this.state = 'running';
      // From now on the worker copies the WAL; the writer's commits only append to it.
      this.db.pragma('wal_autocheckpoint = 0');
      this.settle(true);
    } else if (m.checkpointed) {
      this.byWorker++;
      if (m.checkpointed.log >= this.restartFrames) this.restartDue = true;
    } else if (m.error !== undefined) {
      this.fail(new Error(m.error));
    }
  }

  /** Logged once; the writer's automatic checkpoint comes back, the thread is stopped. */
  private fail(e: Error): void {
    if (this.state === 'failed' || this.state === 'closed') return;
    this.state = 'failed';
    this.settle(false);
    this.log.warn(`crawl database: the checkpointer thread failed (${e.message}); WAL checkpoints run on the main thread again`);
    if (this.db.open) this.db.pragma(`wal_autocheckpoint = ${SQLITE_AUTOCHECKPOINT_PAGES}`);
    void this.worker?.terminate();
  }
}

/** One checkpoint on `db`'s thread, waiting at most `busyMs` for readers (then the pragma's row says busy). */
export function checkpointNow(db: Db, mode: 'PASSIVE' | 'TRUNCATE', busyMs: number): { busy: number; log: number; checkpointed: number }[] {
  const before = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma(`busy_timeout = ${busyMs}`);
  try {
    return db.pragma(`wal_checkpoint(${mode})`) as { busy: number; log: number; checkpointed: number }[];
  } finally {
    db.pragma(`busy_timeout = ${before}`);
  }
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
