/**
 * What bench/scale reads off a finished run and prints of it: the pages stored and found in the
 * corpus, the CPU and the database's work, how soon a stored page was searchable.
 */
import type { Store } from '../store/index.ts';
import { corpusPath } from './reachable.ts';

export const fmt = (n: number, d = 1) => n.toLocaleString('en', { minimumFractionDigits: d, maximumFractionDigits: d });

/** One crawl's figures (a SQLite run, or N workers on PostgreSQL). */
export type Run = {
  label: string;
  pages: number;
  found: number;
  seconds: number;
  pgCpu?: number;
  xacts?: number;
  statements?: number;
  walMB?: number;
  dbMB?: number;
  crawlerCpu: number;
  top?: string[];
  caughtUp?: number;
  searchable?: Searchable;
};

/** A run's line (and the statements taking most of the server's time, when asked for). */
export function printRun(r: Run, reachable: number): void {
  const pg =
    r.pgCpu === undefined
      ? ''
      : `; PostgreSQL ${fmt(r.pgCpu, 1)} CPU s (${fmt((r.pgCpu / r.pages) * 1000, 2)} ms a page), ${fmt(r.xacts! / r.pages, 1)} transactions ` +
        `and ${fmt(r.statements! / r.pages, 1)} statements a page, WAL ${fmt(r.walMB!, 0)} MB, database ${fmt(r.dbMB!, 0)} MB`;
  const top = r.top?.length ? `\n  statements taking most of the server's time:\n${r.top.map((t) => `    ${t}`).join('\n')}` : '';
  const node =
    r.caughtUp === undefined ? '' : `; the search node held every page ${fmt(r.caughtUp, 1)} s after the last was stored (its CPU counted with the crawlers')`;
  const seen = r.searchable
    ? `; stored → searchable on the node (${r.searchable.pages.toLocaleString('en')} pages): ` +
      `p50 ${fmt(r.searchable.p50, 0)} ms, p99 ${fmt(r.searchable.p99, 0)} ms, max ${fmt(r.searchable.max, 0)} ms`
    : '';
  console.log(
    `${r.label}: ${r.pages.toLocaleString('en')} pages in ${fmt(r.seconds, 1)} s → ${fmt(r.pages / r.seconds)} pages/s; ` +
      `${r.found.toLocaleString('en')} of ${reachable.toLocaleString('en')} reachable pages indexed (${fmt((r.found / reachable) * 100)} %); ` +
      `crawlers ${fmt(r.crawlerCpu, 1)} CPU s (${fmt((r.crawlerCpu / r.pages) * 1000, 2)} ms a page)${pg}${node}${seen}${top}`,
  );
}

/**
 * The documents stored, and the corpus pages among their URLs served on `port` (completeness
 * against the pages reachable by links), in one pass over the store.
 */
export async function storedFigures(store: Store, root: string, port: number): Promise<{ found: number; pages: number }> {
  const found = new Set<string>();
  let pages = 0;
  for await (const doc of store.documents.all()) {
    pages++;
    for (const url of await store.documents.urlsOf(doc)) {
      const u = new URL(url);
      const p = corpusPath(`http://corpus.invalid${u.pathname}${u.search}`, root, 'http://corpus.invalid');
      if (p !== undefined && u.port === String(port)) found.add(p);
    }
  }
  return { found: found.size, pages };
}

/** The search node's and the database's document counts at one moment (performance.now()). */
export type Sample = { at: number; stored: number; indexed: number };

export type Searchable = { pages: number; p50: number; p99: number; max: number };

/**
 * How long after the k-th page was stored (committed: counted in the database) the node's index held
 * k pages, for every k: p50, p99, max in ms. Measured to the 50 ms of the sampling (a delay within
 * one sample counts 0) — the node applies the log in commit order, so its k-th page is the k-th stored.
 */
export function searchableDelays(samples: readonly Sample[]): Searchable {
  const firstAt = (count: (s: Sample) => number) => {
    const at: number[] = [];
    for (const s of samples) while (at.length < count(s)) at.push(s.at);
    return at;
  };
  const stored = firstAt((s) => s.stored);
  const indexed = firstAt((s) => s.indexed);
  const delays = indexed.map((t, k) => t - stored[k]!).sort((a, b) => a - b);
  const q = (p: number) => delays[Math.min(delays.length - 1, Math.floor(p * delays.length))] ?? NaN;
  return { pages: delays.length, p50: q(0.5), p99: q(0.99), max: delays.at(-1) ?? NaN };
}
