/**
 * The in-RAM search index: postings (compact per-term lists) for candidate generation, and the
 * dictionary, field lengths and document vectors (structures/index-contents.ts) for BM25F
 * ranking. Pages are added, updated and removed one at a time, synchronously, as the crawl
 * delivers them, so a page is searchable the moment it is indexed. A search runs the query's
 * stages in order: parse → candidates (query/candidates.ts) → exact scores of the best → phrases
 * (query/phrases.ts) → phrase evidence for the best few → hits, snippets, facets, suggestion.
 * Before the candidates, forgiving search (query/forgive.ts) widens the query's words with their
 * completions (the last word), corrections (typos) and the site's synonyms (query/synonyms.ts),
 * weighted below the words themselves.
 *
 * Each search reads the index through a view opened as it starts (`reading`,
 * structures/index-view.ts): the steps after its waits for the store read the figures and vectors
 * its first steps read, whatever pages came and went meanwhile; and it reads the corpus's figures
 * through its Lens (search-types.ts), this index's own or, on a shard, the whole corpus's.
 */
import type { Anchors, PageContent } from '../model/index.ts';
import { analyze, fieldTerms, isAnalysis, withField } from './ingest/analyze.ts';
import { FIELDS } from './ingest/fields.ts';
import { sourceOf, type SourceFields } from './ingest/source.ts';
import { stemmerFor } from './ingest/tokenize.ts';
import { Candidates, DEFAULT_TUNING, type IndexTuning } from './query/candidates.ts';
import { QueryDocuments, type DocumentLookup, type SequenceLookup } from './query/documents.ts';
import { countFacets } from './query/filters.ts';
import { deepEnough, fold } from './query/fold.ts';
import { hitMaker, type SearchHit } from './query/hits.ts';
import type { Occurrences } from './query/locate.ts';
import { exactForms } from './query/exact-forms.ts';
import { phrasesByLanguage, stemmersIn, termsIn } from './query/languages.ts';
import { parseQuery } from './query/parse.ts';
import { withPhrases } from './query/phrases.ts';
import { bodyStart, phraseEvidence } from './query/proximity.ts';
import { byScore, topK, type Ranked } from './query/rank.ts';
import { type Lens, pageOf, type Plan, type Ranking, type SearchOptions, type SearchResponse, type Searcher } from './search-types.ts';
import { suggest } from './query/suggest.ts';
import { autocomplete } from './query/autocomplete.ts';
import { forgive } from './query/forgive.ts';
import type { Synonyms } from './query/synonyms.ts';
import { Spellings } from './query/surface.ts';
import { scoreAll, slotWeights } from './query/weights.ts';
import { explainScore } from './query/explain.ts';
import { adjustRanking, foldPinned, hasAdjustments, isPinned, type Adjusted, type IdsOf } from './query/adjust.ts';
import type { ImpactLists } from './structures/impacts.ts';
import { SplitPostings } from './structures/split-postings.ts';
import { SimHashes } from './structures/simhashes.ts';
import { IndexContents } from './structures/index-contents.ts';
import type { IndexView } from './structures/index-view.ts';
import { Vocabulary } from './structures/vocabulary.ts';

export { DEFAULT_TUNING, type IndexTuning } from './query/candidates.ts';
export type { DocumentLookup, SequenceLookup } from './query/documents.ts';
export type { SearchHit } from './query/hits.ts';
export type { Lens, Plan, Ranking, SearchOptions, SearchResponse, Searcher, ShardsAnswered } from './search-types.ts';

/** The text of links to a page, and how many pages link to it (when none is given with the page). */
export type AnchorLookup = (id: number) => Anchors;

const NO_ANCHORS: Anchors = { texts: [], sources: 0 };
const ANCHOR = FIELDS.indexOf('anchor');

/** The anchor field's terms: every distinct text of links to the page, stemmed as the page (its language `lang`), and its identifiers. */
function anchorTerms(anchors: Anchors, lang: string | undefined): { terms: string[]; length: number } {
  return fieldTerms(anchors.texts.join('\n'), stemmerFor(lang).stem);
}

