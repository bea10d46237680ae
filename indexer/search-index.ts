/**
 * The in-RAM search index: FlexSearch postings for candidate generation plus TermStats for
 * BM25F ranking. Pages are added, updated and removed one at a time, synchronously, as the crawl
 * delivers them, so a page is searchable the moment its event is handled.
 */
import type { PageContent, StoredDocument } from '../store/types.ts';
import { analyze, isAnalysis, withField } from './analyze.ts';
import { FIELDS } from './fields.ts';
import { tokenize, tokenizeWithOffsets } from './tokenize.ts';
import { Postings } from './postings.ts';
import { phraseEvidence } from './proximity.ts';
import { containsPhrase, hostMatches, parseQuery, type ParsedQuery } from './query.ts';
import { makeSnippet } from './snippet.ts';
import { TermStats } from './stats.ts';

export type SearchHit = {
  readonly id: number;
  readonly url: string;
  /** Plain text: escape it before putting it in HTML. */
  readonly title: string;
  /** HTML: escaped text with the query terms in <mark>. */
  readonly snippet: string;
  readonly score: number;
  readonly fetchedAt: number;
};

export type SearchResponse = {
  readonly query: string;
  readonly total: number;
  readonly tookMs: number;
  readonly page: number;
  readonly size: number;
  /** No document matched every word: these match some of them. */
  readonly partial: boolean;
  /** Set when an exact phrase was checked on only the best results: there may be more. */
  readonly totalIsLowerBound?: boolean;
  readonly hits: readonly SearchHit[];
  /** Result counts by host (a site: filter narrows to one). */
  readonly facets: { readonly host: readonly { readonly value: string; readonly count: number }[] };
  /** The query with unknown words corrected ("did you mean"), when some word is unknown. */
  readonly suggestion?: string;
};

export type SearchOptions = { readonly page?: number; readonly size?: number };

/** What the search server may see of the index: reading only. */
export interface Searcher {
  search(query: string, options?: SearchOptions): SearchResponse;
  readonly documentCount: number;
}

export type DocumentLookup = (id: number) => StoredDocument | undefined;

/** The text of links to a page, and how many pages link to it (store/anchors.ts). */
export type AnchorLookup = (id: number) => { readonly texts: readonly string[]; readonly sources: number };

const ANCHOR = FIELDS.indexOf('anchor');

/** The anchor field's tokens: every distinct text of links to the page. */
function anchorTokens(anchors: { readonly texts: readonly string[] }): string[] {
  return tokenize(anchors.texts.join('\n'));
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return '';
  }
}
/** Candidates re-scored with phrase evidence, and how much it can add (× 1 + weight × evidence). */
const RERANK = 20;
const PHRASE_WEIGHT = 0.2;

export class SearchIndex implements Searcher {
  readonly stats = new TermStats();
  readonly postings = new Postings();

  constructor(
    private readonly lookup: DocumentLookup,
    private readonly anchorsOf: AnchorLookup = () => ({ texts: [], sources: 0 }),
  ) {}

  get documentCount(): number {
    return this.stats.documentCount;
  }

  /**
   * Adds or replaces a document. `analysis` may come precomputed (from a parse worker); it must be
   * `analyze(doc)` — anything else is ignored and the document is analyzed here.
   */
  upsert(doc: PageContent & { readonly id: number }, analysis?: unknown): void {
    const base = isAnalysis(analysis) ? analysis : analyze(doc);
    const anchors = this.anchorsOf(doc.id);
    const a = anchors.texts.length ? withField(base, ANCHOR, anchorTokens(anchors)) : base;
    this.stats.add(doc.id, a, { inlinks: anchors.sources, host: hostOf(doc.url) });
    this.postings.set(doc.id, a.terms);
  }

  /**
   * Re-reads the anchor text and in-link count of an indexed page (links to it found after it was
   * indexed). Cheap: only that field of its vector changes. Returns false when it is not indexed.
   */
  refreshAnchors(id: number): boolean {
    if (!this.stats.has(id)) return false;
    const anchors = this.anchorsOf(id);
    const { added, removed } = this.stats.setField(id, ANCHOR, anchorTokens(anchors), anchors.sources);
    // Postings stay exact (a term's list is as long as its document frequency): a term that left
    // the page means re-adding it whole; new terms are appended.
    if (removed.length) this.postings.set(id, this.stats.termsOf(id));
    else this.postings.append(id, added);
    return true;
  }

  remove(id: number): void {
    if (this.stats.remove(id)) this.postings.remove(id);
  }

