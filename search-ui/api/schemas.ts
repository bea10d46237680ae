/**
 * The JSON API's shapes, as zod schemas: each validates what comes in (query parameters, bodies)
 * and describes what goes out, and the OpenAPI document (/api/openapi.json) is generated from them
 * — one description, so the document cannot drift from the code. /api/status's schema is in
 * status-schema.ts.
 */
import { z } from '@hono/zod-openapi';
import type { UrlExplanation } from '../../model/index.ts';
import { PAGE_SIZE } from '../../indexer/search-types.ts';
import { count, type Described, isoOrNull } from './values.ts';

/** A whole number in a query string, within bounds, with one message for every way it can be wrong. */
export function intParam(name: string, min: number, max: number, fallback: number) {
  const message = `parameter ${name} must be a whole number from ${min} to ${max}`;
  return z
    .string({ error: message })
    .regex(/^\d{0,9}$/, { error: message })
    .optional()
    .transform((s) => (s === undefined || s === '' ? fallback : Number(s)))
    .pipe(z.number().int().min(min, { error: message }).max(max, { error: message }))
    .openapi({ type: 'integer', minimum: min, maximum: max, default: fallback });
}

export const ErrorSchema = z
  .object({
    error: z.string().openapi({ description: 'What went wrong, for people' }),
    code: z.string().openapi({ description: 'A stable code, for programs', example: 'bad-parameter' }),
  })
  .openapi('Error');

const QUERY_HELP = 'Words (all must match), "phrases", -excluded, a OR b, site:host, lang:xx, type:html|text|pdf|docx|slides|spreadsheet|…, topic:class';

/** A yes-or-no query parameter: 1 or true, 0 or false (absent: no). */
export function flagParam(name: string, description: string) {
  return z
    .enum(['1', 'true', '0', 'false', ''], { error: `parameter ${name} must be 1 or 0` })
    .optional()
    .transform((v) => v === '1' || v === 'true')
    .openapi({ type: 'string', enum: ['1', '0'], description });
}

/** A tab's session id for the search log, as the page and the widget make it (random: 32 hex digits). */
export const SESSION = /^[A-Za-z0-9_-]{8,64}$/;

export const SearchQuery = z.object({
  q: z
    .string({ error: 'parameter q is required, e.g. /api/search?q=install' })
    .refine((q) => q.trim().length > 0, { error: 'parameter q is required, e.g. /api/search?q=install' })
    .openapi({ description: QUERY_HELP, example: 'install' }),
  page: intParam('page', 1, 1000, 1),
  size: intParam('size', 1, PAGE_SIZE.max, PAGE_SIZE.default),
  exact: flagParam('exact', 'Search only for the words as typed: the last word not completed, no typo corrected (see `corrected`)'),
  explain: flagParam('explain', "Each hit's score taken apart (hits[].explain): the words matched and missing, each field's part, bonuses and factors"),
  session: z.string().regex(SESSION, { error: 'parameter session is 8 to 64 letters, digits, - or _' }).optional().openapi({
    description: "A random id the browser tab keeps (sessionStorage) for the search log: a tab's searches typed on are logged as one. Never a person's.",
  }),
  from: z
    .enum(['page', 'widget', 'api'], { error: 'parameter from is page, widget or api' })
    .optional()
    .openapi({ description: 'Where the search was made, for the search log (default api)' }),
});

/** POST /api/analytics/events: a click on a result of a logged search (navigator.sendBeacon sends it as text). */
export const ClickEvent = z
  .object({
    type: z.literal('click'),
    searchId: z.string().max(64),
    position: z.number().int().min(1).max(1000),
    url: z.string().max(8192),
  })
  .openapi('ClickEvent');

/** GET /api/suggest: the query typed so far. */
export const SuggestQuery = z.object({
  q: z
    .string({ error: 'parameter q is required, e.g. /api/suggest?q=vacu' })
    .max(500, { error: 'parameter q is at most 500 characters' })
    .openapi({ description: 'The query as typed so far; its last word is completed', example: 'vacu' }),
  size: intParam('size', 1, 20, 8),
});

export const SuggestResponseSchema = z
  .object({
    query: z.string(),
    suggestions: z
      .array(z.string())
      .readonly()
      .openapi({
        description:
          'The query with its last word completed, the most frequent completion first (the word as pages spell it); ' +
          'empty when the query does not end in a word',
        example: ['vacuum', 'vacuumdb'],
      }),
  })
  .openapi('Suggestions');

