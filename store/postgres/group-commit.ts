/**
 * Group commit on PostgreSQL: the fetches a crawler hands over within GROUP_WINDOW_MS of each
 * other (or while the group before is being written) share one transaction, written by one
 * statement per table for all of them (arrays, unnest), so that a page costs a share of ~10 round
 * trips and one commit (one WAL flush) instead of its own — as SQLite groups the pages of 50 ms (store/sqlite/store.ts). A group is written when
 * its window ends, when it is full (MAX_GROUP), or at `settled()` (sync).
 *
 * Each fetch is still all or nothing, and told only once durable: `commit()` resolves after the
 * group's COMMIT — a worker killed before that loses only what it was not told was written, whose
 * URLs its lease gives back. A group that fails is tried again one fetch at a time, each in a
 * transaction of its own, so that a fetch whose writes the server refuses fails alone.
 */
import type pg from 'pg';
import type { EnqueueBatch, EnqueueResult, FetchCommit, FetchCommitResult } from '../store.ts';
import type { Finish } from '../urls.ts';
import { logChanges, numberChanges, type LoggedChanges } from './sequencer.ts';
import { isConnectionError, run, transaction, type Queryable } from './db.ts';
import { addDuplicates, putDocuments, removeDocuments, touchDocuments, type DocumentPut } from './documents.ts';
import { enqueueBatches } from './seen.ts';
import { finishUrls } from './urls.ts';
import type { TableStatistics } from './statistics.ts';

/** Fetches in one group at most (the statements' arrays, and the locks one transaction holds). */
export const MAX_GROUP = 64;
/**
 * How long the first fetch of a group waits for others. Without a wait, pages that arrive a little
 * apart (a crawl whose pages take long to parse) were committed one by one: ~8 round trips each.
 */
export const GROUP_WINDOW_MS = 20;

const NOTHING_QUEUED: EnqueueResult = { added: [], hosts: new Set() };

/** What one item of a group writes: a fetch's commit, or a document stored or removed by itself (documents.ts). */
type Write = {
  readonly id: number;
  readonly unindex?: boolean;
  readonly duplicateOf?: number;
  readonly document?: DocumentPut;
  readonly touch?: number;
  readonly links?: EnqueueBatch;
  /** How the fetch ended (absent: not a fetch). */
  readonly finish?: Finish;
  /** New content, tested against the content stored before it. */
  readonly fresh?: boolean;
};

type Pending = {
  readonly write: Write;
  readonly now: number;
  readonly resolve: (r: FetchCommitResult) => void;
  readonly reject: (e: unknown) => void;
};

/** A fetch's commit as a group's item. */
const fetchWrite = (c: FetchCommit): Write => ({
  ...c,
  finish: { outcome: c.outcome, revisit: c.revisit },
  fresh: Boolean(c.document && c.duplicateOf === undefined && c.document.doc.text),
});

export class GroupCommit {
  private waiting: Pending[] = [];
  private running = 0;
  /** Groups written whose fetches are not told yet (their changes being numbered). */
  private numbering = 0;
  /** The window of the group waiting (its first fetch was handed over): written when it ends. */
  private window: NodeJS.Timeout | undefined;
  private idle: (() => void)[] = [];
  /** Groups committed and fetches in them, since the store opened (bench/scale, tests). */
  readonly figures = { groups: 0, fetches: 0 };

  constructor(
    private readonly pool: pg.Pool,
    /** Told of the rows each group added, to keep the planner's statistics current (statistics.ts). */
    private readonly statistics?: TableStatistics,
    /** Groups in flight at once (each on a connection of its own). */
    private readonly concurrent = 1,
  ) {}

  /** Writes one fetch's changes; resolves once they are durable (with those of the fetches grouped with it). */
  commit(commit: FetchCommit, now: number): Promise<FetchCommitResult> {
    return this.add(fetchWrite(commit), now);
  }

  /** Stores a document by itself (not a fetch: a page cleaned again); resolves with its change's number once durable. */
  async put(put: DocumentPut): Promise<number> {
    return (await this.add({ id: put.doc.id, document: put }, 0)).stored!;
  }