  search(query: string, options: SearchOptions = {}): SearchResponse {
    const started = performance.now();
    const page = Math.max(1, options.page ?? 1);
    const size = Math.min(100, Math.max(1, options.size ?? 10));
    const q = parseQuery(query);
    const { ids, partial } = this.match(q);
    const termIds = this.knownTermIds(q.terms);
    const byScore = (a: Ranked, b: Ranked) => b.score - a.score || a.id - b.id;
    const { scores, hosts } = this.stats.scoreAll(ids, termIds);
    // Only the best are needed in order: those shown, those re-scored, those checked for a phrase.
    const wanted = q.phrases.length ? PHRASE_CHECKS : Math.max(page * size, RERANK);
    let ranked = topK(ids, scores, wanted);
    const total = q.phrases.length ? undefined : ids.length;
    const docs = new Map<number, StoredDocument | undefined>();
    const doc = (id: number) => {
      if (!docs.has(id)) docs.set(id, this.lookup(id));
      return docs.get(id);
    };
    // Exact phrases are checked on the text of the best candidates (the index keeps no positions).
    let capped = false;
    if (q.phrases.length) {
      capped = ids.length > PHRASE_CHECKS;
      ranked = ranked.filter((r) => {
        const d = doc(r.id);
        if (!d) return false;
        const fields = [d.title, d.headings.join('\n'), d.description, d.text].map((f) => tokenize(f));
        return q.phrases.every((p) => fields.some((tokens) => containsPhrase(tokens, p)));
      });
    }
    // Phrase evidence re-scores the best candidates (it needs their text, so only a few).
    if (q.terms.length > 1) {
      const top = ranked.slice(0, RERANK);
      for (const r of top) {
        const d = doc(r.id);
        if (d) r.score *= 1 + PHRASE_WEIGHT * phraseEvidence(d, q.terms);
      }
      top.sort(byScore);
      ranked.splice(0, top.length, ...top);
    }
    const hits: SearchHit[] = [];
    for (const { id, score } of ranked.slice((page - 1) * size, page * size)) {
      const d = doc(id);
      if (!d) continue;
      hits.push({
        id,
        url: d.url,
        title: d.title,
        snippet: makeSnippet(d.text, q.terms, d.description),
        score: Math.round(score * 1000) / 1000,
        fetchedAt: d.fetchedAt,
      });
    }
    const suggestion = ranked.length === 0 || partial ? this.suggest(q) : undefined;
    return {
      query,
      total: total ?? ranked.length,
      ...(capped ? { totalIsLowerBound: true } : {}),
      tookMs: Math.round((performance.now() - started) * 100) / 100,
      page,
      size,
      partial,
      hits,
      facets: { host: q.phrases.length ? this.hostFacet(ranked.map((r) => this.stats.vector(r.id)?.host ?? -1)) : this.hostFacet(hosts) },
      ...(suggestion ? { suggestion } : {}),
    };
  }

  /**
   * The documents that match: every group (any of its terms), no excluded term, on a site: host
   * if given. Candidates come from the rarest group's postings and are checked against the other
   * groups in their vectors. When nothing matches all groups, documents matching any term are
   * returned and `partial` is set.
   */
  private match(q: ParsedQuery): { ids: number[]; partial: boolean } {
    const excludedIds = this.knownTermIds(q.excluded);
    const onSite = this.siteFilter(q.sites);
    const keep = (id: number) => !excludedIds.some((t) => this.stats.contains(id, t)) && onSite(id);
    if (!q.groups.length) {
      // Only filters (site:): every page they allow, best linked first.
      return { ids: q.sites.length ? [...this.stats.documentIds()].filter(keep) : [], partial: false };
    }
    const groups = q.groups
      .map((g) => ({ terms: g, ids: this.knownTermIds(g), df: g.reduce((n, t) => n + this.stats.docFrequency(t), 0) }))
      .sort((a, b) => a.df - b.df);
    const [rarest, ...others] = groups;
    if (rarest!.df > 0) {
      // One term: its postings as they are; several (OR): their union.
      const lists = rarest!.terms.map((t) => this.postings.docsWith(t, this.stats.docFrequency(t)));
      const candidates = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())];
      const filtering = others.length > 0 || excludedIds.length > 0 || q.sites.length > 0;
      const ids = filtering ? candidates.filter((id) => others.every((g) => g.ids.some((t) => this.stats.contains(id, t))) && keep(id)) : candidates;
      if (ids.length || q.groups.length === 1) return { ids, partial: false };
    }
    if (q.groups.length === 1) return { ids: [], partial: false };
    const any = new Set<number>();
    for (const t of q.terms) for (const id of this.postings.docsWith(t, this.stats.docFrequency(t))) any.add(id);
    const ids = [...any].filter(keep);
    return { ids, partial: ids.length > 0 };
  }

  /** The ids of the terms the index knows (unknown terms match nothing). */
  private knownTermIds(terms: readonly string[]): number[] {
    return terms.map((t) => this.stats.termId(t)).filter((x): x is number => x !== undefined);
  }

  private siteFilter(sites: readonly string[]): (id: number) => boolean {
    if (!sites.length) return () => true;
    const cache = new Map<number, boolean>();
    return (id) => {
      const host = this.stats.vector(id)?.host;
      if (host === undefined) return false;
      let ok = cache.get(host);
      if (ok === undefined) {
        const name = this.stats.hostName(host).replace(/:\d+$/, '');
        ok = sites.some((s) => hostMatches(name, s.replace(/:\d+$/, '')));
        cache.set(host, ok);
      }
      return ok;
    };
  }

  /** Result counts by host (given the host of each result), most first (at most FACET_VALUES). */
  private hostFacet(hosts: ArrayLike<number>): { value: string; count: number }[] {
    const counts = new Map<number, number>();
    for (let i = 0; i < hosts.length; i++) {
      const h = hosts[i]!;
      if (h >= 0) counts.set(h, (counts.get(h) ?? 0) + 1);
    }
    return [...counts]
      .sort((a, b) => b[1] - a[1] || a[0] - b[0])
      .slice(0, FACET_VALUES)
      .map(([h, count]) => ({ value: this.stats.hostName(h), count }));
  }

  /**
   * "Did you mean": the query with each word the index does not know replaced by the closest
   * known one (edit distance ≤ 2, the most frequent of the closest), spelled as a page spells it.
   * Undefined when no word can be corrected.
   */
  private suggest(q: ParsedQuery): string | undefined {
    const unknown = new Set(q.terms.filter((t) => this.stats.docFrequency(t) === 0));
    if (!unknown.size) return undefined;
    let changed = false;
    // Rewrite the query as typed: each word whose term is unknown is replaced by the closest
    // known term, spelled as a page spells it (its stem may not be a word).
    const out = q.raw.replace(/[\p{L}\p{N}][\p{L}\p{N}\p{M}_]*/gu, (word) => {
      const tokens = tokenize(word);
      if (tokens.length !== 1 || !unknown.has(tokens[0]!)) return word;
      const best = closestTerm(tokens[0]!, this.stats.dictionary());
      if (!best) return word;
      changed = true;
      return this.surfaceOf(best, word.toLowerCase()) ?? best;
    });
    return changed ? out : undefined;
  }

  /** How a page holding `term` writes it: of its spellings there, the one closest to `typed`. */
  private surfaceOf(term: string, typed: string): string | undefined {
    const [id] = this.postings.docsWith(term, 1);
    const d = id === undefined ? undefined : this.lookup(id);
    if (!d) return undefined;
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const text of [d.title, d.headings.join('\n'), d.text.slice(0, 100_000)]) {
      for (const t of tokenizeWithOffsets(text)) {
        if (t.term !== term) continue;
        const surface = text.slice(t.start, t.end).toLowerCase();
        const distance = editDistance(surface, typed, 8);
        if (distance < bestDistance) {
          best = surface;
          bestDistance = distance;
        }
      }
    }
    return best;
  }
}

