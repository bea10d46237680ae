/**
 * The change log in PostgreSQL. Sequence numbers come from the one row of `change_head`, taken as
 * the last statement of a transaction: its lock, held until the commit, gives numbers in commit
 * order (migrations.ts says why that matters to a reader that follows the log).
 */
import type pg from 'pg';
import type { Change } from '../../model/index.ts';
import type { ChangeLog } from '../changes.ts';
import { run, type Queryable } from './db.ts';

const LOG = `
WITH head AS (UPDATE change_head SET seq = seq + cardinality($1::bigint[]) RETURNING seq)
INSERT INTO changes (seq, doc_id, op)
SELECT head.seq - cardinality($1::bigint[]) + c.ord, c.doc_id, c.op FROM head, unnest($1::bigint[], $2::text[]) WITH ORDINALITY AS c(doc_id, op, ord)
RETURNING seq`;

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

  async prune(seq: number): Promise<void> {
    await run(this.pool, 'DELETE FROM changes WHERE seq <= $1', [seq]);
  }
}
