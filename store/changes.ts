/**
 * The change log: every put and remove of a document, in order, with a sequence number that only
 * grows. An index records the last sequence number its snapshot holds and replays the rest.
 *
 * Many indexes may read one log (search nodes on a shared PostgreSQL store, issue 22), each at its
 * own pace: a reader holds the log from the sequence its snapshot holds, and pruning forgets only
 * what every reader heard from lately holds. A reader that was away longer is forgotten; it finds
 * the log pruned past its snapshot (`prunedThrough`) and rebuilds from the documents.
 */
import type { Change } from '../model/index.ts';

export interface ChangeLog {
  /** Changes after `seq`, in order. */
  since(seq: number): Promise<Change[]>;
  /** The last sequence number ever given out (0: none yet); pruning does not lower it. */
  lastSeq(): Promise<number>;
  /** Changes up to this sequence number were pruned; every one after it is kept (0: none pruned). */
  prunedThrough(): Promise<number>;
  /**
   * What names this log, alike for every opening of the same store and unlike any other store's: a
   * snapshot replays only from the log it was flushed from.
   */
  identity(): Promise<string>;
  /**
   * Reader `reader` (an index somewhere) needs the changes after `seq` — its snapshot holds those up
   * to it — as of `now`: pruning keeps them. Returns `prunedThrough()` as of this hold: above `seq`,
   * changes the reader needs were gone before it held them (it must rebuild).
   */
  hold(reader: string, seq: number, now: number): Promise<number>;
  /**
   * Forgets changes up to `seq` that every reader heard from since `liveSince` holds (all readers
   * when unset); readers not heard from since then are forgotten. Returns `prunedThrough()` after.
   */
  prune(seq: number, liveSince?: number): Promise<number>;
  /**
   * Calls `onChange` soon after changes are committed (by this process or another), until the
   * returned function is called: a follower then reads them with `since`. May call it spuriously.
   */
  watch(onChange: () => void): Promise<() => Promise<void>>;
}
