/**
 * The in-RAM search index: FlexSearch postings for candidate generation plus term statistics for
 * BM25F ranking. Pages are added, updated and removed one at a time, synchronously, as the crawl
 * delivers them, so a page is searchable the moment it is indexed. A search runs the query's
 * stages in order: parse → candidates (query/candidates.ts) → exact scores of the best → phrases
 * (query/phrases.ts) → phrase evidence for the best few → hits, snippets, facets, suggestion.
 */
import type { Anchors, PageContent, StoredDocument } from '../model/index.ts';
import { analyze, isAnalysis, withField } from './ingest/analyze.ts';
import { FIELDS } from './ingest/fields.ts';
import { sourceOf, type SourceFields } from './ingest/source.ts';
import { tokenize } from './ingest/tokenize.ts';
import { Candidates, DEFAULT_TUNING, type IndexTuning } from './query/candidates.ts';
import { QueryDocuments, type DocumentLookup, type SequenceLookup } from './query/documents.ts';
import { countFacets, type Facets } from './query/filters.ts';
import type { Occurrences } from './query/locate.ts';
import { parseQuery } from './query/parse.ts';
import { withPhrases } from './query/phrases.ts';
import { BODY_CHARS, bodyStart, phraseEvidence } from './query/proximity.ts';
import { byScore, topK, type Ranked } from './query/rank.ts';
import { snippetOf } from './query/snippet.ts';
import { suggest } from './query/suggest.ts';
import { ImpactLists } from './structures/impacts.ts';
import { Postings } from './structures/postings.ts';
import { TermStats } from './structures/term-stats.ts';

export { DEFAULT_TUNING, type IndexTuning } from './query/candidates.ts';
export type { DocumentLookup, SequenceLookup } from './query/documents.ts';

export type SearchHit = {
  readonly id: number;
  readonly url: string;
  /** Plain text: escape it before putting it in HTML. */
  readonly title: string;
  /** HTML: escaped text with the query terms in <mark>. */
  readonly snippet: string;
  readonly score: number;
  readonly fetchedAt: number;
  /** A focused crawl's classes of the page, best first. */
  readonly topics?: readonly string[];
  /** A document that is not an HTML page: its format (`pdf`, `docx`, `text`…). */
  readonly type?: string;
  /** Its pages (slides, sheets), when it has them. */
  readonly pages?: number;
  /** The page (slide, sheet; from 1) the snippet is on. */
  readonly page?: number;
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
  /** Result counts by host, language, type and topic (query/filters.ts). */
  readonly facets: Facets;
  /** The query with unknown words corrected ("did you mean"), when some word is unknown. */
  readonly suggestion?: string;
};

export type SearchOptions = { readonly page?: number; readonly size?: number };

/** What the search server may see of the index: reading only. */
export interface Searcher {
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  readonly documentCount: number;
}

/** The text of links to a page, and how many pages link to it (when none is given with the page). */
export type AnchorLookup = (id: number) => Anchors;

const NO_ANCHORS: Anchors = { texts: [], sources: 0 };
const ANCHOR = FIELDS.indexOf('anchor');

/** The anchor field's tokens: every distinct text of links to the page. */
function anchorTokens(anchors: Anchors): string[] {
  return tokenize(anchors.texts.join('\n'));
}

/** Candidates re-scored with phrase evidence, and how much it can add (× 1 + weight × evidence). */
const RERANK = 20;
const PHRASE_WEIGHT = 0.2;
/** The first pass keeps this many candidates for exact scoring (or FIRST_PASS_FACTOR × those needed). */
const FIRST_PASS_MIN = 200;
const FIRST_PASS_FACTOR = 4;
/** Results checked for an exact phrase at most (best first); beyond, the total is a lower bound. */
const PHRASE_CHECKS = 300;
const FACET_VALUES = 20;

export class SearchIndex implements Searcher {
  readonly stats = new TermStats();
  readonly postings = new Postings();
  readonly impacts: ImpactLists;
  readonly tuning: IndexTuning;
  private readonly candidates: Candidates;

