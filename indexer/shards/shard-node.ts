/**
 * What a shard answers its coordinator (the routes are search-ui/api/shard-routes.ts): in the
 * first round the statistics of the query's terms here (record.ts), in the second the query ranked
 * over its documents with the corpus's statistics (replay.ts) — each candidate with its exact
 * score before phrase evidence, its evidence factor, its SimHash and its hit — so that the
 * coordinator merges them as one node ranks its own (merge.ts); and completions as you type. Each
 * answer reads this index through a view opened as it starts (structures/index-view.ts).
 */
import type { Source } from '../ingest/source.ts';
import type { Adjustments } from '../query/adjust.ts';
import type { Facets } from '../query/filters.ts';
import type { SearchHit } from '../query/hits.ts';
import { hitMaker, hitOf, wordsOf } from '../query/hits.ts';
import { autocomplete } from '../query/autocomplete.ts';
import { QueryDocuments } from '../query/documents.ts';
import { Synonyms } from '../query/synonyms.ts';
import type { SpellingLookup } from '../query/surface.ts';
import type { SearchIndex } from '../search-index.ts';
import type { SearchOptions } from '../search-types.ts';
import type { IndexView } from '../structures/index-view.ts';
import { Recorder } from './record.ts';
import { Misses, replayLens } from './replay.ts';
import type { CorpusStats, TermReport } from './statistics.ts';

/**
 * Values of a facet a shard sends at most, most frequent first: the coordinator's twenty are the
 * corpus's as long as no shard has more values than this among its results (a crawl of many
 * hosts: a host beyond every shard's first FACETS_SENT is not counted, one beyond some is counted
 * short).
 */
export const FACETS_SENT = 1000;

/**
 * The first round's question: a query (or, `suggest`, a query being typed), stemmed by these
 * stemmers (the coordinator's order; unset: this index's), with the site's synonyms (their lines:
 * query/synonyms.ts `Synonyms.lines`) — their terms are looked up too.
 */
export type TermsAsked = {
  readonly q: string;
  readonly exact?: boolean;
  readonly suggest?: boolean;
  readonly stemmers?: readonly string[];
  readonly synonyms?: readonly string[];
};

/**
 * The second round's question: the query, the page wanted, the corpus's statistics (unset: this
 * index's own — a test of what they change), the synonyms' lines.
 */
export type SearchAsked = {
  readonly q: string;
  readonly exact?: boolean;
  readonly page: number;
  readonly size: number;
  readonly corpus?: CorpusStats;
  /** The console's levers for the query, applied here as the node ranks (query/adjust.ts): merged by score, pins stay first. */
  readonly adjust?: Adjustments;
  readonly synonyms?: readonly string[];
};

/** A candidate as a shard ranks it: its exact score before phrase evidence, and what showing it takes. */
export type ShardEntry = {
  readonly id: number;
  readonly score: number;
  /** Its SimHash (16 hex digits), when it has one: near-duplicates fold across shards. */
  readonly simhash?: string;
  /** Its host, language, type and topics: the facets of a phrase's results are counted over the merged list. */
  readonly source: Source;
  /** As a near-duplicate folded under another it is shown by its URL and title. */
  readonly url: string;
  readonly title: string;
  /**
   * As a result, with its snippet: made for the first page × size here (a result on the page is
   * among them unless near-duplicates folded many above it; the coordinator then asks: `hits`).
   */
  readonly hit?: SearchHit;
};

export type ShardAnswer = {
  /** "K/N", when this node holds one shard. */
  readonly shard?: string;
  readonly documents: number;
  readonly total: number;
  readonly capped: boolean;
  readonly partial: boolean;
  /** The values of each facet counted here, the FACETS_SENT most frequent. */
  readonly facets: Facets;
  /** The best candidates here, best first by `score`: at least page × size (and RERANK), deeper where near-duplicates fold. */
  readonly entries: readonly ShardEntry[];
  /** The terms a snippet marks, and the query's words (query/hits.ts wordsOf): for hits asked for later (`hits`). */
  readonly marked: readonly string[];
  readonly words?: number;
  /** The phrase-evidence factors of the best RERANK here, [id, factor]; null for a one-word query. */
  readonly evidence: readonly (readonly [number, number])[] | null;
  /** "Did you mean", when nothing or only some words matched here. */
  readonly suggestion?: string;
  /** Words taken for others, as this shard's first result holds them. */
  readonly corrected?: readonly { readonly from: string; readonly to: string }[];
  /** The synonyms the query's words had (the same on every shard). */
  readonly synonyms?: readonly { readonly from: string; readonly to: readonly string[] }[];
  /** Lookups answered from this shard's own statistics (replay.ts): 0 when the corpus's had them all. */
  readonly misses: number;
  /** What this shard answered to those lookups: the coordinator adds them up and asks again. */
  readonly missed?: TermReport;
};

