/**
 * The two halves of a query set (bench/relevance): a ranking is tuned on one and judged on the
 * other, so that a gain that only the queries it was tuned on see is not taken for one. A query's
 * half is fixed by a hash of the query itself — FNV-1a (32 bits) of its text, trimmed and in
 * lower case: not by its place in the file, so adding or reordering queries moves none.
 */
export type Half = 'tuning' | 'held-out';

export const HALVES: readonly Half[] = ['tuning', 'held-out'];

/** FNV-1a, 32 bits, of the UTF-8 bytes of `text`. */
export function fnv1a32(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The half `query` is in: even hashes tune, odd ones are held out. */
export function halfOf(query: string): Half {
  return fnv1a32(query.trim().toLowerCase()) % 2 === 0 ? 'tuning' : 'held-out';
}