  /** Removes a document by itself, if stored; resolves with its change's number once durable (undefined: none was). */
  async remove(id: number): Promise<number | undefined> {
    return (await this.add({ id, unindex: true }, 0)).removed;
  }

  private add(write: Write, now: number): Promise<FetchCommitResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ write, now, resolve, reject });
      if (this.waiting.length >= MAX_GROUP) this.next(true);
      else if (!this.window) this.window = setTimeout(() => this.next(true), GROUP_WINDOW_MS);
    });
  }

  /** Writes what waits at once; resolves once every fetch handed over so far is committed (or failed). */
  settled(): Promise<void> {
    if (!this.running && !this.numbering && !this.waiting.length) return Promise.resolve();
    const done = new Promise<void>((resolve) => this.idle.push(resolve));
    this.next(true);
    return done;
  }

  /**
   * Starts the next group when there is room: what waits, in the order handed over — once its
   * window ended (`due`), or when the group before ends (what waited meanwhile waited long enough).
   */
  private next(due: boolean): void {
    if (due) {
      clearTimeout(this.window);
      this.window = undefined;
    }
    while (this.running < this.concurrent && this.waiting.length && (due || !this.window)) {
      const group: Pending[] = [];
      const ids = new Set<number>();
      // (A URL twice in one group — a commit given up and made again — waits for the next one.)
      const later: Pending[] = [];
      for (const p of this.waiting) {
        if (group.length < MAX_GROUP && !ids.has(p.write.id)) {
          group.push(p);
          ids.add(p.write.id);
        } else later.push(p);
      }
      this.waiting = later;
      this.running++;
      this.numbering++;
      void this.write(group, () => {
        this.running--;
        this.next(false);
      }).finally(() => {
        this.numbering--;
        if (!this.running && !this.numbering && !this.waiting.length) for (const resolve of this.idle.splice(0)) resolve();
      });
    }
  }

  /**
   * Commits a group, calls `committed` (the next group may start: its commit overlaps this one's
   * numbering), then numbers its changes (sequencer.ts) and tells each fetch.
   */
  private async write(group: readonly Pending[], committed: () => void): Promise<void> {
    let told = false;
    const release = () => {
      if (!told) committed();
      told = true;
    };
    try {
      const { results, logged } = await transaction(this.pool, (q) => commitGroup(q, group));
      release();
      this.figures.groups++;
      this.figures.fetches += group.length;
      this.statistics?.grew(
        results.map((r) => r([])).reduce((n, r, i) => n + r.enqueued.added.length + (group[i]!.write.document && !r.contentSeen ? 1 : 0), 0),
      );
      const seqs = logged ? await numbered(this.pool, logged) : [];
      group.forEach((p, i) => {
        p.resolve(results[i]!(seqs));
      });
    } catch (e) {
      if (group.length === 1 || isConnectionError(e)) {
        release();
        for (const p of group) p.reject(e);
        return;
      }
      // One fetch's writes were refused (or the group could not be written): each on its own.
      for (const p of group) await this.write([p], () => undefined);
      release();
    } finally {
      release();
    }
  }
}

/**
 * The numbers of a committed group's changes. Undefined (each fetch told no number) when they
 * could not be learnt — pruned already, or the server unreachable after the commit: the changes
 * are durable and numbered by a later sequencer run, and a follower of the log applies them.
 */
async function numbered(pool: pg.Pool, logged: LoggedChanges): Promise<readonly (number | undefined)[]> {
  try {
    return (await numberChanges(pool, logged)) ?? [];
  } catch {
    return [];
  }
}

/**
 * The writes of a group in the caller's transaction, in the order FetchCommit gives — stored copies
 * leave, duplicates, new copies, touches, links, the records — each step one statement for the
 * whole group, and the change log last (sequencer.ts). Each fetch's result is finished with the
 * numbers of the group's changes, learnt after the commit.
 *
 * The content-seen test: the crawler's reads before the commit, so a page stored as new content
 * first takes a lock on its hash (an advisory lock, released at the commit; all the group's in hash
 * order, so that two groups never wait for each other in opposite orders) and looks again. Content
 * another transaction stored meanwhile, or an earlier fetch of the group stores, gives the fetch up
 * (`contentSeen`: nothing of it is written) and the crawler records a duplicate instead.
 */
