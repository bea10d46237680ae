/**
 * Which shard holds a document (issue 22: an index larger than one node's RAM, split over search
 * nodes that each index a share): `trawl serve --shard K/N` indexes the documents whose URL hashes
 * to K of N.
 *
 * The hash is of the document's URL as stored — the URL record it belongs to, normalized, after
 * redirects (a redirect's target holds the page) and duplicates (the content-seen test stores one
 * document for all the URLs it was found under): so a document has one URL, which never changes
 * for its id, and lands on one shard whichever node looks. The rule, stable across versions,
 * machines and stores: the first four bytes of SHA-256 of the URL's UTF-8 bytes, read as a
 * big-endian unsigned integer, modulo N, plus one (shards count from 1).
 */
import { createHash } from 'node:crypto';

/** One share of N: shard `k` (1 … n) of `n`. */
export type ShardSpec = { readonly k: number; readonly n: number };

/** At most this many shards (a bound, so that "K/N" is never read as something absurd). */
export const MAX_SHARDS = 1024;

/** What is wrong with a "K/N" text, for an error message; undefined when it is right. */
export function shardProblem(text: string): string | undefined {
  const m = /^(\d{1,4})\/(\d{1,4})$/.exec(text.trim());
  if (!m) return `"${text}" is not K/N (e.g. 1/2: the first of two shards)`;
  const [k, n] = [Number(m[1]), Number(m[2])];
  if (n < 1 || n > MAX_SHARDS) return `"${text}": N must be from 1 to ${MAX_SHARDS}`;
  if (k < 1 || k > n) return `"${text}": K counts from 1 to N (${n})`;
  return undefined;
}

/** "K/N" as a ShardSpec; throws a RangeError saying what is wrong. */
export function parseShard(text: string): ShardSpec {
  const problem = shardProblem(text);
  if (problem) throw new RangeError(problem);
  const [k, n] = text.trim().split('/').map(Number);
  return { k: k!, n: n! };
}

/** The text of a spec: "K/N". */
export const shardText = (s: ShardSpec): string => `${s.k}/${s.n}`;

/** The shard (1 … n) of the document at `url`. */
export function shardOf(url: string, n: number): number {
  return (createHash('sha256').update(url, 'utf8').digest().readUInt32BE(0) % n) + 1;
}

/** True when shard `spec` holds the document at `url` (every document, without a spec). */
export function holds(spec: ShardSpec | undefined, url: string): boolean {
  return !spec || spec.n === 1 || shardOf(url, spec.n) === spec.k;
}
