/**
 * What the search console's levers do to a query's ranked candidates (the appliance makes the
 * adjustments for each query: appliance/curation.ts): pinned pages first, in their order; hidden
 * pages never; the pages under a boosted or buried section of the site, and the pages searchers
 * chose for this query (learned from clicks), weighed by a factor. Applied where a node ranks its
 * own documents (SearchIndex.rank), so that a coordinator over shards merges results already
 * adjusted, as it merges scores.
 */
import type { PrefixRule } from '../../model/index.ts';
import type { QueryDocuments } from './documents.ts';
import type { Group } from './fold.ts';
import type { Ranked } from './rank.ts';

/** A query's adjustments, by URL (as the store normalizes them); each list may be empty. */
export type Adjustments = {
  /** Shown first, in this order, when indexed — whether they match the query or not. */
  readonly pin: readonly string[];
  /** Never shown for this query. */
  readonly hide: readonly string[];
  /** Every page under a prefix weighs `factor` times (several: multiplied). */
  readonly prefixes: readonly PrefixRule[];
  /** What searchers' clicks taught of this query: a page's factor (appliance/click-model.ts). */
  readonly learned: readonly { readonly url: string; readonly factor: number }[];
};

/** What was done to a result (SearchHit.adjusted): the explanation's part of the levers. */
export type Adjusted = {
  /** Pinned for this query (its place is the pin's, whatever its score). */
  readonly pinned?: true;
  /** The factor of the sections it is under (prefix rules). */
  readonly section?: number;
  /** The factor searchers' clicks gave it for this query. */
  readonly clicks?: number;
};

/**
 * A pinned page's score: above any page's (a coordinator merges shards by score, so a pin stays
 * first over shards), less a step per place, so that pins keep their order.
 */
export const PINNED_SCORE = 1e9;

/** Whether `score` is a pin's (PINNED_SCORE less its place; phrase evidence leaves a pin's score alone). */
export const isPinned = (score: number): boolean => score > PINNED_SCORE / 2;

/**
 * Near-duplicates folded as `fold` folds them, the pins apart: a pin stands alone at its place, and
 * no result folds under one (a pinned page is not the best of its kind: the owner put it there).
 */
export function foldPinned(ranked: readonly Ranked[], fold: (rest: readonly Ranked[], wanted: number) => Group[], wanted: number): Group[] {
  let n = 0;
  while (n < ranked.length && isPinned(ranked[n]!.score)) n++;
  if (!n) return fold(ranked, wanted);
  return [...ranked.slice(0, n).map((leader) => ({ leader, similar: [] })), ...fold(ranked.slice(n), Math.max(0, wanted - n))];
}

/** Resolves URLs to the index's document ids (the store's): those it does not know are absent. */
export type IdsOf = (urls: readonly string[]) => Promise<ReadonlyMap<string, number>> | ReadonlyMap<string, number>;

export type AdjustContext = {
  readonly idsOf: IdsOf | undefined;
  /** Whether a document is in the index as the query runs. */
  readonly has: (id: number) => boolean;
  readonly docs: QueryDocuments;
  /** How many of the best are weighed by factors (their URLs read): those a page and phrase evidence show. */
  readonly window: number;
};

export type AdjustedRanking = {
  readonly ranked: Ranked[];
  /** By document id: what was done to it. */
  readonly adjusted: ReadonlyMap<number, Adjusted>;
  /** The total's change: pins that were not candidates, less hidden candidates. */
  readonly totalChange: number;
};

export const hasAdjustments = (a: Adjustments | undefined): a is Adjustments =>
  a !== undefined && (a.pin.length > 0 || a.hide.length > 0 || a.prefixes.length > 0 || a.learned.length > 0);

/** `ranked` (best first) with `adjust` applied. */
export async function adjustRanking(ranked: readonly Ranked[], adjust: Adjustments, ctx: AdjustContext): Promise<AdjustedRanking> {
  const adjusted = new Map<number, Adjusted>();
  const urls = [...adjust.pin, ...adjust.hide];
  const ids = urls.length && ctx.idsOf ? await ctx.idsOf(urls) : new Map<string, number>();
  const hidden = new Set(adjust.hide.flatMap((u) => (ids.has(u) ? [ids.get(u)!] : [])));
  // (A pin's score is by its place in the rule, not among those this node holds: over shards, each holds some.)
  const top: Ranked[] = [];
  adjust.pin.forEach((u, i) => {
    const id = ids.get(u);
    if (id !== undefined && !hidden.has(id) && !top.some((t) => t.id === id) && ctx.has(id)) top.push({ id, score: PINNED_SCORE - i });
  });
  const pins = new Set(top.map((t) => t.id));
  let rest = ranked.filter((r) => !hidden.has(r.id) && !pins.has(r.id));
  const totalChange = top.length - (ranked.length - rest.length);
  if (adjust.prefixes.length || adjust.learned.length) rest = await weighed(rest, adjust, ctx, adjusted);
  for (const id of pins) adjusted.set(id, { pinned: true });
  return { ranked: [...top, ...rest], adjusted, totalChange };
}

/** The best `ctx.window` weighed by their sections' and their clicks' factors, all re-sorted. */
async function weighed(ranked: Ranked[], adjust: Adjustments, ctx: AdjustContext, adjusted: Map<number, Adjusted>): Promise<Ranked[]> {
  const window = ranked.slice(0, ctx.window);
  await ctx.docs.loadStarts(window.map((r) => r.id));
  const learned = new Map(adjust.learned.map((l) => [l.url, l.factor]));
  const out = [...ranked];
  for (let i = 0; i < window.length; i++) {
    const url = (await ctx.docs.start(window[i]!.id))?.url;
    if (!url) continue;
    let section = 1;
    for (const p of adjust.prefixes) if (url.startsWith(p.prefix)) section *= p.factor;
    const clicks = learned.get(url) ?? 1;
    if (section === 1 && clicks === 1) continue;
    out[i] = { id: window[i]!.id, score: window[i]!.score * section * clicks };
    adjusted.set(window[i]!.id, { ...(section !== 1 ? { section } : {}), ...(clicks !== 1 ? { clicks } : {}) });
  }
  // (Ties: the lower id first, as topK orders them.)
  return out.sort((a, b) => b.score - a.score || a.id - b.id);
}
