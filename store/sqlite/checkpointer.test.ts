// The writer's WAL checkpoints on a worker thread (checkpointer.ts): the WAL stays bounded, the
// data reaches the database file, a worker that cannot run brings SQLite's own checkpoints back,
// and close leaves no thread behind.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, statSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { logTo } from '../../lib/log.ts';
import { doc, T0, taken } from '../contract/harness.ts';
import { DB_FILE, openSqliteStore, type SqliteStore } from './store.ts';

const tmp = () => mkdtempSync(join(tmpdir(), 'trawl-checkpoint-'));
const MB = 1024 * 1024;
const walSize = (file: string) => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);
const countIn = (file: string) => {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return db.prepare('SELECT count(*) AS n, sum(length(text)) AS chars FROM documents').get() as { n: number; chars: number };
  } finally {
    db.close();
  }
};

/**
 * Stores `pages` documents of `chars` characters through the crawler's path (take, commit the fetch), `perGroup` to a
 * group commit, `pauseMs` between two pages of a group (as a crawl's pages arrive, its group transaction open); the
 * largest WAL seen after each.
 */
async function crawlInto(store: SqliteStore, pages: number, chars: number, perGroup: number, pauseMs = 0): Promise<number> {
  let largest = 0;
  for (let p = 0; p < pages; p += perGroup) {
    for (let i = p; i < Math.min(pages, p + perGroup); i++) {
      if (pauseMs > 0 && i > p) await new Promise((r) => setTimeout(r, pauseMs));
      const q = await taken(store, `http://e.org/page/${i}`, T0);
      // (Each page's text differs, so no page is taken for another's copy.)
      await store.commitFetch(
        { id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, `${i} ${'lorem ipsum '.repeat(chars / 12)}`) } },
        T0,
      );
    }
    await store.sync();
    largest = Math.max(largest, walSize(store.location));
    // A turn of the event loop, as the crawler gives between pages: the worker's reports arrive.
    await new Promise((r) => setImmediate(r));
  }
  return largest;
}

describe('the SQLite writer\u2019s checkpointer', () => {
  it('keeps the WAL bounded while 40 MB of pages are written, and leaves every page in the database file at close', async () => {
    const dir = tmp();
    const file = join(dir, DB_FILE);
    const store = openSqliteStore(dir, { checkpoints: { checkMs: 10, restartBytes: 1 * MB, hardLimitBytes: 8 * MB } });
    const pages = 640;
    try {
      assert.equal(await store.checkpointer!.ready, true);
      assert.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 0, 'the writer leaves checkpoints to the worker');
      // 256 KB a group, a group every 24 ms or more: at most ~10 MB/s, three times rust-doc's crawl
      // (~3 MB/s). Unpaced, this writer reaches 40 MB/s and more, and one slow checkpoint of the
      // worker's (a disk busy with other work: CI saw 27.6 MB) outgrows any bound.
      const largest = await crawlInto(store, pages, 64 * 1024, 4, 8);
      // The WAL does not grow with the data: past 8 MB the writer checkpoints all of it itself as soon
      // as the worker's checkpoint in progress ends — during which the writer may add a few MB more
      // (a second's stall of the disk: 10 MB). Unbounded, it would reach ~40 MB.
      assert.ok(largest < 20 * MB, `the WAL grew to ${(largest / MB).toFixed(1)} MB`);
      assert.ok(store.checkpointer!.figures.byWorker > 0, 'the worker copied the WAL');
      assert.ok(store.checkpointer!.figures.restarts + store.checkpointer!.figures.overLimit > 0, 'the writer made the WAL start over');
      assert.equal(countIn(file).n, pages, 'a new reader sees every page while the writer is open');
    } finally {
      await store.close();
    }
    assert.equal(store.checkpointer!.live, false, 'no thread is left after close');
    assert.equal(walSize(file), 0, 'nothing is left in the WAL');
    const stored = countIn(file);
    assert.equal(stored.n, pages);
    assert.ok(stored.chars > 40_000_000, `${stored.chars} characters stored`);
    assert.ok(statSync(file).size > 40_000_000, 'the pages are in the database file');
  });

  it('is for a writer only: a reader opens the database without one', async () => {
    const dir = tmp();
    const writer = openSqliteStore(dir, { checkpoints: {} });
    const reader = openSqliteStore(dir, { readOnly: true, checkpoints: {} });
    try {
      assert.equal(reader.checkpointer, undefined);
      assert.notEqual(writer.checkpointer, undefined);
    } finally {
      await reader.close();
      await writer.close();
    }
  });

  it('brings SQLite\u2019s automatic checkpoint back, and says so, when the worker cannot start', async () => {
    const dir = tmp();
    const logs: string[] = [];
    const store = openSqliteStore(dir, {
      checkpoints: { log: logTo((m) => logs.push(m)), workerUrl: new URL('./no-such-checkpoint-worker.mjs', import.meta.url) },
    });
    try {
      assert.equal(await store.checkpointer!.ready, false);
      assert.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 1000);
      assert.equal(logs.filter((m) => /checkpointer thread failed/.test(m)).length, 1, logs.join('\n'));
      // 8 MB written: SQLite's own checkpoints (every ~4 MB) keep the WAL from growing with it.
      const largest = await crawlInto(store, 128, 64 * 1024, 4);
      assert.ok(largest < 6 * MB, `the WAL grew to ${(largest / MB).toFixed(1)} MB`);
      assert.equal(countIn(join(dir, DB_FILE)).n, 128);
    } finally {
      await store.close();
    }
    assert.equal(store.checkpointer!.live, false);
  });

  it('brings SQLite\u2019s automatic checkpoint back when the worker cannot open the database (its file deleted)', async () => {
    const dir = tmp();
    const logs: string[] = [];
    const store = openSqliteStore(dir, { checkpoints: { log: logTo((m) => logs.push(m)) } });
    // (Before the worker's thread has started: the writer's connection keeps the file it opened.)
    unlinkSync(join(dir, DB_FILE));
    try {
      assert.equal(await store.checkpointer!.ready, false);
      assert.equal(store.db.pragma('wal_autocheckpoint', { simple: true }), 1000);
      assert.match(logs.join('\n'), /checkpointer thread failed \(.*\); WAL checkpoints run on the main thread again/);
      const q = await taken(store, 'http://e.org/still-written');
      await store.commitFetch({ id: q.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc: doc(q.id, 'written') } }, T0);
      await store.sync();
      assert.equal((await store.documents.get(q.id))?.text, 'written', 'the writer goes on');
    } finally {
      await store.close();
    }
  });

  it('lets a process exit by itself once the store is closed, its worker ended and the WAL gone', async () => {
    const dir = tmp();
    const child = spawn(process.execPath, ['--import', 'tsx', new URL('./checkpoint-child.ts', import.meta.url).pathname, dir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(code, 0, err);
    assert.equal(out, 'checkpointer running\nclosed; worker ended\n');
    assert.equal(existsSync(join(dir, `${DB_FILE}-wal`)), false);
    const db = new Database(join(dir, DB_FILE), { readonly: true, fileMustExist: true });
    assert.equal((db.prepare('SELECT count(*) AS n FROM urls').get() as { n: number }).n, 20 * 200, 'every URL is in the database file');
    db.close();
  });
});
