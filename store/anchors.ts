/**
 * Inbound link text: how many links carry each text to each target (an identity URL, fetched or
 * not). The index gives a page's inbound anchor text a field of its own, and the number of links
 * in is a prior. A ranking signal derived from pages, so it may be buffered: a crash loses at most
 * what was added since the last `write()` (the appliance writes at least every second), never a page.
 */
import type { AnchorLink, Anchors } from '../model/index.ts';

/** Anchor texts kept per link (longer ones are cut): part of the contract, so that backends agree. */
export const MAX_ANCHOR_TEXT = 120;
/** Anchor texts read per page, the most used first (a much-linked page would otherwise cost a scan). */
export const MAX_ANCHORS_READ = 300;

export interface AnchorStore {
  /**
   * Counts the links of the page whose identity is `source` (its links to itself and empty texts
   * do not count; texts are trimmed and cut at MAX_ANCHOR_TEXT); buffered.
   */
  add(source: string, links: Iterable<AnchorLink>): void;
  /** Writes what was counted. */
  write(): Promise<void>;
  /** Distinct (target, text) pairs waiting to be written. */
  readonly buffered: number;
  /** The anchors of links to the page with URL id `id` (written ones only; at most MAX_ANCHORS_READ texts). */
  of(id: number): Promise<Anchors>;
  /**
   * `of` for many pages at once (each id in the map, with no texts when none): one round trip to a
   * database for the pages of an anchor refresh or of the change log followed, not one a page.
   */
  ofMany(ids: readonly number[]): Promise<Map<number, Anchors>>;
}
