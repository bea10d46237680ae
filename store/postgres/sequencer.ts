/**
 * The change log's sequencer on PostgreSQL: changes are numbered after their writer's commit
 * (changes.ts says why). A writer's transaction adds its changes to `change_pending`, which no two
 * writers contend on; a sequencer run moves every committed pending row into `changes` with the
 * next numbers of `change_head`, one run at a time (an advisory lock).
 *
 * Why a reader polling the log never skips a change: only runs number, one after the other, and a
 * run's lock is released after its commit is visible (PostgreSQL ends a transaction's visibility
 * before its locks), so the next run's move — a statement of its own, its snapshot taken after the
 * lock — sees the head the run before left. Every snapshot therefore sees numbers 1..h with no
 * gap, and a change not numbered yet takes a number above h. A run sees only the rows committed
 * when its move began; one committed meanwhile waits for the next run: its writer's own, which
 * every writer makes after its commit (`numberChanges`), or a reader's (since, lastSeq: the
 * watcher's poll), so that a writer killed between its commit and its run is numbered too. A run
 * killed midway numbers nothing (its transaction rolls back), and its rows wait for the next.
 *
 * A run is one function of the server's (`trawl_number_changes`, schema 11), called as a statement
 * of its own: the lock is taken and released inside the server, never held while a client's turn
 * comes round — a crawler's event loop busy with a page would make every other writer wait.
 */
import type pg from 'pg';
import type { Change } from '../../model/index.ts';
import { outlast, run, type Queryable } from './db.ts';

/** The channel a run that numbered changes notifies (delivered at its commit; one a transaction: same payload). */
export const CHANGES_CHANNEL = 'trawl_changes';

/** Any 64-bit number that is Trawl's own: the advisory lock a sequencer run holds. */
const SEQUENCER_LOCK = 0x7472_6177_6c01;

/**
 * The sequencer, as schema 11 creates it (a change is a migration of its own: CREATE OR REPLACE).
 * `trawl_number_changes(wait, mine, after)`: a run (none when `wait` is false and another run holds
 * the lock — that one numbers, or the next); returns the numbers of transaction `mine`'s changes,
 * given by this run or one before it (above `after`, the head that transaction saw). A writer
 * whose changes a run already moved takes no lock. Pending rows are numbered in id order: a change
 * to a document another transaction changed waited for that one's commit before it was added, so
 * it comes after. JIT off: the planner, knowing nothing of a table emptied at every run, guessed
 * millions of rows and compiled for ~0.3 s a run.
 */
export const SEQUENCER_FUNCTION = `
CREATE OR REPLACE FUNCTION trawl_number_changes(boolean, xid8, bigint) RETURNS SETOF bigint LANGUAGE plpgsql SET jit = off AS $fn$
BEGIN
  IF $2 IS NOT NULL AND NOT EXISTS (SELECT 1 FROM change_pending p WHERE p.xid = $2) THEN
    RETURN QUERY SELECT c.seq FROM changes c WHERE c.seq > $3 AND c.xid = $2 ORDER BY c.seq;
    RETURN;
  END IF;
  IF $1 THEN
    PERFORM pg_advisory_xact_lock(${SEQUENCER_LOCK});
  ELSIF NOT pg_try_advisory_xact_lock(${SEQUENCER_LOCK}) THEN
    RETURN;
  END IF;
  RETURN QUERY
  WITH moved AS (DELETE FROM change_pending RETURNING id, doc_id, op, xid),
  n AS (SELECT count(*) AS n FROM moved),
  head AS (UPDATE change_head SET seq = change_head.seq + n.n FROM n WHERE n.n > 0 RETURNING change_head.seq, n.n, pg_notify('${CHANGES_CHANNEL}', '')),
  logged AS (
    INSERT INTO changes (seq, doc_id, op, xid)
    SELECT head.seq - head.n + row_number() OVER (ORDER BY m.id), m.doc_id, m.op, m.xid FROM moved m, head
    RETURNING changes.seq, changes.xid
  )
  SELECT l.seq FROM logged l WHERE l.xid = $2
  UNION ALL SELECT c.seq FROM changes c WHERE c.seq > $3 AND c.xid = $2
  ORDER BY 1;
END
$fn$`;

// (The head is read without a lock: the run that numbers these rows starts after this commit, when
// the head is at least this. Ids follow the order given.)
const LOG = `
WITH logged AS (
  INSERT INTO change_pending (doc_id, op)
  SELECT c.doc_id, c.op FROM unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS c(doc_id, op, ord) ORDER BY c.ord
  RETURNING 1
)
SELECT pg_current_xact_id()::text AS xid, (SELECT seq FROM change_head) AS after, (SELECT count(*) FROM logged)::int AS n`;

/** What a writer's transaction logged, to be numbered after its commit (numberChanges). */
export type LoggedChanges = { readonly xid: string; readonly after: number; readonly count: number };

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
 * if any — a flush at most; none if one numbered them already), then the numbers of those changes,
 * in the order given. Undefined when they are no longer in the log: pruned, so every reader —
 * this process's too — has them already.
 */
export async function numberChanges(pool: pg.Pool, logged: LoggedChanges): Promise<number[] | undefined> {
  const { rows } = await run<{ seq: number }>(pool, 'SELECT s AS seq FROM trawl_number_changes(true, $1::xid8, $2::bigint) AS s', [logged.xid, logged.after]);
  return rows.length === logged.count ? rows.map((r) => r.seq) : undefined;
}

/**
 * A reader's run, if no other is in progress: numbers the changes committed so far. (READ WRITE in
 * the same round trip: a read-only store's transactions are read-only by default — a search
 * node's, which numbers the changes of a writer killed after its commit too.)
 */
export async function sequencePending(pool: pg.Pool): Promise<void> {
  await outlast(pool, () => pool.query('BEGIN READ WRITE; SELECT count(*) FROM trawl_number_changes(false, NULL, NULL); COMMIT'));
}
