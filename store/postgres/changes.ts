/**
 * The change log in PostgreSQL. Sequence numbers come from the one row of `change_head`, taken as
 * the last statement of a transaction: its lock, held until the commit, gives numbers in commit
 * order (migrations.ts says why that matters to a reader that follows the log).
 *
 * Many search nodes read the log (store/changes.ts): each holds it in `change_readers`, and a prune
 * forgets only what every live reader holds. The row of `change_log` says how far it was pruned; a
 * prune locks it for update and a hold for share, so a reader that holds while a prune runs is
 * told what that prune took.
 */
import type pg from 'pg';
import type { Change } from '../../model/index.ts';
import type { ChangeLog } from '../changes.ts';
import { run, transaction, type Queryable } from './db.ts';

const LOG = `
WITH head AS (UPDATE change_head SET seq = seq + cardinality($1::bigint[]) RETURNING seq)
INSERT INTO changes (seq, doc_id, op)
SELECT head.seq - cardinality($1::bigint[]) + c.ord, c.doc_id, c.op FROM head, unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS c(doc_id, op, ord)
RETURNING seq`;

/** How often a watcher looks for new changes. */
const WATCH_POLL_MS = 500;

/**
 * Appends changes (in the caller's transaction — as its last statement, to hold the head's lock
 * the shortest time). Returns their sequence numbers, in the order given.
 */
export async function logChanges(q: Queryable, changes: readonly { readonly docId: number; readonly op: Change['op'] }[]): Promise<number[]> {
  if (!changes.length) return [];
  const { rows } = await run<{ seq: number }>(q, LOG, [changes.map((c) => c.docId), changes.map((c) => c.op)]);
  const last = Math.max(...rows.map((r) => r.seq));
  return changes.map((_, i) => last - changes.length + 1 + i);
}

export class PgChangeLog implements ChangeLog {
  constructor(private readonly pool: pg.Pool) {}

  async since(seq: number): Promise<Change[]> {
    return (await run<Change>(this.pool, 'SELECT seq, doc_id AS "docId", op FROM changes WHERE seq > $1 ORDER BY seq', [seq])).rows;
  }

  async lastSeq(): Promise<number> {
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
        await run(q, 'INSERT INTO change_readers (reader, seq, seen_at) VALUES ($1, $2, $3) ON CONFLICT (reader) DO UPDATE SET seq = excluded.seq, seen_at = excluded.seen_at', [reader, seq, now]);
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
        const bound = (await run<{ bound: number }>(q, 'SELECT least($1::bigint, (SELECT min(seq) FROM change_readers), (SELECT seq FROM change_head)) AS bound', [seq])).rows[0]!.bound;
        if (bound <= pruned) return pruned;
        await run(q, 'DELETE FROM changes WHERE seq > $1 AND seq <= $2', [pruned, bound]);
        await run(q, 'UPDATE change_log SET pruned = $1', [bound]);
        return bound;
      },
      { readWrite: true },
    );
  }

  async watch(onChange: () => void): Promise<() => Promise<void>> {
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
