/**
 * Host leases in PostgreSQL (store/leases.ts): a lease is the `worker` and `lease_until` of a row of
 * `hosts`. A claim is one statement: it picks free hosts with work and locks them with `FOR UPDATE
 * SKIP LOCKED` — a host another worker is claiming at that moment is skipped, not waited for — takes
 * them, and queues again what a worker whose lease ran out left in flight there.
 */
import type pg from 'pg';
import type { ClaimOptions, HostLease, LeaseStore, WorkerBeat, WorkerView } from '../leases.ts';
import { run } from './db.ts';

/** URLs in flight on these hosts back to the queue, their lost attempt not counted. */
const REQUEUE_IN_FLIGHT = (hosts: string) =>
  `UPDATE urls SET state = 'queued', attempts = greatest(attempts - 1, 0) WHERE state = 'fetching' AND host IN (SELECT host FROM ${hosts}) RETURNING 1`;

/*
 * $1 worker, $2 max, $3 now, $4 lease ms, $5 revisits due by (NULL: not counted). A free host has
 * no lease, or one that ran out — or was released with the time its politeness allows the next
 * request, and that time has come (a released host's lease_until; its worker is NULL). A host has work
 * when one of the URL indexes says so (queued, failed and due, due for a revisit). Any URL left in
 * flight on a claimed host is orphaned — no live lease covered it — so it is queued again.
 */
const CLAIM = `
WITH picked AS (
  SELECT h.host FROM hosts h
  WHERE (h.lease_until IS NULL OR h.lease_until <= $3)
    AND (EXISTS (SELECT 1 FROM urls u WHERE u.host = h.host AND u.state = 'queued')
      OR EXISTS (SELECT 1 FROM urls u WHERE u.host = h.host AND u.state = 'failed' AND u.next_attempt_at <= $3)
      OR ($5::bigint IS NOT NULL AND EXISTS (SELECT 1 FROM urls u WHERE u.host = h.host AND u.revisit_at <= $5::bigint)))
  ORDER BY h.claimed_at NULLS FIRST, h.host
  LIMIT $2
  FOR UPDATE OF h SKIP LOCKED
), claimed AS (
  UPDATE hosts h SET worker = $1, lease_until = $3::bigint + $4::bigint, claimed_at = $3 FROM picked WHERE h.host = picked.host RETURNING h.host
), requeued AS (${REQUEUE_IN_FLIGHT('claimed')})
SELECT host FROM claimed ORDER BY host`;

const EXPIRE = `
WITH ended AS (
  UPDATE hosts SET worker = NULL, lease_until = NULL WHERE worker IS NOT NULL AND lease_until <= $1 RETURNING host
), requeued AS (${REQUEUE_IN_FLIGHT('ended')})
SELECT coalesce((SELECT array_agg(host ORDER BY host) FROM ended), '{}') AS hosts, (SELECT count(*) FROM requeued) AS requeued`;

export class PgLeaseStore implements LeaseStore {
  constructor(private readonly pool: pg.Pool) {}

  async claim(worker: string, { max, now, leaseMs, revisitsDueBy }: ClaimOptions): Promise<string[]> {
    if (max <= 0) return [];
    return (await run<{ host: string }>(this.pool, CLAIM, [worker, max, now, leaseMs, revisitsDueBy ?? null])).rows.map((r) => r.host);
  }

  async renew(worker: string, hosts: readonly string[], now: number, leaseMs: number): Promise<string[]> {
    if (!hosts.length) return [];
    const sql = 'UPDATE hosts SET lease_until = $3::bigint + $4::bigint WHERE worker = $1 AND host = ANY($2::text[]) RETURNING host';
    const held = new Set((await run<{ host: string }>(this.pool, sql, [worker, hosts, now, leaseMs])).rows.map((r) => r.host));
    return hosts.filter((h) => held.has(h));
  }

  async release(worker: string, hosts: readonly string[], readyAt?: ReadonlyMap<string, number>): Promise<void> {
    if (!hosts.length) return;
    const sql =
      'UPDATE hosts h SET worker = NULL, lease_until = r.ready ' +
      'FROM unnest($2::text[], $3::bigint[]) AS r(host, ready) WHERE h.worker = $1 AND h.host = r.host';
    await run(this.pool, sql, [worker, hosts, hosts.map((h) => readyAt?.get(h) ?? null)]);
  }

  async expire(now: number): Promise<{ hosts: string[]; requeued: number }> {
    return (await run<{ hosts: string[]; requeued: number }>(this.pool, EXPIRE, [now])).rows[0]!;
  }

  async list(): Promise<HostLease[]> {
    return (await run<HostLease>(this.pool, 'SELECT host, worker, lease_until AS "expiresAt" FROM hosts WHERE worker IS NOT NULL ORDER BY host')).rows;
  }

  async heartbeat(b: WorkerBeat): Promise<void> {
    const sql =
      `INSERT INTO workers (id, machine, pid, started_at, seen_at, hosts, pages, pages_per_second, stopped_at) ` +
      `VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
      ON CONFLICT (id) DO UPDATE SET seen_at = excluded.seen_at, hosts = excluded.hosts, pages = excluded.pages, ` +
      `pages_per_second = excluded.pages_per_second, stopped_at = excluded.stopped_at`;
    await run(this.pool, sql, [b.id, b.machine, b.pid, b.startedAt, b.now, b.hosts, b.pages, b.pagesPerSecond, b.stopped ? b.now : null]);
  }

  async workers(since: number): Promise<WorkerView[]> {
    const sql =
      `SELECT id, machine, pid, started_at AS "startedAt", seen_at AS "seenAt", hosts, pages, ` +
      `pages_per_second AS "pagesPerSecond", stopped_at AS "stoppedAt"
      FROM workers WHERE seen_at >= $1 ORDER BY seen_at DESC, id`;
    return (await run<WorkerView>(this.pool, sql, [since])).rows;
  }

  async held(now: number): Promise<HostLease[]> {
    const sql = 'SELECT host, worker, lease_until AS "expiresAt" FROM hosts WHERE worker IS NOT NULL AND lease_until > $1 ORDER BY host';
    return (await run<HostLease>(this.pool, sql, [now])).rows;
  }
}