/** A hit's score taken apart (indexer/query/explain.ts): (Σ words + titleBonus + links) × alternativesOnly × exactForms × proximity. */
const ScoreExplainedSchema = z
  .object({
    score: z.number().openapi({ description: 'The product of the parts: the hit’s score' }),
    words: z
      .array(
        z.object({
          word: z.string().openapi({ description: 'A query word, as the index spells it (stemmed, folded)' }),
          term: z.string().openapi({ description: 'The term the page holds for it: the word itself, or a completion or correction' }),
          own: z.boolean().openapi({ description: 'Whether term is the word itself' }),
          synonymOf: z.string().optional().openapi({ description: 'The term is a synonym of this word (search.synonyms, the console)' }),
          weight: z.number().openapi({ description: "The term's weight in the query: its IDF, times what an alternative counts" }),
          inTitle: z.boolean(),
          score: z.number().openapi({ description: "What the word adds: its fields' parts added up" }),
          fields: z
            .record(z.string(), z.number())
            .openapi({ description: "Each field's part (title, headings, description, url, anchor, body): the fields that hold the term" }),
        }),
      )
      .readonly()
      .openapi({ description: 'The words the page holds, in the query’s order' }),
    missing: z.array(z.string()).readonly().openapi({ description: 'The query’s words the page does not hold, nor any alternative of them' }),
    titleBonus: z.number().openapi({ description: 'How much of the query the title holds, and how much of the title the query holds' }),
    links: z.object({ inlinks: z.number().int(), score: z.number() }).openapi({ description: 'Pages linking to it, and what that adds' }),
    alternativesOnly: z.number().openapi({ description: 'Below 1 when the page holds only a correction of a word typed whole' }),
    coverage: z.number().openapi({ description: 'Below 1 when the page misses some of the query’s words: the share of the query’s IDF it holds, weighed' }),
    exactForms: z.number().openapi({ description: 'Above 1 when the page writes the query’s words as typed (diacritics)' }),
    proximity: z.number().openapi({ description: 'Phrase evidence: above 1 when the query’s words stand together in the page' }),
  })
  .openapi('ScoreExplained');

const Facet = z.array(z.object({ value: z.string(), count: z.number().int() })).readonly();

export const SearchResponseSchema = z
  .object({
    query: z.string(),
    searchId: z.string().optional().openapi({
      description: 'The search in the search log (absent: not logged — analytics off, or the browser asked not to be tracked): a click reports it',
    }),
    total: z.number().int(),
    totalIsLowerBound: z.boolean().optional().openapi({ description: 'An exact phrase was checked on the best results only: there may be more' }),
    tookMs: z.number(),
    page: z.number().int(),
    size: z.number().int(),
    partial: z.boolean().openapi({ description: 'No page has every word: these have some' }),
    suggestion: z.string().optional().openapi({ description: 'Did you mean' }),
    corrected: z
      .array(
        z.object({
          from: z.string().openapi({ description: 'The word as typed (folded)' }),
          to: z.string().openapi({ description: 'The word it was taken for, as a page spells it' }),
        }),
      )
      .readonly()
      .optional()
      .openapi({ description: 'Words the search also took for others (typos): "Including results for …". Ask again with exact=1 for the words as typed only' }),
    facets: z.object({ host: Facet, lang: Facet, type: Facet, topic: Facet.openapi({ description: 'Classes of a focused crawl' }) }),
    shards: z
      .object({
        asked: z.number().int(),
        answered: z.number().int(),
        partial: z.boolean().openapi({
          description: 'Some shard did not answer (down, slower than cluster.shardTimeoutMs, or refusing): the results of its documents are missing',
        }),
        missing: z.array(z.object({ shard: z.string().openapi({ description: 'Its URL' }), error: z.string() })).readonly(),
        statisticsMissed: z
          .number()
          .int()
          .optional()
          .openapi({
            description:
              'Lookups a shard answered from its own statistics (the first round did not gather them): ' +
              "the ranking may differ from one node's over all the documents",
          }),
      })
      .optional()
      .openapi({ description: 'Answered by a coordinator over shards (trawl serve --shards): which shards answered' }),
    hits: z
      .array(
        z.object({
          url: z.string(),
          title: z.string(),
          snippet: z.string().openapi({ description: 'HTML: escaped text, terms in <mark>' }),
          score: z.number(),
          fetchedAt: z.iso.datetime(),
          topics: z.array(z.string()).readonly().optional().openapi({ description: 'Classes of a focused crawl, best first' }),
          type: z
            .string()
            .optional()
            .openapi({ description: 'A document that is not an HTML page: its format (pdf, docx, pptx, xlsx, odt, odp, ods, text, markdown)' }),
          pages: z.number().int().optional().openapi({ description: 'Its pages (slides, sheets)' }),
          page: z.number().int().optional().openapi({ description: 'The page (slide, sheet) the snippet is on, from 1; a PDF opens there at url#page=N' }),
          similar: z
            .array(z.object({ url: z.string(), title: z.string() }))
            .readonly()
            .optional()
            .openapi({
              description:
                'Near-duplicates of this result folded under it (mirrors, print views, other versions: SimHash within ' +
                'index.nearDuplicates.maxDistance bits), best first, at most 10',
            }),
          moreSimilar: z.number().int().optional().openapi({ description: 'Near-duplicates folded under it beyond those listed in similar' }),
          section: z
            .object({ heading: z.string(), url: z.string() })
            .optional()
            .openapi({
              description:
                'The section the query found: a heading of the page that holds more of the query than its title (at least half ' +
                'its IDF), and the page’s address with that heading’s fragment; the result links there',
            }),
          missing: z
            .array(z.string())
            .readonly()
            .optional()
            .openapi({ description: 'The query’s words this page holds nothing for, as typed (a query of three words or more may miss one; two from six)' }),
          explain: ScoreExplainedSchema.optional().openapi({ description: "Asked for with explain=1: the hit's score taken apart (not over shards)" }),
          adjusted: z
            .object({
              pinned: z
                .literal(true)
                .optional()
                .openapi({ description: 'Pinned for this query (the console, PUT /api/rules): shown first, whatever its score' }),
              section: z.number().optional().openapi({ description: 'The weight of the sections it is under (URL prefixes boosted or buried)' }),
              clicks: z.number().optional().openapi({ description: 'The factor searchers’ clicks for this query gave it (search.learnFromClicks)' }),
            })
            .optional()
            .openapi({ description: 'What the search console’s levers did to this result' }),
        }),
      )
      .readonly(),
    synonyms: z
      .array(z.object({ from: z.string(), to: z.array(z.string()).readonly() }))
      .readonly()
      .optional()
      .openapi({ description: 'The synonyms the search applied (search.synonyms, the console): what the query said, and what it also found' }),
  })
  .openapi('SearchResponse');

