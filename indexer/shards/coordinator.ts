/**
 * A search over shards (`trawl serve --shards URL,URL,…`): a Searcher that holds no index and
 * answers by asking every shard, in two rounds (ARCHITECTURE.md, "Search over shards"):
 *
 *   1. terms  — each shard plans the query over its documents and reports the statistics it looked
 *               up (record.ts); summed, they are the corpus's (statistics.ts).
 *   2. search — each shard ranks its documents with the corpus's statistics (replay.ts); the
 *               answers are merged as one node ranks its own (merge.ts). When near-duplicates fold
 *               a page short, the shards are asked again, deeper.
 *
 * How a shard is reached is the transport's (appliance/shard-client.ts: HTTP with a timeout). A
 * shard that fails or is slower than the timeout is left out — of the statistics too, so the
 * others' documents are ranked among themselves — and the answer names it (`shards.missing`).
 */
import { parseQuery } from '../query/parse.ts';
import type { SearchHit, SearchOptions, SearchResponse, Searcher, ShardsAnswered } from '../search-index.ts';
import { pageOf } from '../search-types.ts';
import { mergeAnswers } from './merge.ts';
import type { SearchAsked, ShardAnswer, ShardInfo, ShardSuggestion, TermsAsked } from './shard-node.ts';
import { extendCorpus, mergeReports, type CorpusStats, type TermReport } from './statistics.ts';

/** How a coordinator reaches its shards: by index in `shards` (their names: URLs). */
export interface ShardTransport {
  readonly shards: readonly string[];
  terms(shard: number, asked: TermsAsked): Promise<TermReport>;
  search(shard: number, asked: SearchAsked): Promise<ShardAnswer>;
  suggest(shard: number, asked: { q: string; limit: number; corpus?: CorpusStats }): Promise<ShardSuggestion[]>;
  hits(shard: number, asked: { ids: readonly number[]; marked: readonly string[]; words?: number }): Promise<SearchHit[]>;
  info(shard: number): Promise<ShardInfo>;
}

/** A shard as the coordinator last saw it. */
export type ShardState = {
  readonly url: string;
  readonly up: boolean;
  readonly documents: number;
  readonly version: number;
  readonly shard?: string;
  readonly error?: string;
  readonly checkedAt: number;
  readonly ms: number;
};

/** Asks for a deeper page at most this many times (each doubles it). */
const MAX_DEEPER = 6;
/** Asks again with the statistics the shards found missing at most this many times. */
const MAX_AGAIN = 2;

export class ShardedSearcher implements Searcher {
  /** The stemmers' order the last query found (the first round is asked again when the corpus's differs). */
  private stemmers: readonly string[] | undefined;
  private states: ShardState[];
  private changes = 0;

  constructor(
    private readonly transport: ShardTransport,
    /** index.nearDuplicates.maxDistance (0: no folding). */
    private readonly foldDistance: number,
  ) {
    this.states = transport.shards.map((url) => ({ url, up: false, documents: 0, version: 0, error: 'not asked yet', checkedAt: 0, ms: 0 }));
  }

  get documentCount(): number {
    return this.states.reduce((n, s) => n + (s.up ? s.documents : 0), 0);
  }

  /** Changes when any shard's index does, or a shard comes or goes (the ETags of searches are made of it). */
  get version(): number {
    return this.changes;
  }

  /** The shards as last checked (`check`). */
  get shards(): readonly ShardState[] {
    return this.states;
  }

  /** Asks every shard how it is (each within the transport's timeout); the version changes with any change seen. */
  async check(): Promise<readonly ShardState[]> {
    this.states = await Promise.all(
      this.transport.shards.map(async (url, i): Promise<ShardState> => {
        const started = performance.now();
        try {
          const info = await this.transport.info(i);
          return {
            url,
            up: true,
            documents: info.documents,
            version: info.version,
            ...(info.shard ? { shard: info.shard } : {}),
            checkedAt: Date.now(),
            ms: Math.round(performance.now() - started),
          };
        } catch (e) {
          return { url, up: false, documents: 0, version: 0, error: (e as Error).message, checkedAt: Date.now(), ms: Math.round(performance.now() - started) };
        }
      }),
    ).then((now) => {
      if (now.some((s, i) => s.up !== this.states[i]!.up || s.version !== this.states[i]!.version || s.documents !== this.states[i]!.documents)) this.changes++;
      return now;
    });
    return this.states;
  }

