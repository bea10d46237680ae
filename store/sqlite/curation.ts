/** The search's levers in SQLite: a row a lever as it is now, a row a change (values as JSON text). */
import type { CurationChange, SearchRules } from '../../model/index.ts';
import { curationValue, MAX_CURATION_HISTORY, type CurationStore } from '../curation.ts';
import type { Db } from './db.ts';

type CurrentRow = { value: string; at: number };
type ChangeRow = { at: number; what: CurationChange['what']; by: string; value: string };

const changeFromRow = (r: ChangeRow): CurationChange => ({ at: r.at, what: r.what, by: r.by, value: JSON.parse(r.value) as CurationChange['value'] });

export class SqliteCurationStore implements CurationStore {
  private readonly stmts;

  readonly writable: boolean;

  /** `commit`: ends the store's open group transaction, if any (store.ts), so that a put is durable when it resolves. */
  constructor(
    private readonly db: Db,
    private readonly commit: () => void,
  ) {
    this.writable = !db.readonly;
    this.stmts = {
      current: db.prepare('SELECT value, at FROM curation WHERE what = ?'),
      set: db.prepare('INSERT INTO curation (what, value, at) VALUES (?, ?, ?) ON CONFLICT (what) DO UPDATE SET value = excluded.value, at = excluded.at'),
      append: db.prepare('INSERT INTO curation_history (at, what, by, value) VALUES (?, ?, ?, ?)'),
      bound: db.prepare(
        `DELETE FROM curation_history WHERE what = ?
           AND n <= (SELECT n FROM curation_history WHERE what = ? ORDER BY n DESC LIMIT 1 OFFSET ${MAX_CURATION_HISTORY})`,
      ),
      history: db.prepare('SELECT at, what, by, value FROM curation_history ORDER BY n DESC LIMIT ?'),
      historyOf: db.prepare('SELECT at, what, by, value FROM curation_history WHERE what = ? ORDER BY n DESC LIMIT ?'),
      version: db.prepare('SELECT coalesce(max(n), 0) FROM curation_history').pluck(),
    };
  }

  async synonyms(): Promise<{ readonly lines: readonly string[]; readonly at: number } | undefined> {
    const row = this.stmts.current.get('synonyms') as CurrentRow | undefined;
    return row && { lines: JSON.parse(row.value) as string[], at: row.at };
  }

  async rules(): Promise<{ readonly rules: SearchRules; readonly at: number } | undefined> {
    const row = this.stmts.current.get('rules') as CurrentRow | undefined;
    return row && { rules: JSON.parse(row.value) as SearchRules, at: row.at };
  }

  async put(change: CurationChange): Promise<void> {
    const value = curationValue(change);
    this.db.transaction(() => {
      this.stmts.set.run(change.what, value, change.at);
      this.stmts.append.run(change.at, change.what, change.by, value);
      this.stmts.bound.run(change.what, change.what);
    })();
    this.commit();
  }

  async history(limit: number, what?: CurationChange['what']): Promise<CurationChange[]> {
    const rows = (what ? this.stmts.historyOf.all(what, limit) : this.stmts.history.all(limit)) as ChangeRow[];
    return rows.map(changeFromRow);
  }

  async version(): Promise<number> {
    return this.stmts.version.get() as number;
  }
}
