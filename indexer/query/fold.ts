/**
 * Near-duplicates fold: in the ranked results, a page whose SimHash is within `maxDistance` bits
 * of a better-ranked one (a mirror, a print view, the same page of another version of the docs)
 * is shown under it as a similar page instead of as a result of its own.
 *
 * Results are read best first; each either joins the first group whose leader is near it or, while
 * groups are wanted, leads a new one. Leaders are found through band buckets (structures/simhashes.ts
 * `bandsFor`): a result is compared only with the leaders that share a band with it, so a page of
 * N results costs ~N × (maxDistance + 1) map lookups and a few popcounts, however deep the page.
 */
import type { Ranked } from './rank.ts';
import { bandsFor, type SimHashes } from '../structures/simhashes.ts';

/** A result and the near-duplicates folded under it, best first. */
export type Group = { readonly leader: Ranked; readonly similar: Ranked[] };

/**
 * Groups `ranked` (best first) until `wanted` groups are led; results after that join a group when
 * near its leader and are left out otherwise. With maxDistance 0, every result is its own group.
 */
export function fold(ranked: readonly Ranked[], simhashes: SimHashes, maxDistance: number, wanted: number): Group[] {
  const groups: Group[] = [];
  if (maxDistance <= 0) {
    for (const r of ranked.slice(0, wanted)) groups.push({ leader: r, similar: [] });
    return groups;
  }
  const bands = bandsFor(maxDistance);
  // Per band: band value → the groups whose leader has it.
  const buckets = bands.map(() => new Map<number, number[]>());
  for (const r of ranked) {
    const h = simhashes.get(r.id);
    let joined = false;
    if (h) {
      for (let b = 0; b < bands.length && !joined; b++) {
        for (const g of buckets[b]!.get(bands[b]!(h[0], h[1])) ?? []) {
          if (simhashes.distance(groups[g]!.leader.id, r.id) <= maxDistance) {
            groups[g]!.similar.push(r);
            joined = true;
            break;
          }
        }
      }
    }
    if (joined || groups.length >= wanted) continue;
    if (h) {
      for (let b = 0; b < bands.length; b++) {
        const key = bands[b]!(h[0], h[1]);
        const bucket = buckets[b]!.get(key);
        if (bucket) bucket.push(groups.length);
        else buckets[b]!.set(key, [groups.length]);
      }
    }
    groups.push({ leader: r, similar: [] });
  }
  return groups;
}

/**
 * The ranked results, taken deeper while folding them would leave fewer than `need` groups and
 * more results matched: a result page is never shorter for its near-duplicates. One group more is
 * asked for, so that the near-duplicates that rank above the next result are under the page's last
 * one. (Called before the query's first wait: `rank` may read views of the first pass's arrays.)
 */
export function deepEnough(
  ranked: Ranked[],
  rank: (k: number) => Ranked[],
  simhashes: SimHashes,
  maxDistance: number,
  need: number,
  matched: number,
): Ranked[] {
  if (maxDistance <= 0) return ranked;
  let k = Math.max(1, ranked.length);
  while (ranked.length < matched && fold(ranked, simhashes, maxDistance, need + 1).length <= need) {
    k *= 2;
    ranked = rank(k);
  }
  return ranked;
}
