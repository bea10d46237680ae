/**
 * The change log in PostgreSQL. A writer's transaction adds its changes to `change_pending`, which
 * no two writers contend on (no row is shared): their commits, and their WAL flushes, overlap. A
 * change is numbered after its commit, by a run of the sequencer (`sequence`): one short
 * transaction at a time (an advisory lock) that moves every committed pending row into `changes`
 * with the next numbers of `change_head`. Only sequencer runs number, one after the other, each
 * visible before the next takes the lock: a change not yet numbered takes a number above every
 * number a reader has seen (migrations.ts says why that matters to a reader that follows the log).
 * A run sees only rows committed when its move began; one committed meanwhile waits for the next
 * run — its writer's own, which every writer makes after its commit (`numberChanges`), or a
 * reader's (since, lastSeq, the watcher's poll), so that a writer killed after its commit is numbered too.
 *
 * Many search nodes read the log (store/changes.ts): each holds it in `change_readers`, and a prune
 * forgets only what every live reader holds. The row of `change_log` says how far it was pruned; a
 * prune locks it for update and a hold for share, so a reader that holds while a prune runs is
 * told what that prune took.
 */
import pg from 'pg';
import type { Change } from '../../model/index.ts';
import type { ChangeLog } from '../changes.ts';
import { run, transaction, type Queryable } from './db.ts';

/** The channel a commit that logged changes notifies (delivered at the commit; one a transaction: same payload). */
export const CHANGES_CHANNEL = 'trawl_changes';

/** Any 64-bit number that is Trawl's own: the advisory lock a sequencer run holds. */
const SEQUENCER_LOCK = 0x7472_6177_6c01;

// (The head is read without a lock: the run that numbers these rows starts after this commit, when
// the head is at least this. Ids follow the order given.)
const LOG = `
WITH logged AS (
  INSERT INTO change_pending (doc_id, op)
  SELECT c.doc_id, c.op FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS c(doc_id, op, ord) ORDER BY c.ord
  RETURNING 1
)
SELECT pg_current_xact_id()::text AS xid, (SELECT seq FROM change_head) AS after, (SELECT count(*) FROM logged)::int AS n`;

/**
 * The sequencer's move, run with its lock held, in a statement of its own (its snapshot is taken
 * after the lock, so it sees the runs before it). Pending rows in id order: a change to a document
 * that another transaction changed waited for that one's commit before it was added, so it comes
 * after. `changes.xid` lets a writer find its numbers (`mine`: those given before this run too).
 */
const MOVE = `
WITH moved AS (DELETE FROM change_pending RETURNING id, doc_id, op, xid),
n AS (SELECT count(*) AS n FROM moved),
head AS (UPDATE change_head SET seq = seq + n.n FROM n WHERE n.n > 0 RETURNING seq, n.n, pg_notify('${CHANGES_CHANNEL}', '')),
logged AS (
  INSERT INTO changes (seq, doc_id, op, xid)
  SELECT head.seq - head.n + row_number() OVER (ORDER BY m.id), m.doc_id, m.op, m.xid FROM moved m, head
  RETURNING seq, xid
)
SELECT seq FROM logged WHERE xid = $1::xid8
UNION ALL SELECT seq FROM changes WHERE seq > $2 AND xid = $1::xid8
ORDER BY seq`;

/** What a writer's transaction logged, to be numbered after its commit (numberChanges). */
export type LoggedChanges = { readonly xid: string; readonly after: number; readonly count: number };

/**
 * A watcher's safety net besides LISTEN: how often it looks at the head of the log anyway (a
 * notification cannot be lost on a live connection, but one that broke unnoticed delivers nothing).
 */
const WATCH_POLL_MS = 5000;
/** A broken LISTEN connection is opened again after this, doubling up to the most. */
const RELISTEN_MS = [250, 5000] as const;

/**
 * Adds changes to the log in the caller's transaction (after the writes they tell of: a change to
 * a document another transaction holds waits for that one's commit). They are numbered after the
 * commit: pass what this returns to `numberChanges` then.
 */
export async function logChanges(q: Queryable, changes: readonly { readonly docId: number; readonly op: Change['op'] }[]): Promise<LoggedChanges | undefined> {
  if (!changes.length) return undefined;
  const row = (await run<{ xid: string; after: number; n: number }>(q, LOG, [changes.map((c) => c.docId), changes.map((c) => c.op)])).rows[0]!;
  return { xid: row.xid, after: row.after, count: row.n };
}

/**
 * After the commit of what `logChanges` logged: a sequencer run (waiting for the one in progress,
 * if any — a flush at most), then the numbers of those changes, in the order given. Undefined when
 * they are no longer in the log: pruned, so every reader — this process's too — has them already.
 */
export async function numberChanges(pool: pg.Pool, logged: LoggedChanges): Promise<number[] | undefined> {
  const seqs = await sequence(pool, true, logged);
  return seqs?.length === logged.count ? seqs : undefined;
}

/**
 * A sequencer run: numbers the pending changes committed so far (none when `wait` is false and
 * another run holds the lock: that one numbers them, or the next). Returns the numbers of `mine`'s.
 */
async function sequence(pool: pg.Pool, wait: boolean, mine?: LoggedChanges): Promise<number[] | undefined> {
  return transaction(
    pool,
    async (q) => {
      // (JIT off for the move: the planner, knowing nothing of a table emptied at every run, guesses
      // millions of rows and compiles for ~0.3 s a run — the run's whole time, and every writer's wait.)
      const lock = wait ? 'pg_advisory_xact_lock($1), true' : 'pg_try_advisory_xact_lock($1)';
      const { got } = (await run<{ got: boolean }>(q, `SELECT set_config('jit', 'off', true), ${lock} AS got`, [SEQUENCER_LOCK])).rows[0]!;
      if (!got) return undefined;
      const { rows } = await run<{ seq: number }>(q, MOVE, [mine?.xid ?? '0', mine?.after ?? Number.MAX_SAFE_INTEGER]);
      return rows.map((r) => r.seq);
    },
    { readWrite: true },
  );
}

export class PgChangeLog implements ChangeLog {
  constructor(private readonly pool: pg.Pool) {}

  async since(seq: number): Promise<Change[]> {
    await sequence(this.pool, false);
    return (await run<Change>(this.pool, 'SELECT seq, doc_id AS "docId", op FROM changes WHERE seq > $1 ORDER BY seq', [seq])).rows;
  }

  /** (Changes committed but not numbered yet were given no number: a sequencer run first.) */
  async lastSeq(): Promise<number> {
    await sequence(this.pool, false);
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
