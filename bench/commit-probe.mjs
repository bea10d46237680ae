/**
 * bench/sqlite-commits' probe inside the crawl it measures (loaded with `node --import` before the
 * compiled trawl.js, so the product carries no bench code): how long the writer's thread waits in
 * SQLite. It times every COMMIT of the process's better-sqlite3 connections — noting those during
 * which the database file changed, which in WAL mode only a checkpoint does — and every
 * `wal_checkpoint` pragma run on this thread, and writes a summary (JSON) to $TRAWL_COMMIT_PROBE at exit.
 */
import { statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const out = process.env.TRAWL_COMMIT_PROBE;
// (The main thread's waits only: a worker thread — the checkpointer's, a parse worker — loads this too.)
if (out && isMainThread) {
  // (The better-sqlite3 the product loads: resolved from the script being run, trawl.js.)
  const Database = createRequire(process.argv[1])('better-sqlite3');
  const Statement = new Database(':memory:').prepare('SELECT 1').constructor;
  const commits = []; // [ms, changed the database file]
  const checkpoints = []; // ms
  let maxWal = 0;
  const size = (file) => {
    try {
      const s = statSync(file);
      return `${s.size}:${s.mtimeMs}`;
    } catch {
      return '';
    }
  };
  const timed = (db, fn) => {
    const before = size(db.name);
    const t0 = performance.now();
    try {
      return fn();
    } finally {
      const ms = performance.now() - t0;
      commits.push([ms, size(db.name) !== before]);
      try {
        maxWal = Math.max(maxWal, statSync(`${db.name}-wal`).size);
      } catch {}
    }
  };
  const { exec, pragma } = Database.prototype;
  Database.prototype.exec = function (sql) {
    return sql === 'COMMIT' ? timed(this, () => exec.call(this, sql)) : exec.call(this, sql);
  };
  Database.prototype.pragma = function (source, options) {
    if (!/wal_checkpoint/.test(source)) return pragma.call(this, source, options);
    const t0 = performance.now();
    try {
      return pragma.call(this, source, options);
    } finally {
      checkpoints.push(performance.now() - t0);
    }
  };
  const { run } = Statement.prototype;
  Statement.prototype.run = function (...args) {
    return this.source === 'COMMIT' ? timed(this.database, () => run.apply(this, args)) : run.apply(this, args);
  };
  const summary = (ms) => {
    const v = [...ms].sort((a, b) => a - b);
    const at = (p) => v[Math.min(v.length - 1, Math.floor(v.length * p))] ?? 0;
    return { n: v.length, sum: v.reduce((a, b) => a + b, 0), p50: at(0.5), p99: at(0.99), max: v.at(-1) ?? 0 };
  };
  process.on('exit', () => {
    const figures = {
      checkpointing: summary(commits.filter((c) => c[1]).map((c) => c[0])),
      plain: summary(commits.filter((c) => !c[1]).map((c) => c[0])),
      checkpoints: summary(checkpoints),
      maxWal,
    };
    writeFileSync(out, `${JSON.stringify(figures)}\n`);
  });
}
