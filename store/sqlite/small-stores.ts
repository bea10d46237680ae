/** The small stores in SQLite: seeds, rejection counts and the robots.txt cache. */
import type { RejectionStore } from '../rejections.ts';
import type { RobotsEntry, RobotsStore } from '../robots.ts';
import type { SeedStore } from '../seeds.ts';
import type { Db } from './db.ts';

export class SqliteSeedStore implements SeedStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      add: db.prepare('INSERT INTO seeds (url, added_at) VALUES (?, ?) ON CONFLICT(url) DO NOTHING'),
      all: db.prepare('SELECT url FROM seeds ORDER BY added_at, url').pluck(),
    };
  }

  async add(urls: readonly string[], now: number): Promise<void> {
    this.db.transaction(() => {
      for (const u of urls) this.stmts.add.run(u, now);
    })();
  }

  async all(): Promise<string[]> {
    return this.stmts.all.all() as string[];
  }
}

export class SqliteRejectionStore implements RejectionStore {
  private readonly stmts;

  constructor(private readonly db: Db) {
    this.stmts = {
      count: db.prepare('INSERT INTO rejections (reason, count) VALUES (?, ?) ON CONFLICT(reason) DO UPDATE SET count = count + excluded.count'),
      all: db.prepare('SELECT reason, count FROM rejections ORDER BY count DESC, reason'),
    };
  }

  async count(reasons: ReadonlyMap<string, number>): Promise<void> {
    this.db.transaction(() => this.countNow(reasons))();
  }

  /** Adds to the counts (in the caller's transaction). */
  countNow(reasons: ReadonlyMap<string, number>): void {
    for (const [reason, n] of reasons) if (n) this.stmts.count.run(reason, n);
  }

  async all(): Promise<{ reason: string; count: number }[]> {
    return this.stmts.all.all() as { reason: string; count: number }[];
  }
}

export class SqliteRobotsStore implements RobotsStore {
  private readonly stmts;

  constructor(db: Db) {
    this.stmts = {
      get: db.prepare('SELECT fetched_at AS fetchedAt, status, body FROM robots WHERE host = ?'),
      put: db.prepare(
        'INSERT INTO robots (host, fetched_at, status, body) VALUES (?, ?, ?, ?) ON CONFLICT(host) ' +
          'DO UPDATE SET fetched_at = excluded.fetched_at, status = excluded.status, body = excluded.body',
      ),
    };
  }

  async get(host: string): Promise<RobotsEntry | undefined> {
    return this.stmts.get.get(host) as RobotsEntry | undefined;
  }

  async put(host: string, entry: RobotsEntry): Promise<void> {
    this.stmts.put.run(host, entry.fetchedAt, entry.status, entry.body);
  }
}
