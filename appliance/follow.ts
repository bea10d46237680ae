/**
 * A search node follows the change log (issue 22): every page any worker stores or removes on the
 * shared store reaches this node's in-RAM index, through the same feed as the pages a local crawl
 * stores (index-feed.ts). The log wakes it (ChangeLog.watch: PostgreSQL's LISTEN/NOTIFY, delivered
 * at each commit), it reads the changes after the last it applied, and applies the last change of
 * each document — so a page fetched anywhere is searchable here within a second. Changes this
 * process applied itself (its own crawl's pages) are skipped. One catch-up runs at a time; a wake
 * during one asks for another after it.
 */
import type { Log } from '../lib/log.ts';
import type { Store } from '../store/index.ts';
import type { IndexFeed } from './index-feed.ts';

export class ChangeFollower {
  private running: Promise<void> | undefined;
  private again = false;
  private stopWatching: (() => Promise<void>) | undefined;
  private stopped = false;
  /** Changes applied from the log since start (for tests and the log). */
  applied = 0;

  constructor(
    private readonly store: Store,
    private readonly feed: IndexFeed,
    /** The last change the index holds with every one before it. */
    private position: number,
    private readonly log: Log,
  ) {}

  /** The last change the index holds with every one before it. */
  get through(): number {
    return this.position;
  }

  async start(): Promise<void> {
    this.feed.follow();
    this.stopWatching = await this.store.changes.watch(() => this.kick());
    this.kick();
  }

  /** Reads and applies what is new (now, or after the catch-up running). */
  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.catchUp()
      .catch((e: unknown) => this.log.warn(`following the change log: ${(e as Error).message} (trying again at the next change)`))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Resolves once every change committed before the call is applied. */
  async settled(): Promise<void> {
    this.kick();
    while (this.running) await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.stopWatching?.();
    await this.running;
  }

  private async catchUp(): Promise<void> {
    const changes = await this.store.changes.since(this.position);
    if (!changes.length) return;
    // (Sequence numbers have no gaps: a first change past the next means the log was pruned under
    // this reader, which holds it — it was not heard from for cluster.readerTimeout. A restart rebuilds.)
    if (changes[0]!.seq > this.position + 1)
      this.log.error(
        `the change log was pruned past this index (at ${this.position}; next kept ${changes[0]!.seq}): ` +
          'pages changed meanwhile may be stale here until a restart rebuilds the index',
      );
    const last = new Map<number, number>();
    for (const c of changes) last.set(c.docId, c.seq);
    const todo = [...last].filter(([, seq]) => !this.feed.appliedHere(seq));
    await this.feed.refreshMany(todo);
    this.applied += todo.length;
    this.position = changes.at(-1)!.seq;
    this.feed.caughtUp(this.position);
  }
}
