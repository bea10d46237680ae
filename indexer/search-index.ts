/**
 * The in-RAM search index: FlexSearch postings for candidate generation plus TermStats for
 * BM25F ranking. Pages are added, updated and removed one at a time, synchronously, as the crawl
 * delivers them, so a page is searchable the moment its event is handled.
 */
import type { PageContent, StoredDocument } from '../model/index.ts';
import { analyze, isAnalysis, withField } from './ingest/analyze.ts';
import { FIELDS } from './ingest/fields.ts';
import { tokenize, tokenizeWithOffsets } from './ingest/tokenize.ts';
import { hasPhrase, locate, phraseTest, type Occurrences } from './query/locate.ts';
import { currentDoc, entryDoc, ImpactLists, type Block } from './structures/impacts.ts';
import { Postings } from './structures/postings.ts';
import { sequenceHas, termHash } from './ingest/sequence.ts';
import { BODY_CHARS, bodyStart, phraseEvidence } from './query/proximity.ts';
import { parseQuery, type ParsedQuery } from './query/parse.ts';
import { makeSnippet } from './query/snippet.ts';
import { countFacets, sourceFilter, type Facets } from './query/filters.ts';
import { sourceOf, type SourceFields } from './ingest/source.ts';
import { indexOf, TermStats } from './structures/term-stats.ts';

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
  /** Result counts by host, language, type and topic (sources.ts). */
  readonly facets: Facets;
  /** The query with unknown words corrected ("did you mean"), when some word is unknown. */
  readonly suggestion?: string;
};

export type SearchOptions = { readonly page?: number; readonly size?: number };

/**
 * When a query is scored candidate by candidate, and when in two passes (impacts.ts). The defaults
 * keep an exactly scored query under ~2 ms; tests lower them to exercise both ways on small data.
 */
export type IndexTuning = {
  /** A query whose rarest word is in at most this many documents is scored exactly, candidate by candidate. */
  exactLimit: number;
  /** Terms in at least this many documents get an impact list (at most exactLimit). */
  readonly headDf: number;
};
export const DEFAULT_TUNING: IndexTuning = { exactLimit: 2000, headDf: 2000 };

/** What the search server may see of the index: reading only. */
export interface Searcher {
  search(query: string, options?: SearchOptions): Promise<SearchResponse>;
  readonly documentCount: number;
}

export type DocumentLookup = (id: number) => StoredDocument | undefined;

/**
 * The token sequences (sequence.ts) kept of some documents, by id (those without one are left
 * out): exact phrases are checked on them first. Asked for a few dozen at a time (one read for all).
 */
export type SequenceLookup = (ids: readonly number[]) => ReadonlyMap<number, Uint32Array>;

/** The text of links to a page, and how many pages link to it (store/anchors.ts). */
export type AnchorLookup = (id: number) => { readonly texts: readonly string[]; readonly sources: number };

const ANCHOR = FIELDS.indexOf('anchor');

/** The anchor field's tokens: every distinct text of links to the page. */
function anchorTokens(anchors: { readonly texts: readonly string[] }): string[] {
  return tokenize(anchors.texts.join('\n'));
}

/** Candidates re-scored with phrase evidence, and how much it can add (× 1 + weight × evidence). */
const RERANK = 20;
const PHRASE_WEIGHT = 0.2;

export class SearchIndex implements Searcher {
  readonly stats = new TermStats();
  readonly postings = new Postings();
  readonly impacts: ImpactLists;
  readonly tuning: IndexTuning;
  /** A first pass's per-document sums and match bits, by dense id; zero between queries. */
  private acc = new Float64Array(0);
  private mask = new Uint32Array(0);
  private titles = new Uint8Array(0);
  /**
   * A first pass's candidates and their estimates (each document once at most), valid until the
   * next query: made once, as fresh arrays of this size cost page faults and collections.
   */
  private firstPass = { ids: new Uint32Array(0), estimates: new Float64Array(0) };

  constructor(
    private readonly lookup: DocumentLookup,
    private readonly anchorsOf: AnchorLookup = () => ({ texts: [], sources: 0 }),
    tuning: Partial<IndexTuning> = {},
    private readonly sequencesOf: SequenceLookup = () => new Map(),
  ) {
    this.tuning = { ...DEFAULT_TUNING, ...tuning };
    if (this.tuning.headDf > this.tuning.exactLimit) throw new RangeError('headDf must be at most exactLimit');
    this.impacts = new ImpactLists(this.stats, (t) => this.postings.docsWith(this.stats.term(t), this.stats.docFrequencyOf(t)), this.tuning.headDf);
  }

