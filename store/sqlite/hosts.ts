/** The frontier host by host, in SQLite (the per-host counts live in RAM: UrlCounters). */
import type { ErrorCode, UrlState } from '../../model/index.ts';
import type { HostStore } from '../hosts.ts';
import type { Db } from './db.ts';
import type { UrlCounters } from './urls.ts';

export class SqliteHostStore implements HostStore {
  private readonly stmts;

  constructor(
    private readonly db: Db,
    private readonly counters: UrlCounters,
  ) {
    this.stmts = {
      withWork: db.prepare(`SELECT DISTINCT host FROM urls WHERE state = 'queued'`).pluck(),
      withDueRetries: db.prepare(`SELECT DISTINCT host FROM urls WHERE state = 'failed' AND next_attempt_at <= ?`).pluck(),
      withDueRevisits: db.prepare(`SELECT DISTINCT host FROM urls WHERE revisit_at <= ?`).pluck(),
      queued: db.prepare(`SELECT count(*) FROM urls WHERE host = ? AND state = 'queued'`).pluck(),
      pending: db.prepare(`SELECT state, count(*) AS n FROM urls WHERE host = ? AND state IN ('queued', 'failed') GROUP BY state`),
      kill: db.prepare(`UPDATE urls SET state = 'dead', error = ?, reason = ?, fetched_at = ? WHERE host = ? AND state IN ('queued', 'failed')`),
    };
  }

  async withWork(): Promise<string[]> {
    return this.stmts.withWork.all() as string[];
  }

  async withDueRetries(now: number): Promise<string[]> {
    // (Most crawls have no failed URL: the counter spares the query.)
    return this.counters.states.failed ? (this.stmts.withDueRetries.all(now) as string[]) : [];
  }

  async withDueRevisits(by: number): Promise<string[]> {
    return this.stmts.withDueRevisits.all(by) as string[];
  }

  async urlCounts(hosts?: readonly string[]): Promise<Map<string, number>> {
    if (!hosts) return new Map(this.counters.perHost);
    return new Map(hosts.filter((h) => this.counters.perHost.has(h)).map((h) => [h, this.counters.perHost.get(h)!]));
  }

  async queued(hosts: readonly string[]): Promise<Map<string, number>> {
    return new Map(hosts.map((h) => [h, this.stmts.queued.get(h) as number]));
  }

  async kill(host: string, error: ErrorCode, reason: string, now: number): Promise<number> {
    return this.db.transaction(() => {
      const before = this.stmts.pending.all(host) as { state: UrlState; n: number }[];
      const n = this.stmts.kill.run(error, reason, now, host).changes;
      for (const { state, n: k } of before) this.counters.move(state, 'dead', k);
      return n;
    })();
  }
}
