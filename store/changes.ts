/**
 * The change log: every put and remove of a document, in order, with a sequence number that only
 * grows. The index records the last sequence number its snapshot holds and replays the rest.
 */
import type { Change } from '../model/index.ts';

export interface ChangeLog {
  /** Changes after `seq`, in order. */
  since(seq: number): Promise<Change[]>;
  /** The last sequence number ever given out (0: none yet); pruning does not lower it. */
  lastSeq(): Promise<number>;
  /** Forgets changes up to `seq` (a snapshot holds them now). */
  prune(seq: number): Promise<void>;
}
