/**
 * A coordinator's answer from its shards' (shard-node.ts), merged as one node ranks its own
 * candidates (search-index.ts): the shards' best by exact score, sorted as one list (ties: lower
 * id first, as `topK`); phrase evidence applied to the best RERANK of that list — each shard sent
 * the factors of its own best RERANK, which hold every one of the corpus's (a document among the
 * corpus's best twenty is among its shard's); near-duplicates folded over the list; totals and
 * facets summed. Scores are comparable because every shard scored with the corpus's statistics.
 */
import { facetsOf, type Facets, type FacetValue } from '../query/filters.ts';
import { foldPinned } from '../query/adjust.ts';
import { deepEnough, fold } from '../query/fold.ts';
import { byScore, type Ranked } from '../query/rank.ts';
import { FACET_VALUES, MAX_SIMILAR, RERANK, withEvidence, type SearchHit, type SearchResponse } from '../search-index.ts';
import { SimHashes } from '../structures/simhashes.ts';
import type { ShardAnswer, ShardEntry } from './shard-node.ts';

/**
 * The merged answer; or, `deeper`, how many of each shard's best are needed to make the page (ask
 * again with that many); or, `fetch`, results on the page that came without their hit (ask their
 * shards for them, then merge again).
 */
export type Merged =
  | { readonly response: Omit<SearchResponse, 'query' | 'tookMs' | 'shards'>; readonly misses: number }
  | { readonly deeper: number }
  | { readonly fetch: readonly number[] };

/**
 * What a page asked: which page, how long, whether the query holds a phrase, and the distance at
 * which near-duplicates fold; `last`: the shards will not be asked deeper (merge what they sent).
 */
export type MergeAsked = { readonly page: number; readonly size: number; readonly phrases: boolean; readonly foldDistance: number; readonly last?: boolean };

export function mergeAnswers(answers: readonly ShardAnswer[], asked: MergeAsked): Merged {
  const { page, size, foldDistance } = asked;
  // A shard where no document has every word answers with those that have some; if any shard has
  // documents with every word, one node would show only those.
  const anyFull = answers.some((a) => !a.partial && a.total > 0);
  const used = anyFull ? answers.filter((a) => !a.partial) : answers;
  const entries = new Map<number, ShardEntry>();
  for (const a of used) for (const e of a.entries) entries.set(e.id, e);
  const all: Ranked[] = [...entries.values()].map((e) => ({ id: e.id, score: e.score })).sort(byScore);
  const total = used.reduce((n, a) => n + a.total, 0);
  // The best k of all the shards' candidates are known for k up to the fewest any shard with more sent.
  const known = Math.min(Infinity, ...used.filter((a) => a.entries.length < a.total).map((a) => a.entries.length));
  const shown = Math.max(page * size, RERANK);
  let wanted = 0;
  const rank = (k: number): Ranked[] => {
    wanted = Math.max(wanted, k);
    return all.slice(0, k);
  };
  const simhashes = new SimHashes();
  for (const e of entries.values()) simhashes.set(e.id, e.simhash);
  let ranked: Ranked[];
  // An exact phrase: each shard checked its best candidates until it found what a page needs; of
  // all they found, the best are what one node checking the corpus's best would have found.
  if (asked.phrases) ranked = rank(foldDistance > 0 ? 2 * shown : shown);
  else ranked = deepEnough(rank(shown), rank, simhashes, foldDistance, page * size, total);
  if (wanted > known && !asked.last) return { deeper: wanted };
  const evidence = used.some((a) => a.evidence) ? new Map(used.flatMap((a) => a.evidence ?? [])) : undefined;
  const folded = foldPinned(withEvidence(ranked, evidence), (rest, wanted) => fold(rest, simhashes, foldDistance, wanted), page * size);
  const onPage = folded.slice((page - 1) * size, page * size);
  const fetch = onPage.filter((g) => !entries.get(g.leader.id)!.hit).map((g) => g.leader.id);
  if (fetch.length) return { fetch };
  const hits: SearchHit[] = onPage.map(({ leader, similar }) => {
    const hit = { ...entries.get(leader.id)!.hit!, score: Math.round(leader.score * 1000) / 1000 };
    const near = similar.slice(0, MAX_SIMILAR).map((r) => ({ url: entries.get(r.id)!.url, title: entries.get(r.id)!.title }));
    const more = similar.length - near.length;
    return near.length ? { ...hit, similar: near, ...(more > 0 ? { moreSimilar: more } : {}) } : hit;
  });
  const partial = !anyFull && used.some((a) => a.partial);
  // "Did you mean" as one node shows it (nothing, or only some words, matched): the shards' most given.
  const suggestion = ranked.length === 0 || partial ? mostGiven(used.map((a) => a.suggestion)) : undefined;
  // The words taken for others as the first result holds them: its shard's.
  const first = onPage[0]?.leader.id;
  const corrected =
    (first !== undefined ? used.find((a) => a.entries.some((e) => e.id === first))?.corrected : undefined) ?? used.find((a) => a.corrected)?.corrected;
  // (Every shard found the same synonyms in the query.)
  const synonyms = used.find((a) => a.synonyms?.length)?.synonyms;
  // (A phrase's results are those found: counted over the merged list, as one node counts its own.)
  const facets = asked.phrases
    ? facetsOf(
        ranked.map((r) => [entries.get(r.id)!.source, 1] as const),
        FACET_VALUES,
      )
    : sumFacets(used.map((a) => a.facets));
  return {
    response: {
      total: asked.phrases ? ranked.length : total,
      // (A phrase found in more pages than shown: one node would have stopped checking at those shown.)
      ...(used.some((a) => a.capped) || (asked.phrases && total > ranked.length) ? { totalIsLowerBound: true } : {}),
      page,
      size,
      partial,
      hits,
      facets,
      ...(suggestion ? { suggestion } : {}),
      ...(corrected?.length ? { corrected } : {}),
      ...(synonyms ? { synonyms } : {}),
    },
    misses: answers.reduce((n, a) => n + a.misses, 0),
  };
}

/** The facets of all the shards: each value's counts summed, most first (ties: by value), FACET_VALUES kept — as countFacets orders them. */
export function sumFacets(all: readonly Facets[]): Facets {
  const by = (field: keyof Facets): FacetValue[] => {
    const totals = new Map<string, number>();
    for (const f of all) for (const { value, count } of f[field]) totals.set(value, (totals.get(value) ?? 0) + count);
    return [...totals]
      .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
      .slice(0, FACET_VALUES)
      .map(([value, count]) => ({ value, count }));
  };
  return { host: by('host'), lang: by('lang'), type: by('type'), topic: by('topic') };
}

/** The value given most often (ties: the first given). */
function mostGiven(values: readonly (string | undefined)[]): string | undefined {
  const counts = new Map<string, number>();
  for (const v of values) if (v !== undefined) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best: string | undefined;
  for (const [v, n] of counts) if (best === undefined || n > counts.get(best)!) best = v;
  return best;
}