  async search(query: string, options: SearchOptions = {}): Promise<SearchResponse> {
    const started = performance.now();
    const { page, size } = pageOf(options);
    // A query the shards would refuse is refused here (QueryError: 400), before anything is asked.
    const typed = parseQuery(query);
    const exact = options.exact ?? false;
    // (The site's synonyms go to the shards as their lines: each looks up their terms and ranks with them.)
    const synonyms = options.synonyms?.size ? { synonyms: options.synonyms.lines } : {};
    const missing = new Map<number, string>();
    const first = await this.corpus({ q: query, exact, ...synonyms }, missing);
    const { answering } = first;
    let { corpus } = first;
    let depth = page * size;
    for (let deeper = 0, again = 0; ; ) {
      // (A deeper page: the same size, more of them — each shard ranks page × size at least.)
      const pages = Math.ceil(depth / size);
      // (A shard that failed once is not waited for again.)
      const answers = await this.ask(
        answering.filter((i) => !missing.has(i)),
        (i) => this.transport.search(i, { q: query, exact, page: pages, size, corpus, ...synonyms, ...(options.adjust ? { adjust: options.adjust } : {}) }),
        missing,
      );
      // Lookups the first round did not gather (the corpus's plan went where no shard's did):
      // what the shards found added, asked again.
      const missed = [...answers.values()].flatMap((a) => (a.missed ? [a.missed] : []));
      if (missed.length && again++ < MAX_AGAIN) {
        corpus = extendCorpus(corpus, missed);
        continue;
      }
      const merge = (list: readonly ShardAnswer[], last: boolean) =>
        mergeAnswers(list, { page, size, phrases: typed.phrases.length > 0, foldDistance: this.foldDistance, last });
      let merged = merge([...answers.values()], deeper === MAX_DEEPER);
      if ('fetch' in merged) {
        // Results on the page without their hit: asked of their shards; those a shard then fails to send are left out.
        const list = await this.withHits(answers, merged.fetch, missing);
        merged = merge(list, true);
        if ('fetch' in merged) {
          const gone = new Set(merged.fetch);
          merged = merge(
            list.map((a) => ({ ...a, entries: a.entries.filter((e) => !gone.has(e.id)) })),
            true,
          );
        }
      }
      if ('fetch' in merged) throw new Error('unreachable: every result on the page has its hit');
      if ('deeper' in merged) {
        depth = Math.max(2 * depth, merged.deeper);
        deeper++;
        continue;
      }
      return { query, tookMs: Math.round((performance.now() - started) * 100) / 100, ...merged.response, shards: this.answered(missing, merged.misses) };
    }
  }

  async suggest(query: string, limit = 8): Promise<string[]> {
    const missing = new Map<number, string>();
    const { corpus, answering } = await this.corpus({ q: query, suggest: true }, missing);
    const lists = [...(await this.ask(answering, (i) => this.transport.suggest(i, { q: query, limit, corpus }), missing)).values()];
    // The same completions in the same order on every shard; each spelled by a shard whose pages
    // hold it (the first that does), and then told apart as one node does (query/autocomplete.ts).
    const out = new Set<string>();
    for (let k = 0; k < Math.max(0, ...lists.map((l) => l.length)); k++) {
      const at = lists.map((l) => l[k]).filter((s): s is ShardSuggestion => s !== undefined);
      const pick = at.find((s) => s.spelled !== undefined)?.spelled ?? at[0]?.text;
      if (pick !== undefined) out.add(pick);
    }
    return [...out];
  }

  /** The answers with the hits of `ids` asked of the shards that hold them (a result on the page a shard ranked below those it sent hits for). */
  private async withHits(answers: ReadonlyMap<number, ShardAnswer>, ids: readonly number[], missing: Map<number, string>): Promise<ShardAnswer[]> {
    const wanted = new Set(ids);
    const owners = [...answers].filter(([, a]) => a.entries.some((e) => wanted.has(e.id)));
    const got = await this.ask(
      owners.map(([i]) => i),
      (i) =>
        this.transport.hits(i, {
          ids: answers
            .get(i)!
            .entries.filter((e) => wanted.has(e.id))
            .map((e) => e.id),
          marked: answers.get(i)!.marked,
          words: answers.get(i)!.words,
        }),
      missing,
    );
    const hits = new Map([...got.values()].flat().map((h) => [h.id, h]));
    return [...answers].map(([, a]) => ({ ...a, entries: a.entries.map((e) => (e.hit || !hits.has(e.id) ? e : { ...e, hit: hits.get(e.id)! })) }));
  }

  /**
   * The first round: the corpus's statistics of the query, from every shard that answers. Asked
   * again when the stemmers' order it finds is not the one the shards were told (a language
   * became more or less frequent; at the first query, none was told).
   */
  private async corpus(asked: TermsAsked, missing: Map<number, string>): Promise<{ corpus: CorpusStats; answering: number[] }> {
    const all = this.transport.shards.map((_, i) => i);
    for (let round = 0; ; round++) {
      const told = this.stemmers;
      const reports = await this.ask(
        all.filter((i) => !missing.has(i)),
        (i) => this.transport.terms(i, { ...asked, ...(told ? { stemmers: told } : {}) }),
        missing,
      );
      const corpus = mergeReports([...reports.values()]);
      const same = told !== undefined && told.length === corpus.stemmers.length && told.every((k, i) => k === corpus.stemmers[i]);
      if (!same && corpus.stemmers.length) this.stemmers = corpus.stemmers;
      if (same || round > 0 || !corpus.stemmers.length) return { corpus, answering: [...reports.keys()] };
    }
  }

  /** Asks `shards` at once; those that fail (or time out, in the transport) are noted missing. */
  private async ask<T>(shards: readonly number[], question: (i: number) => Promise<T>, missing: Map<number, string>): Promise<Map<number, T>> {
    const settled = await Promise.allSettled(shards.map((i) => question(i)));
    const out = new Map<number, T>();
    settled.forEach((s, k) => {
      if (s.status === 'fulfilled') out.set(shards[k]!, s.value);
      else missing.set(shards[k]!, (s.reason as Error)?.message ?? String(s.reason));
    });
    return out;
  }

  private answered(missing: ReadonlyMap<number, string>, misses: number): ShardsAnswered {
    const asked = this.transport.shards.length;
    return {
      asked,
      answered: asked - missing.size,
      partial: missing.size > 0,
      missing: [...missing].map(([i, error]) => ({ shard: this.transport.shards[i]!, error })),
      ...(misses ? { statisticsMissed: misses } : {}),
    };
  }
}