  /**
   * `lookup` and `sequencesOf` read documents and their token sequences at query time (from the
   * store); `anchorsOf` gives a page's inbound anchors when upsert() is not told them.
   */
  constructor(
    private readonly lookup: DocumentLookup,
    private readonly anchorsOf: AnchorLookup = () => NO_ANCHORS,
    tuning: Partial<IndexTuning> = {},
    private readonly sequencesOf: SequenceLookup = () => new Map(),
  ) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    if (this.tuning.headDf > this.tuning.exactLimit) throw new RangeError('headDf must be at most exactLimit');
    this.impacts = new ImpactLists(this.stats, (t) => this.postings.docsWith(this.stats.term(t), this.stats.docFrequencyOf(t)), this.tuning.headDf);
    this.candidates = new Candidates(this.stats, this.postings, this.impacts, this.tuning);
  }

  /** Documents in the index by type (`html`, `pdf`, `docx`…), most first. */
  countByType(): { type: string; count: number }[] {
    const counts = new Map<string, number>();
    for (let id = 0; id < this.stats.sourceCount; id++) {
      const n = this.stats.documentsOfSource(id);
      if (n > 0) counts.set(this.stats.source(id).type, (counts.get(this.stats.source(id).type) ?? 0) + n);
    }
    return [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
  }

  get documentCount(): number {
    return this.stats.documentCount;
  }

  /**
   * Adds or replaces a document. `analysis` may come precomputed (from a parse worker); it must be
   * `analyze(doc)` — anything else is ignored and the document is analyzed here. `anchors`: the
   * text of links to the page (else asked of the anchor lookup).
   */
  upsert(doc: PageContent & SourceFields & { readonly id: number }, analysis?: unknown, anchors: Anchors = this.anchorsOf(doc.id)): void {
    const base = isAnalysis(analysis) ? analysis : analyze(doc);
    const a = anchors.texts.length ? withField(base, ANCHOR, anchorTokens(anchors)) : base;
    this.impacts.removing(doc.id, this.stats.vector(doc.id));
    const v = this.stats.add(doc.id, a, { inlinks: anchors.sources, source: sourceOf(doc) });
    this.postings.set(doc.id, a.terms);
    this.impacts.added(doc.id, v);
  }

  /**
   * Sets the anchor text and in-link count of an indexed page anew (links to it found after it was
   * indexed). Cheap: only that field of its vector changes. Returns false when it is not indexed.
   */
  refreshAnchors(id: number, anchors: Anchors = this.anchorsOf(id)): boolean {
    if (!this.stats.has(id)) return false;
    this.impacts.removing(id, this.stats.vector(id));
    const { added, removed } = this.stats.setField(id, ANCHOR, anchorTokens(anchors), anchors.sources);
    // Postings stay exact (a term's list is as long as its document frequency): a term that left
    // the page means re-adding it whole; new terms are appended.
    if (removed.length) this.postings.set(id, this.stats.termsOf(id));
    else this.postings.append(id, added);
    this.impacts.added(id, this.stats.vector(id)!);
    return true;
  }

  remove(id: number): void {
    const old = this.stats.vector(id);
    if (!old) return;
    this.impacts.removing(id, old);
    this.stats.remove(id);
    this.postings.remove(id);
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const started = performance.now();
    const page = Math.max(1, options.page ?? 1);
    const size = Math.min(100, Math.max(1, options.size ?? 10));
    const q = parseQuery(query);
    const termIds = this.candidates.knownTermIds(q.terms);
    // Everything that reads the first pass's shared arrays happens before the first await: another
    // query may run while this one waits for the store.
    const { ids, partial, estimates } = this.candidates.match(q, termIds);
    const matched = ids.length;
    // Only the best are needed in order: those shown, those re-scored, those checked for a phrase.
    const shown = Math.max(page * size, RERANK);
    const wanted = q.phrases.length ? PHRASE_CHECKS : shown;
    let ranked: Ranked[];
    // Two passes: the best by the impacts' estimate, then those scored exactly. For phrases, the
    // first pass's order is the order of the checks: only pages that hold the phrase are scored.
    if (estimates && q.phrases.length) ranked = topK(ids, estimates, wanted);
    else if (estimates) {
      const first = topK(ids, estimates, Math.max(FIRST_PASS_MIN, FIRST_PASS_FACTOR * wanted)).map((r) => r.id);
      ranked = topK(first, this.stats.scoreAll(first, termIds), wanted);
    } else ranked = topK(ids, this.stats.scoreAll(ids, termIds), wanted);
    let facets = q.phrases.length ? undefined : countFacets(this.stats, ids, FACET_VALUES);
    const docs = new QueryDocuments(this.lookup);
    // Exact phrases are checked on the best candidates, best first, until the page is full: unless
    // all were checked, the total is a lower bound.
    let capped = false;
    if (q.phrases.length) {
      const found = await withPhrases({ phrases: q.phrases, ordered: ranked, shown, rescore: estimates ? termIds : undefined }, this.stats, docs, this.sequencesOf);
      capped = found.checked < matched;
      ranked = found.ranked;
      facets = countFacets(this.stats, ranked.map((r) => r.id), FACET_VALUES);
    }
    // Phrase evidence re-scores the best candidates (it needs their text, so only a few). Their
    // bodies' occurrences are kept: a short page's snippet is made from them.
    const bodies = new Map<number, Occurrences>();
    if (q.terms.length > 1) {
      const top = ranked.slice(0, RERANK);
      await docs.load(top.map((r) => r.id));
      for (const r of top) {
        const d = await docs.get(r.id);
        if (!d) continue;
        const body = bodyStart(d.text, q.terms);
        bodies.set(r.id, body);
        r.score *= 1 + PHRASE_WEIGHT * phraseEvidence(d, q.terms, body);
      }
      top.sort(byScore);
      ranked.splice(0, top.length, ...top);
    }
    const onPage = ranked.slice((page - 1) * size, page * size);
    await docs.load(onPage.map((r) => r.id));
    const hits: SearchHit[] = [];
    for (const { id, score } of onPage) {
      const d = await docs.get(id);
      if (d) hits.push(hitOf(d, score, q.terms, d.text.length <= BODY_CHARS ? bodies.get(id) : undefined));
    }
    const suggestion = ranked.length === 0 || partial ? await suggest(q, this.stats, this.postings, docs) : undefined;
    return {
      query,
      total: q.phrases.length ? ranked.length : matched,
      ...(capped ? { totalIsLowerBound: true } : {}),
      tookMs: Math.round((performance.now() - started) * 100) / 100,
      page,
      size,
      partial,
      hits,
      facets: facets!,
      ...(suggestion ? { suggestion } : {}),
    };
  }
}

function hitOf(d: StoredDocument, score: number, terms: readonly string[], body: Occurrences | undefined): SearchHit {
  const snippet = snippetOf(d.text, terms, d.description, body);
  const facts = d.document;
  const page = facts?.pageOffsets && snippet.at !== undefined ? pageAt(facts.pageOffsets, snippet.at) : undefined;
  return {
    id: d.id,
    url: d.url,
    title: d.title,
    snippet: snippet.html,
    score: Math.round(score * 1000) / 1000,
    fetchedAt: d.fetchedAt,
    ...(d.topic?.classes.length ? { topics: d.topic.classes.map((c) => c.name) } : {}),
    ...(facts ? { type: facts.format } : {}),
    ...(facts?.pages ? { pages: facts.pages } : {}),
    ...(page ? { page } : {}),
  };
}

/** The page (from 1) that the character at `offset` is on, given where each page begins. */
export function pageAt(offsets: readonly number[], offset: number): number {
  let lo = 0;
  let hi = offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (offsets[mid]! <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}
