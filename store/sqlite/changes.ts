/**
 * The change log in SQLite: AUTOINCREMENT keeps the last sequence number after the rows are pruned.
 * One process holds a SQLite store (the data directory's lock): the readers that hold the log are
 * that process's, kept in RAM, and a reopening forgets them (a reader holds again at each flush).
 */
import { resolve } from 'node:path';
import type { Change } from '../../model/index.ts';
import type { ChangeLog } from '../changes.ts';
import type { Db } from './db.ts';

/** How often a watcher looks for new changes (another process — trawl start — may write them). */
const WATCH_POLL_MS = 500;

export class SqliteChangeLog implements ChangeLog {
  private readonly stmts;
  /** Readers: the sequence each holds from, and when it was last heard from. */
  private readonly readers = new Map<string, { seq: number; at: number }>();

  constructor(
    db: Db,
    private readonly file: string,
  ) {
    this.stmts = {
      log: db.prepare('INSERT INTO changes (doc_id, op) VALUES (?, ?)'),
      since: db.prepare('SELECT seq, doc_id AS docId, op FROM changes WHERE seq > ? ORDER BY seq'),
      lastSeq: db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0)").pluck(),
      first: db.prepare('SELECT min(seq) FROM changes').pluck(),
      prune: db.prepare('DELETE FROM changes WHERE seq <= ?'),
    };
  }

  /** Appends a change (in the caller's transaction); returns its sequence number. */
  log(docId: number, op: Change['op']): number {
    return Number(this.stmts.log.run(docId, op).lastInsertRowid);
  }

  async since(seq: number): Promise<Change[]> {
    return this.stmts.since.all(seq) as Change[];
  }

  async lastSeq(): Promise<number> {
    return this.stmts.lastSeq.get() as number;
  }

  /** Sequence numbers have no gaps (a rolled-back insert gives its number back): what is gone is what lies before the first row kept. */
  async prunedThrough(): Promise<number> {
    const first = this.stmts.first.get() as number | null;
    return first === null ? await this.lastSeq() : first - 1;
  }

  /** The database file: one data directory's crawl. */
  async identity(): Promise<string> {
    return `sqlite:${resolve(this.file)}`;
  }

  async hold(reader: string, seq: number, now: number): Promise<number> {
    this.readers.set(reader, { seq, at: now });
    return this.prunedThrough();
  }

  async prune(seq: number, liveSince = -Infinity): Promise<number> {
    let bound = seq;
    for (const [reader, r] of this.readers) {
      if (r.at < liveSince) this.readers.delete(reader);
      else bound = Math.min(bound, r.seq);
    }
    this.stmts.prune.run(bound);
    return this.prunedThrough();
  }

  async watch(onChange: () => void): Promise<() => Promise<void>> {
    let last = await this.lastSeq();
    const timer = setInterval(() => {
      const now = this.stmts.lastSeq.get() as number;
      if (now === last) return;
      last = now;
      onChange();
    }, WATCH_POLL_MS);
    timer.unref();
    return async () => clearInterval(timer);
  }
}