/** What a shard says of itself (GET /api/shard/info): a coordinator's health check, and the version its ETags follow. */
export type ShardInfo = { readonly documents: number; readonly version: number; readonly shard?: string };

/** A search node as its coordinator asks it (search-ui/shard-routes.ts serves these). */
export class ShardNode {
  constructor(
    private readonly index: SearchIndex,
    /** "K/N" when this node holds one shard (cluster.shard). */
    readonly shard?: string,
    /** This node's levers for a query (appliance/curation.ts), for a coordinator that sends none: every node of a cluster reads one set. */
    private readonly levers?: (q: string) => SearchOptions,
  ) {}

  terms(asked: TermsAsked): Promise<TermReport> {
    const synonyms = asked.synonyms ?? this.levers?.(asked.q).synonyms?.lines;
    return reportTerms(this.index, synonyms ? { ...asked, synonyms } : asked);
  }

  search(asked: SearchAsked): Promise<ShardAnswer> {
    // (A coordinator that sends no levers — it has no store — gets this node's, which every node of a cluster shares.)
    const levers = asked.adjust && asked.synonyms ? undefined : this.levers?.(asked.q);
    const adjust = asked.adjust ?? levers?.adjust;
    const synonyms = asked.synonyms ?? levers?.synonyms?.lines;
    return answerSearch(this.index, { ...asked, ...(adjust ? { adjust } : {}), ...(synonyms ? { synonyms } : {}) }, this.shard);
  }

  suggest(q: string, limit: number, corpus: CorpusStats | undefined): Promise<ShardSuggestion[]> {
    return answerSuggest(this.index, q, limit, corpus);
  }

  hits(ids: readonly number[], marked: readonly string[], words?: number): Promise<SearchHit[]> {
    return hitsOf(this.index, ids, marked, words);
  }

  info(): ShardInfo {
    return { documents: this.index.documentCount, version: this.index.version, ...(this.shard ? { shard: this.shard } : {}) };
  }
}

/** A completed query as you type, its last word as the index holds it (a stem); `spelled`: as a page here spells it. */
export type ShardSuggestion = { readonly text: string; readonly spelled?: string };

/** The first round: the statistics this index holds of what the query looks up (over a view of it, as the query starts). */
export function reportTerms(index: SearchIndex, asked: TermsAsked): Promise<TermReport> {
  return index.reading((view) => reportOver(index, view, asked));
}

async function reportOver(index: SearchIndex, view: IndexView, asked: TermsAsked): Promise<TermReport> {
  const recorder = new Recorder(index, view, asked.stemmers);
  if (asked.suggest) {
    await index.suggest(asked.q, undefined, recorder.lens);
    return recorder.report();
  }
  const plan = index.plan(asked.q, asked.exact ?? false, recorder.lens, askedSynonyms(asked.synonyms));
  // "Did you mean" looks up more, for a word unknown here (it may be known elsewhere).
  if (plan.typed.terms.some((t) => view.docFrequency(t) === 0)) {
    await index.words(
      {
        plan,
        lens: recorder.lens,
        ranked: [],
        evidence: undefined,
        total: 0,
        capped: false,
        partial: true,
        facets: { host: [], lang: [], type: [], topic: [] },
        docs: new QueryDocuments(index.lookup),
        bodies: new Map(),
      },
      undefined,
    );
  }
  return recorder.report();
}

/** The second round: the query ranked here with the corpus's statistics (over a view of this index, as the query starts). */
export function answerSearch(index: SearchIndex, asked: SearchAsked, shard?: string): Promise<ShardAnswer> {
  return index.reading((view) => searchOver(index, view, asked, shard));
}

