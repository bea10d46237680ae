/**
 * The in-RAM search index: FlexSearch postings for candidate generation plus TermStats for
 * BM25F ranking. Pages are added, updated and removed one at a time, synchronously, as the crawl
 * delivers them, so a page is searchable the moment its event is handled.
 */
import type { PageContent, StoredDocument } from '../store/types.ts';
import { analyze, isAnalysis, withField } from './analyze.ts';
import { FIELDS } from './fields.ts';
import { tokenize } from './tokenize.ts';
import { Postings } from './postings.ts';
import { phraseEvidence } from './proximity.ts';
import { parseQuery, type ParsedQuery } from './query.ts';
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
  readonly hits: readonly SearchHit[];
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
/** Candidates re-scored with phrase evidence, and how much it can add (× 1 + weight × evidence). */
const RERANK = 30;
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
    const a = anchors.texts.length ? withField(base, ANCHOR, tokenize(anchors.texts.join('\n'))) : base;
    this.stats.add(doc.id, a, anchors.sources);
    this.postings.set(doc.id, a.terms);
  }

  /**
   * Re-reads the anchor text and in-link count of an indexed page (links to it found after it was
   * indexed). Cheap: only that field of its vector changes. Returns false when it is not indexed.
   */
  refreshAnchors(id: number): boolean {
    if (!this.stats.has(id)) return false;
    const anchors = this.anchorsOf(id);
    const { added, removed } = this.stats.setField(id, ANCHOR, tokenize(anchors.texts.join('\n')), anchors.sources);
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
    const termIds = q.terms.map((t) => this.stats.termId(t)).filter((x): x is number => x !== undefined);
    const byScore = (a: { id: number; score: number }, b: { id: number; score: number }) => b.score - a.score || a.id - b.id;
    const ranked = ids.map((id) => ({ id, score: this.stats.score(id, termIds) })).sort(byScore);
    // Phrase evidence re-scores the best candidates (it needs their text, so only a few).
    const docs = new Map<number, StoredDocument | undefined>();
    if (q.terms.length > 1) {
      const top = ranked.slice(0, RERANK);
      for (const r of top) {
        const doc = this.lookup(r.id);
        docs.set(r.id, doc);
        if (doc) r.score *= 1 + PHRASE_WEIGHT * phraseEvidence(doc, q.terms);
      }
      top.sort(byScore);
      ranked.splice(0, top.length, ...top);
    }
    const hits: SearchHit[] = [];
    for (const { id, score } of ranked.slice((page - 1) * size, page * size)) {
      const doc = docs.has(id) ? docs.get(id) : this.lookup(id);
      if (!doc) continue;
      hits.push({
        id,
        url: doc.url,
        title: doc.title,
        snippet: makeSnippet(doc.text, q.terms, doc.description),
        score: Math.round(score * 1000) / 1000,
        fetchedAt: doc.fetchedAt,
      });
    }
    return { query, total: ranked.length, tookMs: Math.round((performance.now() - started) * 100) / 100, page, size, partial, hits };
  }

  /**
   * Every document holding all query terms (none of the excluded ones). Candidates come from the
   * rarest term's postings and are checked against the other terms in their vectors. When no
   * document holds them all, documents holding any of them are returned and `partial` is set.
   */
  private match(q: ParsedQuery): { ids: number[]; partial: boolean } {
    if (!q.terms.length) return { ids: [], partial: false };
    const byRarity = [...q.terms].sort((a, b) => this.stats.docFrequency(a) - this.stats.docFrequency(b));
    const excludedIds = q.excluded.map((t) => this.stats.termId(t)).filter((x): x is number => x !== undefined);
    const keep = (id: number) => !excludedIds.some((t) => this.stats.contains(id, t));

    const rarest = byRarity[0]!;
    if (this.stats.docFrequency(rarest) > 0) {
      const others = byRarity.slice(1).map((t) => this.stats.termId(t)!);
      const ids = this.postings.docsWith(rarest, this.stats.docFrequency(rarest)).filter((id) => others.every((t) => this.stats.contains(id, t)) && keep(id));
      if (ids.length || q.terms.length === 1) return { ids, partial: false };
    }
    if (q.terms.length === 1) return { ids: [], partial: false };
    const any = new Set<number>();
    for (const t of byRarity) for (const id of this.postings.docsWith(t, this.stats.docFrequency(t))) any.add(id);
    return { ids: [...any].filter(keep), partial: any.size > 0 };
  }
}
