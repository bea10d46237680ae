// The checkpointer's thread (checkpointer.ts): its own connection to the crawl database, which
// copies the WAL's pages into the database file — a disk wait that SQLite's automatic checkpoint
// would make the writer's thread (the one that answers searches) sit through.
//
// Plain JavaScript, so that it starts the same way from the source tree (tests, tsx) and from the
// build (scripts/build.ts bundles it into dist/workers/): Node 20 applies no loader to a worker's
// entry module, and tsx in a worker would cost ~0.3 s of CPU at every start.
//
// Messages to the parent: { ready: true } once the database is open and checkpointed once;
// { checkpointed: { log } } after each checkpoint of a WAL that holds frames (log: how many);
// { error } when anything throws (then the thread ends: the parent checkpoints itself again).
// From the parent: { stop: true } — the thread closes its connection and ends; { hold: true|false }
// — no checkpoint is begun while held (the writer checkpoints the WAL itself: SQLite lets one
// connection at a time checkpoint, and does not wait for the other).
import { statSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';

/** @type {{ file: string, intervalMs: number }} */
const { file, intervalMs } = workerData;
const wal = `${file}-wal`;

/** @type {import('better-sqlite3').Database | undefined} */
let db;
/** @type {NodeJS.Timeout | undefined} */
let timer;
/** The WAL file's size and time of change when the last checkpoint began: frames written since change them. */
let seen = '';
/** The writer asked for the checkpoint lock (see { hold }). */
let held = false;

/** The WAL's size and mtime, as one comparable string ('' when there is none: nothing to copy). */
function walState() {
  try {
    const s = statSync(wal, { bigint: true });
    return `${s.size}:${s.mtimeNs}`;
  } catch {
    return '';
  }
}

/**
 * A PASSIVE checkpoint when the WAL was written since the last one: it copies what it can without
 * waiting for the writer or a reader (the writer never waits for it either), and SQLite starts the
 * WAL over at the writer's next transaction once every frame is copied and no reader is behind.
 */
function checkpoint(force) {
  if (held) return;
  const state = walState();
  if (!force && (state === '' || state === seen)) return;
  // (Taken before: what is written during the checkpoint changes it, and is copied at the next tick.)
  seen = state;
  const [row] = /** @type {{ busy: number, log: number, checkpointed: number }[]} */ (db.pragma('wal_checkpoint(PASSIVE)'));
  if (row && row.log > 0) parentPort.postMessage({ checkpointed: { log: row.log } });
}

function stop() {
  clearInterval(timer);
  timer = undefined;
  parentPort.off('message', onMessage);
  try {
    db?.close();
  } catch {
    // (Closing after a failure: nothing more to report.)
  }
}

function fail(e) {
  parentPort.postMessage({ error: e instanceof Error ? e.message : String(e) });
  stop();
}

function onMessage(message) {
  if (message?.stop) stop();
  else if (message && typeof message.hold === 'boolean') held = message.hold;
}

parentPort.on('message', onMessage);
try {
  db = new Database(file, { fileMustExist: true });
  // (Never blocks in PASSIVE mode; bounds how long opening waits for the writer's lock.)
  db.pragma('busy_timeout = 1000');
  // As the writer's: the database file is synced after each checkpoint, the WAL before it.
  db.pragma('synchronous = NORMAL');
  checkpoint(true);
  parentPort.postMessage({ ready: true });
  timer = setInterval(() => {
    try {
      checkpoint(false);
    } catch (e) {
      fail(e);
    }
  }, intervalMs);
} catch (e) {
  fail(e);
}
