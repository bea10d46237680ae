/** The frontier host by host, in PostgreSQL: every figure read from the table (many processes change it). */
import type pg from 'pg';
import type { ErrorCode } from '../../model/index.ts';
import type { HostStore } from '../hosts.ts';
import { run } from './db.ts';

const hostsOf = (rows: { host: string }[]) => rows.map((r) => r.host);

export class PgHostStore implements HostStore {
  constructor(private readonly pool: pg.Pool) {}

  async withWork(): Promise<string[]> {
    return hostsOf((await run<{ host: string }>(this.pool, `SELECT DISTINCT host FROM urls WHERE state = 'queued'`)).rows);
  }

  async withDueRetries(now: number): Promise<string[]> {
    return hostsOf((await run<{ host: string }>(this.pool, `SELECT DISTINCT host FROM urls WHERE state = 'failed' AND next_attempt_at <= $1`, [now])).rows);
  }

  async withDueRevisits(by: number): Promise<string[]> {
    return hostsOf((await run<{ host: string }>(this.pool, 'SELECT DISTINCT host FROM urls WHERE revisit_at <= $1', [by])).rows);
  }

  /** Counted on each host's row as URLs are queued (seen.ts): what every worker's cap reads. */
  async urlCounts(hosts?: readonly string[]): Promise<Map<string, number>> {
    const { rows } = hosts
      ? await run<{ host: string; n: number }>(this.pool, 'SELECT host, urls AS n FROM hosts WHERE host = ANY($1::text[]) AND urls > 0', [hosts])
      : await run<{ host: string; n: number }>(this.pool, 'SELECT host, urls AS n FROM hosts WHERE urls > 0');
    return new Map(rows.map((r) => [r.host, r.n]));
  }

  async queued(hosts: readonly string[]): Promise<Map<string, number>> {
    const { rows } = await run<{ host: string; n: number }>(
      this.pool,
      `SELECT host, count(*) AS n FROM urls WHERE host = ANY($1::text[]) AND state = 'queued' GROUP BY host`,
      [hosts],
    );
    const found = new Map(rows.map((r) => [r.host, r.n]));
    return new Map(hosts.map((h) => [h, found.get(h) ?? 0]));
  }

  async kill(host: string, error: ErrorCode, reason: string, now: number): Promise<number> {
    const r = await run(
      this.pool,
      `UPDATE urls SET state = 'dead', error = $1, reason = $2, fetched_at = $3 WHERE host = $4 AND state IN ('queued', 'failed')`,
      [error, reason, now, host],
    );
    return r.rowCount ?? 0;
  }
}