/** The longest URL the API takes: one looked up (/api/document, the dashboard's lookup), or given to an admin action. */
export const MAX_URL_LENGTH = 2048;
const URL_REQUIRED = `parameter url is required (at most ${MAX_URL_LENGTH.toLocaleString('en-US')} characters), e.g. /api/document?url=https://example.org/`;

export const DocumentQuery = z.object({
  url: z
    .string({ error: URL_REQUIRED })
    .min(1, { error: URL_REQUIRED })
    .max(MAX_URL_LENGTH, { error: URL_REQUIRED })
    .openapi({ format: 'uri', example: 'https://example.org/' }),
});

/** GET /api/document: a known URL's record (an unknown one is a 404 Error with code unknown-url). */
export const ExplanationSchema = z
  .strictObject({
    known: z.literal(true),
    url: z.string().openapi({ description: 'The URL as Trawl keeps it (normalized)' }),
    state: z.string(),
    indexed: z.boolean(),
    reason: z.string().nullable().openapi({ description: 'Why it was excluded, failed or given up, or where it redirects' }),
    error: z.string().nullable(),
    httpStatus: z.number().int().nullable(),
    attempts: count,
    depth: count,
    discoveredAt: z.iso.datetime(),
    fetchedAt: isoOrNull,
    nextAttemptAt: isoOrNull,
    revisitAt: isoOrNull,
    changedAt: isoOrNull,
    contentType: z.string().nullable(),
    lang: z.string().nullable(),
    topicScore: z.number().nullable(),
    relevant: z.boolean().nullable(),
    classes: z.array(z.strictObject({ name: z.string(), score: z.number() })).readonly(),
    linksCut: z.number().int().nullable().optional().openapi({ description: 'Links beyond limits.maxLinksPerPage at its last fetch, not followed' }),
    rendered: z.string().nullable().optional().openapi({ description: 'Why it was rendered in a browser at its last fetch (null: it was not)' }),
  })
  .openapi('UrlRecord');

export const UnknownUrlSchema = ErrorSchema.extend({ url: z.string() });

// The schema describes the model's type: a change to one that the other does not follow fails here.
export const DESCRIBED: [Described<Extract<UrlExplanation, { known: true }>, typeof ExplanationSchema>] = [true];