/** Candidates re-scored with phrase evidence, and how much it can add (× 1 + weight × evidence). */
export const RERANK = 20;
const PHRASE_WEIGHT = 0.2;
/** The first pass keeps this many candidates for exact scoring (or FIRST_PASS_FACTOR × those needed). */
const FIRST_PASS_MIN = 200;
const FIRST_PASS_FACTOR = 4;
/** Results checked for an exact phrase at most (best first); beyond, the total is a lower bound. */
const PHRASE_CHECKS = 300;
export const FACET_VALUES = 20;
/** Near-duplicates listed under a result at most. */
export const MAX_SIMILAR = 10;
/** Bits of SimHash within which a result folds under a better one, unless told otherwise (0: never). */
export const DEFAULT_FOLD_DISTANCE = 3;

export class SearchIndex implements Searcher {
  /** The dictionary, field lengths, vectors and sources (index-contents.ts), which every query reads through a view. */
  readonly stats = new IndexContents();
  /** Which documents hold each term: a frequent term's impact list, else FlexSearch (split-postings.ts). */
  readonly postings: SplitPostings;
  readonly impacts: ImpactLists;
  /** The prefix and typo indexes over the dictionary (forgiving search). */
  readonly vocabulary = new Vocabulary(this.stats.dictionary);
  readonly tuning: IndexTuning;
  private readonly candidates: Candidates;
  readonly spellings: Spellings;
  private changes = 0;
  /** Each document's SimHash, by id: near-duplicates fold under the better result (query/fold.ts). */
  readonly simhashes = new SimHashes();
  /** index.nearDuplicates.maxDistance (0: no folding). */
  foldDistance = DEFAULT_FOLD_DISTANCE;
  /** The store's ids of URLs (pinned and hidden pages: query/adjust.ts); unset: no page can be pinned or hidden. */
  idsOf: IdsOf | undefined;

