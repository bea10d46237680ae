/** The small stores in PostgreSQL: seeds, rejection counts, the robots.txt cache, archive records. */
import type pg from 'pg';
import type { ArchiveRef, ArchiveStore } from '../archive.ts';
import type { RejectionStore } from '../rejections.ts';
import type { RobotsEntry, RobotsStore } from '../robots.ts';
import type { SeedStore } from '../seeds.ts';
import { run } from './db.ts';
import { REJECTION_SHARDS } from './seen.ts';

export class PgSeedStore implements SeedStore {
  constructor(private readonly pool: pg.Pool) {}

  async add(urls: readonly string[], now: number): Promise<void> {
    if (urls.length)
      await run(this.pool, 'INSERT INTO seeds (url, added_at) SELECT DISTINCT unnest($1::text[]), $2::bigint ON CONFLICT (url) DO NOTHING', [urls, now]);
  }

  async all(): Promise<string[]> {
    return (await run<{ url: string }>(this.pool, 'SELECT url FROM seeds ORDER BY added_at, url')).rows.map((r) => r.url);
  }
}

export class PgRejectionStore implements RejectionStore {
  constructor(private readonly pool: pg.Pool) {}

  async count(reasons: ReadonlyMap<string, number>): Promise<void> {
    const counted = [...reasons].filter(([, n]) => n > 0);
    if (!counted.length) return;
    await run(
      this.pool,
      `INSERT INTO rejections (reason, shard, n) SELECT r.reason, pg_backend_pid() % ${REJECTION_SHARDS}, r.n ` +
        `FROM unnest($1::text[], $2::bigint[]) AS r(reason, n)
       ON CONFLICT (reason, shard) DO UPDATE SET n = rejections.n + excluded.n`,
      [counted.map(([r]) => r), counted.map(([, n]) => n)],
    );
  }

  async all(): Promise<{ reason: string; count: number }[]> {
    return (
      await run<{ reason: string; count: number }>(
        this.pool,
        'SELECT reason, sum(n)::bigint AS count FROM rejections GROUP BY reason ORDER BY count DESC, reason',
      )
    ).rows;
  }
}

export class PgRobotsStore implements RobotsStore {
  constructor(private readonly pool: pg.Pool) {}

  async get(host: string): Promise<RobotsEntry | undefined> {
    return (await run<RobotsEntry>(this.pool, 'SELECT fetched_at AS "fetchedAt", status, body FROM robots WHERE host = $1', [host])).rows[0];
  }

  async put(host: string, entry: RobotsEntry): Promise<void> {
    await run(
      this.pool,
      'INSERT INTO robots (host, fetched_at, status, body) VALUES ($1, $2, $3, $4) ON CONFLICT (host) ' +
        'DO UPDATE SET fetched_at = excluded.fetched_at, status = excluded.status, body = excluded.body',
      [host, entry.fetchedAt, entry.status, entry.body],
    );
  }
}

export class PgArchiveStore implements ArchiveStore {
  constructor(private readonly pool: pg.Pool) {}

  async latest(urlId: number): Promise<ArchiveRef | undefined> {
    const sql = 'SELECT file, byte_offset AS "offset", byte_length AS "length", record_id AS "recordId", date, digest FROM archive WHERE url_id = $1';
    return (await run<ArchiveRef>(this.pool, sql, [urlId])).rows[0];
  }

  async put(urlId: number, ref: ArchiveRef): Promise<void> {
    await run(
      this.pool,
      `INSERT INTO archive (url_id, file, byte_offset, byte_length, record_id, date, digest) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (url_id) DO UPDATE SET file = excluded.file, byte_offset = excluded.byte_offset, byte_length = excluded.byte_length,
         record_id = excluded.record_id, date = excluded.date, digest = excluded.digest`,
      [urlId, ref.file, ref.offset, ref.length, ref.recordId, ref.date, ref.digest],
    );
  }
}
