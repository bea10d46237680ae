/** Where each URL's latest archived response is, in SQLite (a table of its own, created with the schema). */
import type { ArchiveRef, ArchiveStore } from '../archive.ts';
import type { Statement } from 'better-sqlite3';
import type { Db } from './db.ts';

type Row = { file: string; offset: number; length: number; record_id: string; date: string; digest: string | null };

export class SqliteArchiveStore implements ArchiveStore {
  private readonly stmts: { latest: Statement<[number]>; put: Statement<[number, string, number, number, string, string, string | null]> } | undefined;

  constructor(db: Db) {
    // (A database from before archiving, opened read-only, has no table: nothing was archived.)
    const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'archive'`).get() !== undefined;
    this.stmts = exists
      ? {
          latest: db.prepare('SELECT file, offset, length, record_id, date, digest FROM archive WHERE url_id = ?'),
          put: db.prepare(
            `INSERT INTO archive (url_id, file, offset, length, record_id, date, digest) VALUES (?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(url_id) DO UPDATE SET file = excluded.file, offset = excluded.offset, length = excluded.length, ` +
              `record_id = excluded.record_id, date = excluded.date, digest = excluded.digest`,
          ),
        }
      : undefined;
  }

  async latest(urlId: number): Promise<ArchiveRef | undefined> {
    const r = this.stmts?.latest.get(urlId) as Row | undefined;
    return r && { file: r.file, offset: r.offset, length: r.length, recordId: r.record_id, date: r.date, digest: r.digest };
  }

  async put(urlId: number, ref: ArchiveRef): Promise<void> {
    if (!this.stmts) throw new Error('the crawl database has no archive table (opened read-only)');
    this.stmts.put.run(urlId, ref.file, ref.offset, ref.length, ref.recordId, ref.date, ref.digest);
  }
}