  get documentCount(): number {
    return this.stats.documentCount;
  }

  /**
   * Adds or replaces a document. `analysis` may come precomputed (from a parse worker); it must be
   * `analyze(doc)` — anything else is ignored and the document is analyzed here.
   */
  upsert(doc: PageContent & SourceFields & { readonly id: number }, analysis?: unknown): void {
    const base = isAnalysis(analysis) ? analysis : analyze(doc);
    const anchors = this.anchorsOf(doc.id);
    const a = anchors.texts.length ? withField(base, ANCHOR, anchorTokens(anchors)) : base;
    this.impacts.removing(doc.id, this.stats.vector(doc.id));
    const v = this.stats.add(doc.id, a, { inlinks: anchors.sources, source: sourceOf(doc) });
    this.postings.set(doc.id, a.terms);
    this.impacts.added(doc.id, v);
  }

  /**
   * Re-reads the anchor text and in-link count of an indexed page (links to it found after it was
   * indexed). Cheap: only that field of its vector changes. Returns false when it is not indexed.
   */
  refreshAnchors(id: number): boolean {
    if (!this.stats.has(id)) return false;
    const anchors = this.anchorsOf(id);
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
    const termIds = this.knownTermIds(q.terms);
    const { ids, partial, estimates } = this.match(q, termIds);
    const byScore = (a: Ranked, b: Ranked) => b.score - a.score || a.id - b.id;
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
    const docs = new Map<number, StoredDocument | undefined>();
    const doc = (id: number) => {
      if (!docs.has(id)) docs.set(id, this.lookup(id));
      return docs.get(id);
    };
    // Exact phrases are checked on the best candidates (the index keeps no positions: their token
    // sequences, else their text), best first, until the page is full: unless all were checked,
    // the total is a lower bound.
    let capped = false;
    if (q.phrases.length) {
      const ordered = ranked;
      const check = (trustHashes: boolean) => this.withPhrases(q.phrases, ordered, shown, estimates ? termIds : undefined, doc, trustHashes);
      // Hashes that match are confirmed on the text of the pages shown only; if one was wrong (a
      // collision: never seen but possible), all are checked again, every match confirmed.
      const found = check(true) ?? check(false)!;
      capped = found.checked < ids.length;
      ranked = found.ranked;
    }
    // Phrase evidence re-scores the best candidates (it needs their text, so only a few). Their
    // bodies' occurrences are kept: a short page's snippet is made from them.
    const bodies = new Map<number, Occurrences>();
    if (q.terms.length > 1) {
      const top = ranked.slice(0, RERANK);
      for (const r of top) {
        const d = doc(r.id);
        if (!d) continue;
        const body = bodyStart(d.text, q.terms);
        bodies.set(r.id, body);
        r.score *= 1 + PHRASE_WEIGHT * phraseEvidence(d, q.terms, body);
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
        snippet: makeSnippet(d.text, q.terms, d.description, d.text.length <= BODY_CHARS ? bodies.get(id) : undefined),
        score: Math.round(score * 1000) / 1000,
        fetchedAt: d.fetchedAt,
        ...(d.topic?.classes.length ? { topics: d.topic.classes.map((c) => c.name) } : {}),
      });
    }
    const suggestion = ranked.length === 0 || partial ? this.suggest(q) : undefined;
    return {
      query,
      total: q.phrases.length ? ranked.length : ids.length,
      ...(capped ? { totalIsLowerBound: true } : {}),
      tookMs: Math.round((performance.now() - started) * 100) / 100,
      page,
      size,
      partial,
      hits,
      facets: countFacets(this.stats, q.phrases.length ? ranked.map((r) => r.id) : ids, FACET_VALUES),
      ...(suggestion ? { suggestion } : {}),
    };
  }

  /**
   * The best of `ordered` (best first, by exact score, or by estimate when `rescore` gives the
   * query's terms) that hold every phrase, until `shown` are found, and how many were checked.
   * A page's token sequence rules it out alone; a page without one is checked on its text. In
   * estimate order, PHRASE_MARGIN × `shown` are found, then scored exactly and the best kept.
   * A match by hashes is confirmed on the text once it is among those kept: when `trustHashes`
   * and a confirmation fails, the answer is undefined (check again with it off, which confirms
   * each match as it is found).
   */
  private withPhrases(phrases: readonly (readonly string[])[], ordered: readonly Ranked[], shown: number, rescore: readonly number[] | undefined, doc: (id: number) => StoredDocument | undefined, trustHashes: boolean): { ranked: Ranked[]; checked: number } | undefined {
    const holdsPhrases = phraseChecker(phrases);
    const hashes = phrases.map((p) => p.map(termHash));
    const found: Ranked[] = [];
    const byHashes = new Set<number>();
    const enough = rescore ? PHRASE_MARGIN * shown : shown;
    let checked = 0;
    let sequences: ReadonlyMap<number, Uint32Array> = new Map();
    for (const r of ordered) {
      if (found.length >= enough) break;
      if (checked % SEQUENCE_BATCH === 0) sequences = this.sequencesOf(ordered.slice(checked, checked + SEQUENCE_BATCH).map((x) => x.id));
      checked++;
      const sequence = sequences.get(r.id);
      if (sequence && !hashes.every((p) => sequenceHas(sequence, p))) continue;
      if (sequence && trustHashes) byHashes.add(r.id);
      else {
        const d = doc(r.id);
        if (!d || !holdsPhrases(d)) continue;
      }
      found.push(r);
    }
    if (rescore) {
      const exact = this.stats.scoreAll(found.map((r) => r.id), rescore);
      found.forEach((r, i) => (r.score = exact[i]!));
      found.sort((a, b) => b.score - a.score || a.id - b.id);
    }
    const ranked = found.slice(0, shown);
    for (const r of ranked) {
      if (!byHashes.has(r.id)) continue;
      const d = doc(r.id);
      if (!d || !holdsPhrases(d)) return undefined;
    }
    return { ranked, checked };
  }

  /**
   * The documents that match: every group (any of its terms), no excluded term, and the site:,
   * lang: and type: filters if given. When nothing matches all groups, documents matching any
   * term are returned and `partial` is set. With few candidates, they come from the rarest group's postings and are
   * checked against the other groups in their vectors; with many, by the impact lists, which
   * also give each one an estimated score.
   */
  private match(q: ParsedQuery, termIds: readonly number[]): Match {
    const excludedIds = this.knownTermIds(q.excluded);
    const onSource = sourceFilter(this.stats, q);
    const keep = (id: number) => !excludedIds.some((t) => this.stats.contains(id, t)) && (!onSource || onSource(id));
    if (!q.groups.length) {
      // Only filters (site:): every page they allow, best linked first.
      return { ids: onSource ? [...this.stats.documentIds()].filter(keep) : [], partial: false };
    }
    const groups = q.groups
      .map((g) => ({ terms: g, ids: this.knownTermIds(g), df: g.reduce((n, t) => n + this.stats.docFrequency(t), 0) }))
      .sort((a, b) => a.df - b.df);
    const [rarest, ...others] = groups;
    const twoPass = groups.length <= MAX_GROUPS && this.stats.allDense;
    if (rarest!.df > this.tuning.exactLimit && twoPass) return this.matchByImpacts(groups, termIds, excludedIds, onSource, false);
    if (rarest!.df > 0) {
      // One term: its postings as they are; several (OR): their union.
      const lists = rarest!.terms.map((t) => this.postings.docsWith(t, this.stats.docFrequency(t)));
      const candidates = lists.length === 1 ? lists[0]! : [...new Set(lists.flat())];
      const filtering = others.length > 0 || excludedIds.length > 0 || onSource !== undefined;
      const ids = filtering ? candidates.filter((id) => others.every((g) => g.ids.some((t) => this.stats.contains(id, t))) && keep(id)) : candidates;
      if (ids.length || q.groups.length === 1) return { ids, partial: false };
    }
    if (q.groups.length === 1) return { ids: [], partial: false };
    if (twoPass && groups.reduce((n, g) => n + g.df, 0) > this.tuning.exactLimit) return this.matchByImpacts(groups, termIds, excludedIds, onSource, true);
    const any = new Set<number>();
    for (const t of q.terms) for (const id of this.postings.docsWith(t, this.stats.docFrequency(t))) any.add(id);
    const ids = [...any].filter(keep);
    return { ids, partial: ids.length > 0 };
  }

  /**
   * The first pass over many candidates: each query term adds IDF × impact to a per-document sum,
   * counts title matches and sets the bits of the groups it is in; excluded terms set another
   * bit. The candidates are then read off the rarest group's documents (or, `partial`, every
   * group's), with an estimate that is the exact score's formula (stats.ts `scorer`) on the
   * lists' figures. Terms without an impact list (rare ones, in an OR) are read from their
   * vectors. Arrays by document id, not maps: a common word touches every document.
   */
  private matchByImpacts(groups: readonly { terms: readonly string[] }[], termIds: readonly number[], excludedIds: readonly number[], onSource: ((id: number) => boolean) | undefined, partialOnly: boolean): Match {
    const { source, prior, titleLength, version } = this.stats.byId();
    if (this.acc.length < source.length) {
      this.acc = new Float64Array(source.length);
      this.mask = new Uint32Array(source.length);
      this.titles = new Uint8Array(source.length);
      this.firstPass = { ids: new Uint32Array(source.length), estimates: new Float64Array(source.length) };
    }
    const { acc, mask, titles, impacts, firstPass } = this;
    if (groups.length === 1 && groups[0]!.terms.length === 1 && !excludedIds.length && !onSource && !partialOnly) {
      // One word: its list is the answer, and the estimates come straight off it.
      const t = this.stats.termId(groups[0]!.terms[0]!);
      if (t !== undefined && impacts.has(t)) return { ...impacts.estimate(t, this.stats.idf(t), firstPass), partial: false };
    }
    // Each term's documents, in blocks: to read candidates off, and to clear the arrays after.
    // An impact list is read in place (stale entries are told by their version); a term without
    // one has its postings made into a block, so that every term is read by the same loops.
    const blocksByTerm = new Map<number, readonly Block[]>();
    const docsOf = (t: number): readonly Block[] => {
      let docs = blocksByTerm.get(t);
      if (!docs) {
        docs = impacts.has(t) ? impacts.blocks(t) : [impacts.blockOf(this.postings.docsWith(this.stats.term(t), this.stats.docFrequencyOf(t)))];
        blocksByTerm.set(t, docs);
      }
      return docs;
    };
    // Each distinct term once, with the bits of every group it is in.
    const bitsOf = new Map<number, number>();
    groups.forEach((g, bit) => {
      for (const term of g.terms) {
        const t = this.stats.termId(term);
        if (t !== undefined && this.stats.docFrequencyOf(t) > 0) bitsOf.set(t, (bitsOf.get(t) ?? 0) | (1 << bit));
      }
    });
    // The exact scorer's q and IDF mass (stats.ts `scorer`): over every query term the dictionary knows.
    const q = termIds.length;
    const idfSum = termIds.reduce((sum, t) => sum + this.stats.idf(t), 0);
    for (const [t, bits] of bitsOf) {
      const w = this.stats.idf(t);
      // (docsOf also records what to clear after.)
      const [block] = docsOf(t);
      if (impacts.has(t)) impacts.accumulate(t, w, bits, acc, mask, titles);
      else {
        const impact = this.stats.impactFunction();
        for (let i = 0; i < block!.length; i++) {
          const id = entryDoc(block!, i);
          const v = this.stats.vector(id)!;
          const row = indexOf(v.termIds, t);
          acc[id]! += w * impact(v, row);
          mask[id]! |= bits;
          if (TermStats.inTitle(v, row)) titles[id]!++;
        }
      }
    }
    for (const t of excludedIds) {
      for (const block of docsOf(t)) {
        for (let i = 0; i < block.length; i++) {
          const id = currentDoc(block, i, version, source);
          if (id >= 0) mask[id]! |= EXCLUDED;
        }
      }
    }
    const all = (1 << groups.length) - 1;
    const read = (terms: readonly string[], seen: number, full: boolean): Match => {
      const blocks = this.knownTermIds(terms).filter((t) => bitsOf.has(t)).flatMap(docsOf);
      const { ids, estimates } = firstPass;
      let n = 0;
      for (const b of blocks) {
        for (let i = 0; i < b.length; i++) {
          // A document once (it may be in several lists), if it matches. (Its version need not be
          // checked: only current entries set its bits, and it is read once, at whichever entry.)
          const id = entryDoc(b, i);
          const m = mask[id]!;
          if (m & seen) continue;
          mask[id] = m | seen;
          if (m & EXCLUDED || (full ? (m & all) !== all : (m & all) === 0) || (onSource && !onSource(id))) continue;
          estimates[n] = acc[id]! + TermStats.titleBonus(idfSum, titles[id]!, q, titleLength[id]!) + prior[id]!;
          ids[n++] = id;
        }
      }
      return { ids: ids.subarray(0, n), partial: !full && n > 0, estimates: estimates.subarray(0, n) };
    };
    let result = partialOnly ? undefined : read(groups[0]!.terms, SEEN, true);
    if (!result?.ids.length && groups.length > 1) result = read(groups.flatMap((g) => g.terms), SEEN_ANY, false);
    // Clear what was touched: entry by entry, or — when that is a good part of the index — all at once.
    const touched = [...blocksByTerm.values()].flat();
    if (touched.reduce((n, b) => n + b.length, 0) * 8 > source.length) {
      acc.fill(0, 0, source.length);
      mask.fill(0, 0, source.length);
      titles.fill(0, 0, source.length);
    } else {
      for (const b of touched) {
        for (let i = 0; i < b.length; i++) {
          const id = entryDoc(b, i);
          acc[id] = 0;
          mask[id] = 0;
          titles[id] = 0;
        }
      }
    }
    return result ?? { ids: [], partial: false };
  }

  /** The ids of the terms the index knows (unknown terms match nothing). */
  private knownTermIds(terms: readonly string[]): number[] {
    return terms.map((t) => this.stats.termId(t)).filter((x): x is number => x !== undefined);
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
/** Matching documents; with `estimates` (a first pass's scores, aligned) when there were many. */
type Match = { ids: ArrayLike<number>; partial: boolean; estimates?: Float64Array };

/** The first pass keeps this many candidates for exact scoring (or FIRST_PASS_FACTOR × those needed). */
const FIRST_PASS_MIN = 200;
const FIRST_PASS_FACTOR = 4;
/**
 * A phrase query with many candidates checks them in the order of their estimates and scores
 * exactly only those that hold the phrase (scoring 600 candidates exactly was a third of a phrase
 * query's time): PHRASE_MARGIN × those shown are found, and the best of them by exact score shown
 * (bench/index compares the top ten with exhaustive scoring).
 */
const PHRASE_MARGIN = 2;
/** Bits of the first pass's mask: one per group (so at most MAX_GROUPS), excluded, seen. */
const MAX_GROUPS = 28;
const EXCLUDED = 1 << 31;
const SEEN = 1 << 30;
const SEEN_ANY = 1 << 29;

/**
 * A test of a document for a query's exact phrases, each in some field (the short fields first:
 * the body is the cost): the quick test of ASCII text (locate.ts `phraseTest`), else the terms'
 * occurrences.
 */
function phraseChecker(phrases: readonly (readonly string[])[]): (d: StoredDocument) => boolean {
  const quick = phrases.map(phraseTest);
  const terms = [...new Set(phrases.flat())];
  return (d) => {
    const fields: (() => string)[] = [() => d.title, () => d.headings.join('\n'), () => d.description, () => d.text];
    const texts: (string | undefined)[] = [];
    const found: (Occurrences | undefined)[] = [];
    return phrases.every((p, k) =>
      fields.some((field, i) => {
        const text = (texts[i] ??= field());
        return quick[k]!(text) ?? hasPhrase((found[i] ??= locate(text, terms, false)), p);
      }),
    );
  };
}

/** The k best of `ids` by score (ties: lower id first), best first — without sorting them all. */
function topK(ids: ArrayLike<number>, scores: Float64Array, k: number): Ranked[] {
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
  // Most candidates score below the worst kept: one comparison rejects them.
  let floor = -Infinity;
  for (let i = 0; i < ids.length; i++) {
    if (scores[i]! < floor) continue;
    if (heap.length < k) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const parent = (at - 1) >> 1;
        if (!better(heap[parent]!, heap[at]!)) break;
        [heap[parent], heap[at]] = [heap[at]!, heap[parent]!];
        at = parent;
      }
      if (heap.length === k) floor = scores[heap[0]!]!;
    } else if (k > 0 && better(i, heap[0]!)) {
      heap[0] = i;
      down(0);
      floor = scores[heap[0]!]!;
    }
  }
  return heap.map((i) => ({ id: ids[i]!, score: scores[i]! })).sort((a, b) => b.score - a.score || a.id - b.id);
}

/** Results checked for an exact phrase at most (best first); beyond, the total is a lower bound. */
const PHRASE_CHECKS = 300;
/** Token sequences read at once for phrase checks (a statement per batch, not per page). */
const SEQUENCE_BATCH = 32;
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
