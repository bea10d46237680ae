/**
 * Ranking that learns from clicks (issue 37): for each query (as understood, its words in any
 * order: close variants are one) and each page shown for it, the clicks it got over the clicks
 * expected at the positions it was shown at — clicks over expected clicks (COEC), the expectation
 * being the click-through rate of each position over every search, which is what position bias
 * is. Only a difference beyond chance moves a page (`sigmas`), smoothed (`smoothing` expected
 * clicks of prior at a ratio of 1) and bounded: a page people choose rises for that query, up to
 * `rise` times its score; a page shown often and never chosen sinks slowly (the square root of its
 * ratio), to `sink` at most. One session counts once per query
 * (shown) and once per query and page (clicked), so that no session, and no bot, moves a page.
 */
import type { LoggedSearch, SearchClick } from '../model/index.ts';
import { normalQuery } from '../model/index.ts';

export const CLICK_MODEL = {
  /** Ranks counted (two pages of results): beyond, a click is rare and says little — and the index weighs the best 20 only (RERANK). */
  positions: 20,
  /** The prior: this many expected clicks at a ratio of 1, added to both sides. */
  smoothing: 3,
  /** How far (in a Poisson count's standard deviations, plus one click) a page's clicks must be from those expected to move it. */
  sigmas: 2,
  /** A page rises only with this share of the query's clicks at least: the page people choose, not one a few slipped onto. */
  minShare: 0.4,
  /** A page's factor at most (it rises), and at least (it sinks). */
  rise: 8,
  sink: 0.5,
  /** A query's sessions before its clicks weigh (below, too little to tell a choice from chance). */
  minSessions: 5,
  /** (query, page) pairs kept at most: the rarest queries beyond are not learned (~200 bytes a pair). */
  maxPairs: 500_000,
  /** Sessions remembered to count each once (beyond, the oldest are forgotten: a session is minutes long). */
  maxSessions: 200_000,
} as const;

/** Results a page, as the search page and the widget ask (PAGE_SIZE.default): a search's page p starts at rank (p − 1) × PAGE. */
const PAGE = 10;

type Pair = { clicks: number; shownAt: Float64Array };