  /**
   * `lookup` and `sequencesOf` read documents and their token sequences at query time (from the
   * store); `anchorsOf` gives a page's inbound anchors when upsert() is not told them.
   */
  constructor(
    readonly lookup: DocumentLookup,
    private readonly anchorsOf: AnchorLookup = () => NO_ANCHORS,
    tuning: Partial<IndexTuning> = {},
    private readonly sequencesOf: SequenceLookup = () => new Map(),
  ) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    if (this.tuning.headDf > this.tuning.exactLimit) throw new RangeError('headDf must be at most exactLimit');
    this.postings = new SplitPostings(this.stats, this.tuning.headDf);
    this.impacts = this.postings.impacts;
    this.spellings = new Spellings(this.postings);
    this.candidates = new Candidates(this.postings, this.impacts, this.tuning);
  }

  /** Documents in the index by type (`html`, `pdf`, `docx`…), most first. */
  countByType(): { type: string; count: number }[] {
    const counts = new Map<string, number>();
    const { sources } = this.stats;
    for (let id = 0; id < sources.sourceCount; id++) {
      const n = sources.documentsOf(id);
      if (n > 0) counts.set(sources.source(id).type, (counts.get(sources.source(id).type) ?? 0) + n);
    }
    return [...counts].map(([type, count]) => ({ type, count })).sort((a, b) => b.count - a.count || a.type.localeCompare(b.type));
  }

  get documentCount(): number {
    return this.stats.documentCount;
  }

  get version(): number {
    return this.changes;
  }

  /**
   * Adds or replaces a document. `analysis` may come precomputed (from a parse worker); it must be
   * `analyze(doc)` — anything else is ignored and the document is analyzed here. `anchors`: the
   * text of links to the page (else asked of the anchor lookup).
   */
  upsert(
    doc: PageContent & SourceFields & { readonly id: number; readonly simhash?: string },
    analysis?: unknown,
    anchors: Anchors = this.anchorsOf(doc.id),
  ): void {
    const base = isAnalysis(analysis) ? analysis : analyze(doc);
    const anchor = anchors.texts.length ? anchorTerms(anchors, doc.lang) : undefined;
    const a = anchor ? withField(base, ANCHOR, anchor.terms, anchor.length) : base;
    this.changes++;
    this.impacts.removing(doc.id, this.stats.vectors.get(doc.id));
    // (The terms it had come out of the postings: postings.ts keeps no register of them.)
    const before = this.stats.termsOf(doc.id);
    const v = this.stats.add(doc.id, a, { inlinks: anchors.sources, source: sourceOf(doc) });
    this.postings.set(doc.id, a.terms, before);
    this.impacts.added(doc.id, v);
    this.vocabulary.added(v.termIds);
    this.simhashes.set(doc.id, doc.simhash);
  }

  /**
   * Sets the anchor text and in-link count of an indexed page anew (links to it found after it was
   * indexed). Cheap: only that field of its vector changes. Returns false when it is not indexed.
   */
  refreshAnchors(id: number, anchors: Anchors = this.anchorsOf(id)): boolean {
    if (!this.stats.has(id)) return false;
    this.changes++;
    const { vectors } = this.stats;
    this.impacts.removing(id, vectors.get(id));
    const anchor = anchorTerms(anchors, this.stats.sources.source(vectors.sourceOf(id)).lang);
    const { added, removed } = this.stats.setField(id, ANCHOR, anchor.terms, anchors.sources, anchor.length);
    // Postings stay exact (a term's list is as long as its document frequency): a term that left
    // the page leaves its list; new terms are appended.
    if (removed.length) this.postings.drop(id, removed, () => this.stats.termsOf(id));
    this.postings.append(id, added);
    this.impacts.added(id, vectors.get(id)!);
    this.vocabulary.added(vectors.get(id)!.termIds);
    return true;
  }

  remove(id: number): void {
    const old = this.stats.vectors.get(id);
    if (!old) return;
    this.changes++;
    this.impacts.removing(id, old);
    const terms = this.stats.termsOf(id);
    this.stats.remove(id);
    this.postings.remove(id, terms);
    this.simhashes.delete(id);
  }

  /**
   * A view of the index as it stands, for one query (structures/index-view.ts): whatever the query
   * reads of it, before or after its waits, is as of now. Close it when the query is over
   * (`reading` does). The vocabulary takes in the dictionary's new terms first.
   */
  view(): IndexView {
    this.vocabulary.sync();
    return this.stats.view();
  }

  /** Runs a query over a view of the index as it stands, and closes the view when the query settles. */
  async reading<T>(query: (view: IndexView) => Promise<T>): Promise<T> {
    const view = this.view();
    try {
      return await query(view);
    } finally {
      view.close();
    }
  }

  /** What a query reads its statistics through when nothing else is said: this index's own, as of `view`. */
  lens(view: IndexView): Lens {
    // (Stemmed by the stemmer of each language the index holds pages in: query/languages.ts.)
    return { stats: view, documents: view, vocabulary: this.vocabulary, stemmers: stemmersIn(this.stats.sources) };
  }

  /** A query parsed, forgiven (with the site's `synonyms`) and weighed, with the statistics of `lens` (synchronous: nothing waits). */
  plan(query: string, exact: boolean, lens: Lens, synonyms?: Synonyms): Plan {
    const typed = parseQuery(query, lens.stemmers);
    const { stats, documents } = lens;
    const docsWith = (t: string, n: number) => this.postings.docsWith(t, n);
    const reads = { stats, documents, vocabulary: lens.vocabulary, docsWith, countTogether: lens.countTogether };
    const forgiven = forgive(typed, reads, exact, synonyms?.forQuery(typed, lens.stemmers));
    const weights = slotWeights(stats, forgiven.slots);
    const forms = exactForms(stats, documents, typed);
    return { typed, forgiven, weights, exactScores: (ids) => forms(ids, scoreAll(stats, documents, ids, weights)) };
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    return this.reading((view) => this.searchOver(query, options, this.lens(view)));
  }

  private async searchOver(query: string, options: SearchOptions, lens: Lens): Promise<SearchResponse> {
    const started = performance.now();
    const { page, size } = pageOf(options);
    const r = await this.rank(query, { ...options, page, size }, lens);
    const ranked = withEvidence(r.ranked, r.evidence);
    const folded = foldPinned(ranked, (rest, wanted) => fold(rest, this.simhashes, this.foldDistance, wanted), page * size);
    const onPage = folded.slice((page - 1) * size, page * size);
    const { docs } = r;
    await docs.loadStarts(onPage.flatMap((g) => [g.leader, ...g.similar.slice(0, MAX_SIMILAR)].map((x) => x.id)));
    const hits: SearchHit[] = [];
    const hitOf = hitMaker(r);
    for (const { leader, similar } of onPage) {
      const found = await hitOf(docs, leader.id, leader.score, r.bodies.get(leader.id));
      if (!found) continue;
      const explained = options.explain ? explainScore(r.plan, r.lens, leader.id, r.evidence?.get(leader.id)) : undefined;
      const adjusted = r.adjusted?.get(leader.id);
      const hit = { ...found, ...(explained ? { explain: explained } : {}), ...(adjusted ? { adjusted } : {}) };
      const near = [];
      for (const x of similar.slice(0, MAX_SIMILAR)) {
        const s = await docs.start(x.id);
        if (s) near.push({ url: s.url, title: s.title });
      }
      const more = similar.length - near.length;
      hits.push(near.length ? { ...hit, similar: near, ...(more > 0 ? { moreSimilar: more } : {}) } : hit);
    }
    const words = await this.words(r, onPage[0]?.leader.id);
    return {
      query,
      total: r.total,
      ...(r.capped ? { totalIsLowerBound: true } : {}),
      tookMs: Math.round((performance.now() - started) * 100) / 100,
      page,
      size,
      partial: r.partial,
      hits,
      facets: r.facets,
      ...words,
    };
  }

  /**
   * A query's best candidates by exact score, with what a page of them needs: the first
   * `page` × `size` (at least RERANK; deeper when near-duplicates would fold the page short, or to
   * find the pages with an exact phrase), and the phrase evidence of the best RERANK — not yet
   * applied (`withEvidence`), so that a coordinator can apply it to the best of all shards
   * (indexer/shards). `facetValues`: values kept per facet (FACET_VALUES).
   */
  async rank(query: string, options: SearchOptions & { readonly facetValues?: number } = {}, lens?: Lens): Promise<Ranking> {
    // (Without a lens, over a view of its own: as of now while the ranking runs, not after.)
    if (!lens) return this.reading((view) => this.rank(query, options, this.lens(view)));
    const { page, size } = pageOf(options);
    const facetValues = options.facetValues ?? FACET_VALUES;
    const plan = this.plan(query, options.exact ?? false, lens, options.synonyms);
    const { forgiven, weights, exactScores } = plan;
    const q = forgiven.query;
    // Everything that reads the first pass's shared arrays happens before the first await: another
    // query may run while this one waits for the store.
    const { ids, partial, estimates } = this.candidates.match(q, weights, lens);
    const matched = ids.length;
    // Only the best are needed in order: those shown, those re-scored, those checked for a phrase.
    const shown = Math.max(page * size, RERANK);
    // Two passes: the best by the impacts' estimate, then those scored exactly. For phrases, the
    // first pass's order is the order of the checks: only pages that hold the phrase are scored.
    const rank = (wanted: number): Ranked[] => {
      if (estimates && q.phrases.length) return topK(ids, estimates, wanted);
      if (!estimates) return topK(ids, exactScores(ids), wanted);
      const first = topK(ids, estimates, Math.max(FIRST_PASS_MIN, FIRST_PASS_FACTOR * wanted)).map((r) => r.id);
      return topK(first, exactScores(first), wanted);
    };
    let ranked = rank(q.phrases.length ? PHRASE_CHECKS : shown);
    // Near-duplicates will fold: deeper, if that would leave the page short.
    if (!q.phrases.length) ranked = deepEnough(ranked, rank, this.simhashes, this.foldDistance, page * size, matched);
    let facets = q.phrases.length ? undefined : countFacets(lens.documents, ids, facetValues);
    const docs = new QueryDocuments(this.lookup);
    // Exact phrases are checked on the best candidates, best first, until the page is full: unless
    // all were checked, the total is a lower bound.
    let capped = false;
    if (q.phrases.length) {
      // (Twice the page's pages with the phrase when near-duplicates may fold among them.)
      const found = await withPhrases(
        {
          phrases: q.phrases,
          ordered: ranked,
          shown: this.foldDistance > 0 ? 2 * shown : shown,
          rescore: estimates ? exactScores : undefined,
          phrasesOf: phrasesByLanguage(lens.documents, q.languages, q.phrases),
        },
        docs,
        this.sequencesOf,
      );
      // (Not every candidate checked, or more found than kept: either way more pages hold the phrase.)
      capped = found.checked < matched || found.found > found.ranked.length;
      ranked = found.ranked;
      facets = countFacets(
        lens.documents,
        ranked.map((r) => r.id),
        facetValues,
      );
    }
    // The console's levers (pins, hides, sections, clicks: query/adjust.ts), before phrase evidence reads the best.
    let adjusted: ReadonlyMap<number, Adjusted> | undefined;
    let totalChange = 0;
    if (hasAdjustments(options.adjust)) {
      const has = (id: number) => lens.documents.vector(id) !== undefined;
      const a = await adjustRanking(ranked, options.adjust, { idsOf: this.idsOf, has, docs, window: shown });
      ({ ranked, adjusted, totalChange } = a);
    }
    // Phrase evidence re-scores the best candidates (it needs their text, so only a few). Their
    // bodies' occurrences are kept: a page's snippet starts from them (query/hits.ts).
    const bodies = new Map<number, Occurrences>();
    let evidence: Map<number, number> | undefined;
    if (forgiven.terms.length > 1) {
      evidence = new Map();
      const top = ranked.slice(0, RERANK);
      // (Their starts: phrase evidence reads a body's first BODY_CHARS.)
      await docs.loadStarts(top.map((r) => r.id));
      for (const r of top) {
        const d = await docs.start(r.id);
        if (!d) continue;
        // (A page is read with its language's stemmer, and its stems of the query's words.)
        const { key, stem } = stemmerFor(d.lang);
        const body = bodyStart(d.text, forgiven.marked, stem);
        bodies.set(r.id, body);
        // (A pin keeps its place: its score is its rank in the rule, not its evidence.)
        evidence.set(r.id, isPinned(r.score) ? 1 : 1 + PHRASE_WEIGHT * phraseEvidence(d, termsIn(q.languages, key, forgiven.terms), body, stem));
      }
    }
    const total = q.phrases.length ? ranked.length : matched + totalChange;
    return { plan, lens, ranked, evidence, total, capped, partial, facets: facets!, docs, bodies, ...(adjusted?.size ? { adjusted } : {}) };
  }

  /** "Did you mean" (when nothing, or only some words, matched), the words taken for others — the one the result `first` holds — and their synonyms. */
  async words(r: Ranking, first: number | undefined): Promise<Pick<SearchResponse, 'suggestion' | 'corrected' | 'synonyms'>> {
    const { stats, documents, vocabulary } = r.lens;
    const suggestion = r.ranked.length === 0 || r.partial ? await suggest(r.plan.typed, stats, vocabulary, this.spellings, r.docs) : undefined;
    const corrected = [];
    // (A word taken for several: the one the first result holds — "elete rows" shows delete pages.)
    for (const c of r.plan.forgiven.corrected) {
      const term = c.terms.find((t) => first !== undefined && documents.contains(first, stats.termId(t) ?? -1)) ?? c.term;
      corrected.push({ from: c.word, to: (await this.spellings.closest(term, c.word, r.docs)) ?? term });
    }
    const { synonyms } = r.plan.forgiven;
    return { ...(suggestion ? { suggestion } : {}), ...(corrected.length ? { corrected } : {}), ...(synonyms.length ? { synonyms } : {}) };
  }

  async suggest(query: string, limit?: number, lens?: Lens): Promise<string[]> {
    if (!lens) return this.reading((view) => this.suggest(query, limit, this.lens(view)));
    return autocomplete(query, lens.stats, lens.vocabulary, this.spellings, new QueryDocuments(this.lookup), limit);
  }
}

/**
 * The ranked candidates with phrase evidence applied: the best RERANK re-scored (× each one's
 * factor) and re-sorted; none when the query had one word.
 */
export function withEvidence(ranked: readonly Ranked[], evidence: ReadonlyMap<number, number> | undefined): Ranked[] {
  if (!evidence) return [...ranked];
  const top = ranked.slice(0, RERANK).map((r) => ({ id: r.id, score: r.score * (evidence.get(r.id) ?? 1) }));
  return [...top.sort(byScore), ...ranked.slice(RERANK)];
}