type Ranked = { id: number; score: number };

/** The k best of `ids` by score (ties: lower id first), best first — without sorting them all. */
function topK(ids: readonly number[], scores: Float64Array, k: number): Ranked[] {
  const better = (i: number, j: number) => scores[i]! > scores[j]! || (scores[i] === scores[j] && ids[i]! < ids[j]!);
  // A min-heap of indexes: its root is the worst of the best k so far.
  const heap: number[] = [];
  const down = (at: number) => {
    for (;;) {
      const l = 2 * at + 1;
      const r = l + 1;
      let worst = at;
      if (l < heap.length && better(heap[worst]!, heap[l]!)) worst = l;
      if (r < heap.length && better(heap[worst]!, heap[r]!)) worst = r;
      if (worst === at) return;
      [heap[at], heap[worst]] = [heap[worst]!, heap[at]!];
      at = worst;
    }
  };
  for (let i = 0; i < ids.length; i++) {
    if (heap.length < k) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!better(heap[parent]!, heap[at]!)) break;
        [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
        at = parent;
      }
    } else if (k > 0 && better(i, heap[0]!)) {
      heap[0] = i;
      down(0);
    }
  }
  return heap.map((i) => ({ id: ids[i]!, score: scores[i]! })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/** Results checked for an exact phrase at most (best first); beyond, the total is a lower bound. */
const PHRASE_CHECKS = 300;
const FACET_VALUES = 20;

/** The most frequent term at the smallest edit distance (1 or 2) from `word`, if any. */
function closestTerm(word: string, dictionary: Iterable<[string, number]>): string | undefined {
  if (word.length < 3) return undefined;
  let best: string | undefined;
  let bestDistance = 3;
  let bestDf = 0;
  const max = word.length <= 4 ? 1 : 2;
  for (const [term, df] of dictionary) {
    if (Math.abs(term.length - word.length) > max || term[0] !== word[0]) continue;
    const d = editDistance(word, term, Math.min(max, bestDistance));
    if (d < bestDistance || (d === bestDistance && df > bestDf)) {
      best = term;
      bestDistance = d;
      bestDf = df;
    }
  }
  return bestDistance <= max ? best : undefined;
}

/** Damerau–Levenshtein (optimal string alignment) distance, or limit + 1 once it exceeds `limit`. */
export function editDistance(a: string, b: string, limit: number): number {
  const n = a.length;
  const m = b.length;
  let prev2: number[] = [];
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur = [i];
    let rowMin = i;
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2]! + 1);
      cur.push(v);
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > limit) return limit + 1;
    prev2 = prev;
    prev = cur;
  }
  return prev[m]! > limit ? limit + 1 : prev[m]!;
}