async function searchOver(index: SearchIndex, view: IndexView, asked: SearchAsked, shard: string | undefined): Promise<ShardAnswer> {
  const misses = new Misses(new Recorder(index, view, asked.corpus?.stemmers));
  const lens = asked.corpus ? replayLens(view, asked.corpus, misses) : index.lens(view);
  const options = {
    page: asked.page,
    size: asked.size,
    exact: asked.exact ?? false,
    synonyms: askedSynonyms(asked.synonyms),
    facetValues: FACETS_SENT,
    ...(asked.adjust ? { adjust: asked.adjust } : {}),
  };
  const r = await index.rank(asked.q, options, lens);
  // (Their starts: an entry needs its URL and title, a hit reads the whole page only if its snippet needs it.)
  await r.docs.loadStarts(r.ranked.map((x) => x.id));
  const entries: ShardEntry[] = [];
  const marked = r.plan.forgiven.marked;
  const words = wordsOf(r.plan.forgiven.slots);
  const hitFor = hitMaker(r);
  for (const x of r.ranked) {
    const d = await r.docs.start(x.id);
    if (!d) continue;
    const h = index.simhashes.get(x.id);
    const made = entries.length < asked.page * asked.size ? await hitFor(r.docs, x.id, x.score, r.bodies.get(x.id)) : undefined;
    const adjusted = r.adjusted?.get(x.id);
    const hit = made ? { hit: adjusted ? { ...made, adjusted } : made } : {};
    entries.push({
      id: x.id,
      score: x.score,
      ...(h ? { simhash: hex(h) } : {}),
      source: view.source(view.sourceOf(x.id)),
      url: d.url,
      title: d.title,
      ...hit,
    });
  }
  const said = await index.words(r, entries[0]?.id);
  return {
    ...(shard ? { shard } : {}),
    documents: index.documentCount,
    total: r.total,
    capped: r.capped,
    partial: r.partial,
    facets: r.facets,
    entries,
    marked,
    words,
    evidence: r.evidence ? [...r.evidence] : null,
    ...said,
    misses: misses.count,
    ...(misses.count ? { missed: misses.report() } : {}),
  };
}

/**
 * Results by id, their snippets marking `marked` (those no longer stored are left out; `words`:
 * the query's): what a coordinator's page needs beyond the hits it was sent.
 */
export async function hitsOf(index: SearchIndex, ids: readonly number[], marked: readonly string[], words?: number): Promise<SearchHit[]> {
  const docs = new QueryDocuments(index.lookup);
  await docs.load(ids);
  const hits: SearchHit[] = [];
  for (const id of ids) {
    const d = await docs.get(id);
    if (d) hits.push(hitOf(d, 0, marked, undefined, words));
  }
  return hits;
}

/**
 * Completions as you type, with the corpus's statistics: the same terms in the same order on every
 * shard — each as the index holds it (`text`), and as a page here spells it (`spelled`), when one
 * here holds it: the coordinator takes a shard's spelling (coordinator.ts).
 */
export function answerSuggest(index: SearchIndex, q: string, limit: number, corpus: CorpusStats | undefined): Promise<ShardSuggestion[]> {
  return index.reading((view) => suggestOver(index, view, q, limit, corpus));
}

async function suggestOver(index: SearchIndex, view: IndexView, q: string, limit: number, corpus: CorpusStats | undefined): Promise<ShardSuggestion[]> {
  const lens = corpus ? replayLens(view, corpus, new Misses(new Recorder(index, view, corpus.stemmers))) : index.lens(view);
  // (Each term as the index holds it, so that every shard's list is the same; their spellings aside.)
  const spelled = new Map<string, string>();
  const spellings: SpellingLookup = {
    closest: async (term, typed, docs) => {
      const s = await index.spellings.closest(term, typed, docs);
      if (s !== undefined) spelled.set(term, s);
      return undefined;
    },
  };
  const texts = await autocomplete(q, lens.stats, lens.vocabulary, spellings, new QueryDocuments(index.lookup), limit);
  return texts.map((text) => {
    const term = [...spelled.keys()].find((t) => text.endsWith(t));
    return term === undefined ? { text } : { text, spelled: text.slice(0, text.length - term.length) + spelled.get(term)! };
  });
}

/** The last synonyms asked with, compiled: a coordinator sends the same lines with every query until the owner changes them. */
let lastSynonyms: { readonly lines: readonly string[]; readonly synonyms: Synonyms } | undefined;

/**
 * The synonyms a coordinator sent (their lines), compiled — once per set (the last one is kept);
 * undefined for none. A RangeError for a bad line (the shard route refuses one first: a 400).
 */
export function askedSynonyms(lines: readonly string[] | undefined): Synonyms | undefined {
  if (!lines?.length) return undefined;
  const last = lastSynonyms;
  if (last && last.lines.length === lines.length && last.lines.every((l, i) => l === lines[i])) return last.synonyms;
  const synonyms = Synonyms.fromLines(lines);
  lastSynonyms = { lines: synonyms.lines, synonyms };
  return synonyms;
}

/** A SimHash's halves as its 16 hex digits. */
function hex([hi, lo]: readonly [number, number]): string {
  return hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
}
