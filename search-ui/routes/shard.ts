/**
 * The shard API (issue 22): what a coordinator (`trawl serve --shards`) asks a search node besides
 * the public JSON API — the statistics of a query's terms here, the query ranked here with the
 * corpus's statistics, the hits of some results, completions, and how the node is (indexer/shards). Behind `server.auth`
 * like the rest; a request carrying the admin token is not counted by the per-address rate limit
 * (a coordinator asks twice per search, for every user). Bodies are JSON, at most 4 MB, checked
 * by the schemas below before anything runs.
 */
import { z } from '@hono/zod-openapi';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_QUERY_LENGTH } from '../../indexer/index.ts';
import { MAX_SYNONYMS, parseSynonym } from '../../model/curation.ts';
import type { ShardNode } from '../../indexer/shards/index.ts';
import { MAX_PINS, MAX_RULES, PREFIX_FACTOR_BOUNDS } from '../../model/index.ts';
import { HttpError, type ServerEnv } from '../errors.ts';

const MAX_BODY_BYTES = 4 * 1024 * 1024;

const Query = z.string().min(1).max(MAX_QUERY_LENGTH);
const count = z.number().int().min(0);
/** The corpus's statistics (indexer/shards/statistics.ts `CorpusStats`). */
const Corpus = z.object({
  documents: count,
  lengthSum: z.array(z.number().min(0)).max(64),
  stemmers: z.array(z.string().max(64)).max(256),
  terms: z.record(z.string(), z.tuple([count, z.number().int().min(0).max(1)])),
  completions: z.record(z.string(), z.array(z.string())),
  near: z.record(z.string(), z.array(z.tuple([z.string(), z.number().int().min(0).max(8)]))),
  typos: z.record(z.string(), z.number().int().min(0).max(1)),
  alphabet: z.string().max(100_000),
  together: z.record(z.string(), z.record(z.string(), z.number().min(0))),
});
/** The site's synonyms, as the coordinator was given them (model/curation.ts): each line as the config takes it. */
const Synonyms = z
  .array(
    z.string().superRefine((line, ctx) => {
      const r = parseSynonym(line);
      if ('error' in r) ctx.addIssue({ code: 'custom', message: r.error });
    }),
  )
  .max(MAX_SYNONYMS);
const TermsBody = z.object({
  q: Query,
  exact: z.boolean().optional(),
  suggest: z.boolean().optional(),
  stemmers: z.array(z.string().max(64)).max(256).optional(),
  synonyms: Synonyms.optional(),
});
/** The console's levers for the query (indexer/query/adjust.ts), as the coordinator's node made them. */
const Url = z.string().max(8192);
const Adjust = z.object({
  pin: z.array(Url).max(MAX_PINS),
  hide: z.array(Url).max(1000),
  prefixes: z.array(z.object({ prefix: Url, factor: z.number().min(PREFIX_FACTOR_BOUNDS.min).max(PREFIX_FACTOR_BOUNDS.max) })).max(MAX_RULES),
  learned: z.array(z.object({ url: Url, factor: z.number().positive().max(100) })).max(1000),
});
const SearchBody = z.object({
  q: Query,
  exact: z.boolean().optional(),
  page: z.number().int().min(1).max(100_000),
  size: z.number().int().min(1).max(100),
  corpus: Corpus.optional(),
  adjust: Adjust.optional(),
  synonyms: Synonyms.optional(),
});
const SuggestBody = z.object({ q: z.string().max(MAX_QUERY_LENGTH), limit: z.number().int().min(1).max(20), corpus: Corpus.optional() });
const HitsBody = z.object({ ids: z.array(count).max(1000), marked: z.array(z.string().max(1000)).max(1000), words: count.optional() });

/** The routes, under /api/shard; without a node (a coordinator holds no index), 404. */
export function shardRoutes(node: ShardNode | undefined): Hono<ServerEnv> {
  const api = new Hono<ServerEnv>();
  api.use(
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new HttpError(413, 'too-large', `request body over ${MAX_BODY_BYTES} bytes`);
      },
    }),
  );
  api.use(async (_c, next) => {
    if (!node) throw new HttpError(404, 'not-a-shard', 'this server holds no index to answer a coordinator from');
    await next();
  });
  api.get('/info', (c) => c.json(node!.info()));
  api.post('/terms', async (c) => c.json(await node!.terms(await read(c, TermsBody))));
  api.post('/search', async (c) => c.json(await node!.search(await read(c, SearchBody))));
  api.post('/hits', async (c) => {
    const { ids, marked, words } = await read(c, HitsBody);
    return c.json(await node!.hits(ids, marked, words));
  });
  api.post('/suggest', async (c) => {
    const { q, limit, corpus } = await read(c, SuggestBody);
    return c.json(await node!.suggest(q, limit, corpus));
  });
  return api;
}

/** The body as `schema` takes it; else a 400 (bad-body) that says why not. */
async function read<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  let json: unknown;
  try {
    json = await c.req.json();
  } catch {
    throw new HttpError(400, 'bad-body', 'the body must be JSON');
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new HttpError(400, 'bad-body', `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'not as expected'}`);
}