/** A query's words, lower-cased, without its filters (`site:…`, `lang:…`, `type:`, `topic:`: parse.ts) or operators' marks (`String::new` is a word). */
export function queryWords(query: string): string[] {
  return normalQuery(query)
    .split(' ')
    .filter((w) => !/^-?(site|lang|type|topic):/.test(w))
    .map((w) => w.replace(/^[-+]+|["'`()]+/g, ''))
    .filter(Boolean);
}

/** The key of a query: its words, sorted and unique (close variants are one). */
export function queryKey(query: string): string {
  return [...new Set(queryWords(query))].sort().join(' ');
}

export class ClickModel {
  private readonly queries = new Map<string, { sessions: number; pages: Map<string, Pair> }>();
  private pairs = 0;
  /** Searches and clicks at each position, over every query: the position's click-through rate. */
  private readonly shownAll: Float64Array;
  private readonly clickedAll: Float64Array;
  private readonly seen = new Set<string>();
  private readonly chosen = new Set<string>();

  constructor(private readonly tuning: typeof CLICK_MODEL = CLICK_MODEL) {
    this.shownAll = new Float64Array(tuning.positions);
    this.clickedAll = new Float64Array(tuning.positions);
  }

  /** A logged search with its clicks (in any order; each search once). */
  add(search: LoggedSearch, clicks: readonly SearchClick[]): void {
    const key = queryKey(search.understood);
    if (!key || !search.shown.length) return;
    const who = search.session ?? search.id;
    // (A rank, not a place on the page: page 2's first result is the 11th — PAGE a page, as the page and the widget ask.)
    const first = (search.page - 1) * PAGE;
    if (first >= this.tuning.positions) return;
    let q = this.queries.get(key);
    const newSession = !this.seen.has(`${who}\n${key}`);
    const pageOnce = !this.seen.has(`${who}\n${key}\n${search.page}`);
    if (pageOnce) {
      remember(this.seen, `${who}\n${key}`, this.tuning.maxSessions);
      remember(this.seen, `${who}\n${key}\n${search.page}`, this.tuning.maxSessions);
      if (!q) {
        if (this.pairs >= this.tuning.maxPairs) return;
        q = { sessions: 0, pages: new Map() };
        this.queries.set(key, q);
      }
      if (newSession) q.sessions++;
      const n = Math.min(search.shown.length, this.tuning.positions - first);
      for (let p = 0; p < n; p++) {
        const pair = this.pairOf(q, search.shown[p]!);
        if (pair) pair.shownAt[first + p]!++;
        this.shownAll[first + p]!++;
      }
    }
    if (!q) return;
    for (const c of clicks) {
      const p = c.position - 1;
      if (p < 0 || first + p >= this.tuning.positions || search.shown[p] !== c.url) continue;
      const k = `${who}\n${key}\n${c.url}`;
      if (this.chosen.has(k)) continue;
      remember(this.chosen, k, this.tuning.maxSessions);
      const pair = this.pairOf(q, c.url);
      if (!pair) continue;
      pair.clicks++;
      this.clickedAll[first + p]!++;
    }
  }

  /**
   * What clicks taught of `query`: each page's factor (none until it has minSessions sessions).
   * A page moves only when its clicks are far from those expected — more than `sigmas` standard
   * deviations of a Poisson count away — so that clicks falling at random (a searcher's slip, a
   * bot's guess) move nothing: a page chosen rises by its ratio squared (up to `rise`), a page passed
   * over sinks by the ratio's square root (down to `sink`).
   */
  factors(query: string): { url: string; factor: number }[] {
    const q = this.queries.get(queryKey(query));
    if (!q || q.sessions < this.tuning.minSessions) return [];
    const { smoothing, rise, sink, sigmas } = this.tuning;
    const out: { url: string; factor: number }[] = [];
    let clicks = 0;
    for (const pair of q.pages.values()) clicks += pair.clicks;
    for (const [url, pair] of q.pages) {
      let expected = 0;
      for (let p = 0; p < pair.shownAt.length; p++) if (pair.shownAt[p]) expected += pair.shownAt[p]! * this.rate(p);
      const ratio = (pair.clicks + smoothing) / (expected + smoothing);
      const spread = sigmas * Math.sqrt(expected) + 1;
      let factor = 1;
      // (A choice is also a share of the query's clicks: a few slips on one page are not.)
      if (pair.clicks >= expected + spread && pair.clicks >= this.tuning.minShare * clicks) factor = Math.min(rise, ratio * ratio);
      else if (pair.clicks <= expected - spread) factor = Math.max(sink, Math.sqrt(ratio));
      if (factor !== 1) out.push({ url, factor: Math.round(factor * 1000) / 1000 });
    }
    return out;
  }

  /** The queries learned, and the (query, page) pairs kept. */
  get size(): { queries: number; pairs: number } {
    return { queries: this.queries.size, pairs: this.pairs };
  }

  /** Position `p`'s click-through rate over every search (0 before any click there). */
  private rate(p: number): number {
    return this.shownAll[p] ? this.clickedAll[p]! / this.shownAll[p]! : 0;
  }

  private pairOf(q: { pages: Map<string, Pair> }, url: string): Pair | undefined {
    let pair = q.pages.get(url);
    if (!pair) {
      if (this.pairs >= this.tuning.maxPairs) return undefined;
      pair = { clicks: 0, shownAt: new Float64Array(this.tuning.positions) };
      q.pages.set(url, pair);
      this.pairs++;
    }
    return pair;
  }
}

function remember(set: Set<string>, key: string, max: number): void {
  if (set.size >= max) set.delete(set.values().next().value!);
  set.add(key);
}
