/**
 * A search's answer as JSON, in one place for the API (/api/search) and the shell
 * (`trawl search --json`): the fields SearchResponseSchema describes, times in ISO 8601 — never
 * the index's internal ids or epoch milliseconds.
 */
import type { z } from '@hono/zod-openapi';
import type { ScoreExplained, SearchResponse } from '../../indexer/index.ts';
import type { SearchResponseSchema } from './schemas.ts';

export type SearchJson = z.input<typeof SearchResponseSchema>;

export function searchJson(r: SearchResponse): SearchJson {
  return {
    query: r.query,
    total: r.total,
    tookMs: r.tookMs,
    page: r.page,
    size: r.size,
    partial: r.partial,
    ...(r.totalIsLowerBound ? { totalIsLowerBound: true } : {}),
    ...(r.suggestion ? { suggestion: r.suggestion } : {}),
    ...(r.corrected?.length ? { corrected: r.corrected.map((c) => ({ from: c.from, to: c.to })) } : {}),
    facets: r.facets,
    ...(r.shards ? { shards: { ...r.shards, missing: r.shards.missing.map((m) => ({ shard: m.shard, error: m.error })) } } : {}),
    hits: r.hits.map((h) => ({
      url: h.url,
      title: h.title,
      snippet: h.snippet,
      score: h.score,
      fetchedAt: new Date(h.fetchedAt).toISOString(),
      ...(h.topics ? { topics: [...h.topics] } : {}),
      ...(h.type ? { type: h.type } : {}),
      ...(h.pages ? { pages: h.pages } : {}),
      ...(h.page ? { page: h.page } : {}),
      ...(h.similar ? { similar: h.similar.map((x) => ({ url: x.url, title: x.title })) } : {}),
      ...(h.moreSimilar ? { moreSimilar: h.moreSimilar } : {}),
      ...(h.section ? { section: { heading: h.section.heading, url: h.section.url } } : {}),
      ...(h.missing ? { missing: [...h.missing] } : {}),
      ...(h.explain ? { explain: explainJson(h.explain) } : {}),
      ...(h.adjusted ? { adjusted: { ...h.adjusted } } : {}),
    })),
    ...(r.synonyms?.length ? { synonyms: r.synonyms.map((x) => ({ from: x.from, to: [...x.to] })) } : {}),
  };
}

/** Four decimals are enough to compare the parts (the score itself has three). */
const round = (x: number) => Math.round(x * 10_000) / 10_000;

function explainJson(e: ScoreExplained): NonNullable<SearchJson['hits'][number]['explain']> {
  return {
    score: round(e.score),
    words: e.words.map((w) => ({
      word: w.word,
      term: w.term,
      own: w.own,
      ...(w.synonymOf ? { synonymOf: w.synonymOf } : {}),
      weight: round(w.weight),
      inTitle: w.inTitle,
      score: round(w.score),
      fields: Object.fromEntries(Object.entries(w.fields).map(([f, x]) => [f, round(x)])),
    })),
    missing: [...e.missing],
    titleBonus: round(e.titleBonus),
    links: { inlinks: e.links.inlinks, score: round(e.links.score) },
    alternativesOnly: round(e.alternativesOnly),
    coverage: round(e.coverage),
    exactForms: round(e.exactForms),
    proximity: round(e.proximity),
  };
}
