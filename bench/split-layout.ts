/**
 * How a corpus is split over loopback hosts (bench/split-web.ts serves it so, bench/scale.ts seeds
 * and reports it so): host i is 127.0.0.(i + 2), and a path lives on the host its FNV-1a picks.
 */
import { fnv1a32 } from './hash.ts';

/** The address of host `i` (0-based): 127.0.0.2 onwards. */
export const addressOf = (i: number): string => `127.0.0.${i + 2}`;

/** Which of `hosts` hosts a corpus path (`/a/b.html`) lives on. */
export function ownerOf(path: string, hosts: number): number {
  return fnv1a32(path) % hosts;
}
