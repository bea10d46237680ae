/** The change log in SQLite: AUTOINCREMENT keeps the last sequence number after the rows are pruned. */
import type { Change } from '../../model/index.ts';
import type { ChangeLog } from '../changes.ts';
import type { Db } from './db.ts';

export class SqliteChangeLog implements ChangeLog {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      log: db.prepare('INSERT INTO changes (doc_id, op) VALUES (?, ?)'),
      since: db.prepare('SELECT seq, doc_id AS docId, op FROM changes WHERE seq > ? ORDER BY seq'),
      lastSeq: db.prepare("SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0)").pluck(),
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

  async prune(seq: number): Promise<void> {
    this.stmts.prune.run(seq);
  }
}
