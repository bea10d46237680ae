/**
 * The two halves of a query set (bench/relevance): a ranking is tuned on one and judged on the
 * other, so that a gain that only the queries it was tuned on see is not taken for one. A query's
 * half is fixed by a hash of the query itself — FNV-1a (32 bits, bench/hash.ts) of its text,
 * trimmed and in lower case: not by its place in the file, so adding or reordering queries moves none.
 */
import { fnv1a32 } from '../hash.ts';

export type Half = 'tuning' | 'held-out';

export const HALVES: readonly Half[] = ['tuning', 'held-out'];

/** The half `query` is in: even hashes tune, odd ones are held out. */
export function halfOf(query: string): Half {
  return fnv1a32(query.trim().toLowerCase()) % 2 === 0 ? 'tuning' : 'held-out';
}