async function commitGroup(
  q: Queryable,
  group: readonly Pending[],
): Promise<{ results: ((seqs: readonly (number | undefined)[]) => FetchCommitResult)[]; logged: LoggedChanges | undefined }> {
  const seen = await contentSeen(
    q,
    group.map((p) => p.write),
  );
  const kept = group.filter((p) => !seen.has(p.write.id));
  const removed = await removeDocuments(
    q,
    kept.filter((p) => p.write.unindex).map((p) => p.write.id),
  );
  await addDuplicates(
    q,
    kept.flatMap(({ write: w }) => (w.duplicateOf !== undefined ? [{ urlId: w.id, docId: w.duplicateOf }] : [])),
  );
  await putDocuments(
    q,
    kept.flatMap(({ write: w }) => (w.document ? [w.document] : [])),
  );
  await touchDocuments(
    q,
    kept.flatMap(({ write: w }) => (w.touch !== undefined ? [{ id: w.id, at: w.touch }] : [])),
  );
  const linked = kept.filter((p) => p.write.links);
  const enqueued = new Map(
    (
      await enqueueBatches(
        q,
        linked.map((p) => ({ batch: p.write.links!, now: p.now, foundOn: p.write.id })),
      )
    ).map((r, i) => [linked[i]!.write.id, r]),
  );
  await finishUrls(
    q,
    kept.flatMap(({ write: w, now }) => (w.finish ? [{ id: w.id, finish: w.finish, now }] : [])),
  );
  // Each item's changes in the group's order: its removal, then its new copy.
  const changes = kept.flatMap(({ write: w }) => [
    ...(removed.has(w.id) ? [{ docId: w.id, op: 'remove' as const }] : []),
    ...(w.document ? [{ docId: w.document.doc.id, op: 'put' as const }] : []),
  ]);
  const logged = await logChanges(q, changes);
  let next = 0;
  const results = group.map(({ write: w }) => {
    const same = seen.get(w.id);
    if (same) return () => ({ enqueued: NOTHING_QUEUED, contentSeen: same });
    const at = next;
    const [removes, puts] = [removed.has(w.id), Boolean(w.document)];
    next += Number(removes) + Number(puts);
    return (seqs: readonly (number | undefined)[]) => {
      const result: { stored?: number; removed?: number; enqueued: EnqueueResult } = { enqueued: enqueued.get(w.id) ?? NOTHING_QUEUED };
      if (removes && seqs[at] !== undefined) result.removed = seqs[at];
      if (puts && seqs[at + Number(removes)] !== undefined) result.stored = seqs[at + Number(removes)];
      return result;
    };
  });
  return { results, logged };
}

/** The fetches of the group given up for content stored before them (see commitGroup), by id. */
async function contentSeen(q: Queryable, writes: readonly Write[]): Promise<Map<number, { id: number; url: string }>> {
  const fresh = writes.filter((w) => w.fresh);
  const given = new Map<number, { id: number; url: string }>();
  if (!fresh.length) return given;
  const hashes = [...new Set(fresh.map((w) => w.document!.doc.hash))].sort();
  // (Locked one after the other in this order by the subquery; looked up in the next statement, which sees what committed meanwhile.)
  await run(q, 'SELECT pg_advisory_xact_lock(hashtextextended(h, 0)) FROM (SELECT unnest($1::text[]) AS h ORDER BY 1) s', [hashes]);
  const { rows } = await run<{ hash: string; id: number; url: string }>(
    q,
    'SELECT DISTINCT ON (hash) hash, id, url FROM documents WHERE hash = ANY($1::text[]) ORDER BY hash, id',
    [hashes],
  );
  const stored = new Map(rows.map((r) => [r.hash, { id: r.id, url: r.url }]));
  for (const w of fresh) {
    const doc = w.document!.doc;
    const same = stored.get(doc.hash);
    if (same && same.id !== w.id) given.set(w.id, same);
    // (The first of the group with this content stores it: the others are its duplicates.)
    else if (!same) stored.set(doc.hash, { id: doc.id, url: doc.url });
  }
  return given;
}
