/**
 * The search's levers in PostgreSQL: one set for every search node of the cluster, each polling
 * `version()`. Values are JSON in text columns, as SQLite keeps them: exactly as put (jsonb would
 * refuse a NUL, which text in JSON escapes).
 */
import type pg from 'pg';
import type { CurationChange, SearchRules } from '../../model/index.ts';
import { curationValue, MAX_CURATION_HISTORY, type CurationStore } from '../curation.ts';
import { run, transaction } from './db.ts';

type CurrentRow = { value: string; at: number };
type ChangeRow = { at: number; what: CurationChange['what']; by: string; value: string };

const changeFromRow = (r: ChangeRow): CurationChange => ({
  at: Number(r.at),
  what: r.what,
  by: r.by,
  value: JSON.parse(r.value) as CurationChange['value'],
});

export class PgCurationStore implements CurationStore {
  readonly writable = true;

  constructor(private readonly pool: pg.Pool) {}

  async synonyms(): Promise<{ readonly lines: readonly string[]; readonly at: number } | undefined> {
    const row = await this.current('synonyms');
    return row && { lines: JSON.parse(row.value) as string[], at: Number(row.at) };
  }

  async rules(): Promise<{ readonly rules: SearchRules; readonly at: number } | undefined> {
    const row = await this.current('rules');
    return row && { rules: JSON.parse(row.value) as SearchRules, at: Number(row.at) };
  }

  async put(change: CurationChange): Promise<void> {
    const value = curationValue(change);
    await transaction(
      this.pool,
      async (c) => {
        // One put at a time: each change's number is taken and committed under the lock, so that
        // numbers grow in commit order — a node that saw version n never misses a change below n
        // committed after (a sequence alone hands numbers out in the order puts begin). Readers do
        // not wait: this mode conflicts with writers only.
        await run(c, 'LOCK TABLE curation_history IN SHARE ROW EXCLUSIVE MODE');
        await run(
          c,
          `INSERT INTO curation (what, value, at) VALUES ($1, $2, $3)
           ON CONFLICT (what) DO UPDATE SET value = excluded.value, at = excluded.at`,
          [change.what, value, change.at],
        );
        await run(c, 'INSERT INTO curation_history (at, what, by, value) VALUES ($1, $2, $3, $4)', [change.at, change.what, change.by, value]);
        await run(
          c,
          `DELETE FROM curation_history WHERE what = $1
             AND n <= (SELECT n FROM curation_history WHERE what = $1 ORDER BY n DESC LIMIT 1 OFFSET ${MAX_CURATION_HISTORY})`,
          [change.what],
        );
        // (READ WRITE: a search node opens the store read-only for the crawl's state, and pulls the levers.)
      },
      { readWrite: true },
    );
  }

  async history(limit: number, what?: CurationChange['what']): Promise<CurationChange[]> {
    const { rows } = what
      ? await run<ChangeRow>(this.pool, 'SELECT at, what, by, value FROM curation_history WHERE what = $1 ORDER BY n DESC LIMIT $2', [what, limit])
      : await run<ChangeRow>(this.pool, 'SELECT at, what, by, value FROM curation_history ORDER BY n DESC LIMIT $1', [limit]);
    return rows.map(changeFromRow);
  }

  async version(): Promise<number> {
    const { rows } = await run<{ v: number }>(this.pool, 'SELECT coalesce(max(n), 0) AS v FROM curation_history');
    return Number(rows[0]!.v);
  }

  private async current(what: CurationChange['what']): Promise<CurrentRow | undefined> {
    return (await run<CurrentRow>(this.pool, 'SELECT value, at FROM curation WHERE what = $1', [what])).rows[0];
  }
}
