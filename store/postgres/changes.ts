/**
 * The change log in PostgreSQL. A change is numbered after its writer's commit, by a run of the
 * sequencer (sequencer.ts), so that writers' commits, and their WAL flushes, overlap instead of
 * queueing on the one row of the head; the numbers a reader sees still have no gap, and a change
 * numbered later takes a number above them (migrations.ts says why that matters to a reader that
 * follows the log). Readers run the sequencer too (since, lastSeq).
 *
 * Many search nodes read the log (store/changes.ts): each holds it in `change_readers`, and a prune
 * forgets only what every live reader holds. The row of `change_log` says how far it was pruned; a
 * prune locks it for update and a hold for share, so a reader that holds while a prune runs is
 * told what that prune took.
 */
import pg from 'pg';
import type { Change } from '../../model/index.ts';
import type { ChangeLog } from '../changes.ts';
import { run, transaction } from './db.ts';
import { CHANGES_CHANNEL, sequencePending } from './sequencer.ts';

export { CHANGES_CHANNEL };

/**
 * A watcher's safety net besides LISTEN: how often it looks at the head of the log anyway (a
 * notification cannot be lost on a live connection, but one that broke unnoticed delivers nothing).
 */
const WATCH_POLL_MS = 5000;
/** A broken LISTEN connection is opened again after this, doubling up to the most. */
const RELISTEN_MS = [250, 5000] as const;

export class PgChangeLog implements ChangeLog {
  constructor(private readonly pool: pg.Pool) {}

  async since(seq: number): Promise<Change[]> {
    await sequencePending(this.pool);
    return (await run<Change>(this.pool, 'SELECT seq, doc_id AS "docId", op FROM changes WHERE seq > $1 ORDER BY seq', [seq])).rows;
  }

  /** (Changes committed but not numbered yet were given no number: a sequencer run first.) */
  async lastSeq(): Promise<number> {
    await sequencePending(this.pool);
    return (await run<{ seq: number }>(this.pool, 'SELECT seq FROM change_head')).rows[0]!.seq;
  }

  async prunedThrough(): Promise<number> {
    return (await run<{ pruned: number }>(this.pool, 'SELECT pruned FROM change_log')).rows[0]!.pruned;
  }

  /** A name made when the schema was created: the same database under another URL is the same log, a database made anew is not. */
  async identity(): Promise<string> {
    return `postgres:${(await run<{ id: string }>(this.pool, 'SELECT id FROM change_log')).rows[0]!.id}`;
  }

  async hold(reader: string, seq: number, now: number): Promise<number> {
    return transaction(
      this.pool,
      async (q) => {
        const { pruned } = (await run<{ pruned: number }>(q, 'SELECT pruned FROM change_log FOR SHARE')).rows[0]!;
        await run(
          q,
          'INSERT INTO change_readers (reader, seq, seen_at) VALUES ($1, $2, $3) ' +
            'ON CONFLICT (reader) DO UPDATE SET seq = excluded.seq, seen_at = excluded.seen_at',
          [reader, seq, now],
        );
        return pruned;
      },
      { readWrite: true },
    );
  }

  async prune(seq: number, liveSince?: number): Promise<number> {
    return transaction(
      this.pool,
      async (q) => {
        const { pruned } = (await run<{ pruned: number }>(q, 'SELECT pruned FROM change_log FOR UPDATE')).rows[0]!;
        if (liveSince !== undefined) await run(q, 'DELETE FROM change_readers WHERE seen_at < $1', [liveSince]);
        const bound = (
          await run<{ bound: number }>(q, 'SELECT least($1::bigint, (SELECT min(seq) FROM change_readers), (SELECT seq FROM change_head)) AS bound', [seq])
        ).rows[0]!.bound;
        if (bound <= pruned) return pruned;
        await run(q, 'DELETE FROM changes WHERE seq > $1 AND seq <= $2', [pruned, bound]);
        await run(q, 'UPDATE change_log SET pruned = $1', [bound]);
        return bound;
      },
      { readWrite: true },
    );
  }

  /**
   * LISTEN on a connection of its own (outside the pool: it stays open), woken by the NOTIFY of
   * each commit that logged changes — so a search node sees a worker's page within milliseconds of
   * its commit. A connection that breaks is opened again (with back-off), and the watcher is told
   * at once: notifications sent meanwhile were lost.
   */
  async watch(onChange: () => void): Promise<() => Promise<void>> {
    let stopped = false;
    let client: pg.Client | undefined;
    let wait: number = RELISTEN_MS[0];
    let retry: NodeJS.Timeout | undefined;
    const listen = async (): Promise<void> => {
      const c = new pg.Client({
        connectionString: this.pool.options.connectionString,
        connectionTimeoutMillis: this.pool.options.connectionTimeoutMillis,
        application_name: 'trawl-listen',
      });
      c.on('notification', () => onChange());
      c.on('error', () => undefined);
      c.on('end', () => {
        if (stopped || client !== c) return;
        client = undefined;
        retry = setTimeout(() => void listen().catch(() => undefined), wait);
        wait = Math.min(RELISTEN_MS[1], wait * 2);
      });
      client = c;
      try {
        await c.connect();
        await c.query(`LISTEN ${CHANGES_CHANNEL}`);
        wait = RELISTEN_MS[0];
        onChange();
      } catch (e) {
        await c.end().catch(() => undefined);
        throw e;
      }
    };
    await listen();
    const stopPolling = await this.poll(onChange);
    return async () => {
      stopped = true;
      clearTimeout(retry);
      await stopPolling();
      await client?.end().catch(() => undefined);
    };
  }

  /** Calls `onChange` when the head of the log moved since the last look. */
  private async poll(onChange: () => void): Promise<() => Promise<void>> {
    let last = await this.lastSeq();
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      this.lastSeq()
        .then((now) => {
          if (now !== last) {
            last = now;
            onChange();
          }
        })
        .catch(() => undefined)
        .finally(() => (busy = false));
    }, WATCH_POLL_MS);
    timer.unref();
    return async () => clearInterval(timer);
  }
}
