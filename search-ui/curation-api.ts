/**
 * The search console's levers for scripts (admin, as the console's reports): `GET`/`PUT
 * /api/synonyms` (the lines of `search.synonyms`), `GET`/`PUT /api/rules` (pins and hides for
 * queries, boosts and burials of URL prefixes), and `GET /api/curation/history` (each change: when,
 * by whom — a fingerprint of the token, never the token — and what it became). A change applies to
 * the next search, on every node of a cluster within seconds; nothing is re-indexed.
 */
import { createRoute, z } from '@hono/zod-openapi';
import type { Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_PINS, MAX_RULES, MAX_SYNONYMS, PREFIX_FACTOR_BOUNDS, type SearchRules } from '../model/index.ts';
import { ADMIN, ERRORS, error, json } from './api/openapi.ts';
import { intParam } from './api/schemas.ts';
import type { ConsoleAccess } from './console-access.ts';
import type { SearchLevers } from './deps.ts';
import { HttpError } from './errors.ts';
import type { ServerApp } from './parts.ts';

const Url = z.string().min(1).max(8192);
const SynonymsSchema = z
  .object({
    synonyms: z.array(z.string().max(1000)).max(MAX_SYNONYMS).openapi({
      description: 'Groups (`k8s, kubernetes`), one-way rules (`kill => terminate, cancel`), quoted phrases (`"long running" => statement_timeout`)',
    }),
  })
  .openapi('Synonyms', { example: { synonyms: ['k8s, kubernetes', 'kill => terminate, cancel'] } });
const Match = z.union([
  z.object({ query: z.string().min(1).max(1000).openapi({ description: 'The query exactly (case and spaces aside)' }) }),
  z.object({ contains: z.array(z.string().min(1).max(200)).min(1).max(20).openapi({ description: 'Every query holding all these words' }) }),
]);
const RulesSchema = z
  .object({
    queries: z
      .array(
        z.object({
          match: Match,
          pin: z
            .array(Url)
            .max(MAX_PINS)
            .default([])
            .openapi({ description: `Shown first, in this order (at most ${MAX_PINS})` }),
          hide: z.array(Url).max(1000).default([]).openapi({ description: 'Never shown for these queries' }),
        }),
      )
      .max(MAX_RULES)
      .default([]),
    prefixes: z
      .array(
        z.object({
          prefix: Url.openapi({ description: 'The start of the URLs of a section of the site', example: 'https://example.org/blog/' }),
          factor: z
            .number()
            .min(PREFIX_FACTOR_BOUNDS.min)
            .max(PREFIX_FACTOR_BOUNDS.max)
            .openapi({ description: 'Above 1 boosts the section, below buries it' }),
        }),
      )
      .max(MAX_RULES)
      .default([]),
  })
  .openapi('SearchRules');
const ChangeSchema = z
  .object({
    at: z.string().openapi({ description: 'When (ISO 8601)' }),
    what: z.enum(['synonyms', 'rules']),
    by: z.string().openapi({ description: '`config` (the config file at start), or a fingerprint of the admin token or the login' }),
    value: z.union([z.array(z.string()), RulesSchema]),
  })
  .openapi('CurationChange');
const NONE = error('No levers here: this server has no store of its own (a coordinator: change them on a search node)');
const ANSWERS = { 400: ERRORS[400], 401: ERRORS[401], 403: ERRORS[403], 404: NONE, 413: error('Body over 4 MB (code: too-large)'), 429: ERRORS[429] };

const getRoute = <S extends z.ZodType>(path: string, summary: string, schema: S) =>
  createRoute({ method: 'get', path, summary, ...ADMIN, responses: { 200: json(schema, 'As they are'), ...ANSWERS } });
const putRoute = <S extends z.ZodType>(path: string, summary: string, schema: S) =>
  createRoute({
    method: 'put',
    path,
    summary,
    ...ADMIN,
    request: { body: { content: { 'application/json': { schema } }, required: true } },
    responses: { 200: json(schema, 'As they are now'), ...ANSWERS },
  });

const ROUTES = {
  getSynonyms: getRoute('/api/synonyms', 'The synonyms applied to every search (admin)', SynonymsSchema),
  putSynonyms: putRoute('/api/synonyms', 'Replace the synonyms; the next search uses them (admin)', SynonymsSchema),
  getRules: getRoute('/api/rules', 'The pins, hides and URL-prefix boosts applied to searches (admin)', RulesSchema),
  putRules: putRoute('/api/rules', 'Replace the rules; the next search uses them (admin)', RulesSchema),
};
const historyRoute = createRoute({
  method: 'get',
  path: '/api/curation/history',
  summary: 'The changes to the synonyms and the rules, the newest first (admin)',
  ...ADMIN,
  request: { query: z.object({ limit: intParam('limit', 1, 1000, 100) }) },
  responses: { 200: json(z.object({ changes: z.array(ChangeSchema) }), 'The changes'), ...ANSWERS },
});

/** A PUT's body at most: 10,000 synonym lines or rules of a few hundred bytes each. */
export const MAX_LEVERS_BYTES = 4 * 1024 * 1024;

export function curationRoutes(app: ServerApp, levers: SearchLevers | undefined, access: ConsoleAccess): void {
  // (Who asks is checked before a body is read, and a body is bounded: nobody else makes the server parse megabytes.)
  for (const path of ['/api/synonyms', '/api/rules', '/api/curation/*']) {
    app.use(path, async (c, next) => {
      access.require(c);
      await next();
    });
    app.use(
      path,
      bodyLimit({
        maxSize: MAX_LEVERS_BYTES,
        onError: () => {
          throw new HttpError(413, 'too-large', `request body over ${MAX_LEVERS_BYTES} bytes`);
        },
      }),
    );
  }
  const allowed = (c: Context) => {
    access.require(c);
    if (!levers) throw new HttpError(404, 'no-levers', 'no synonyms or rules here: this server has no store of its own');
    return levers;
  };
  const refused = (r: { error: string } | undefined) => {
    if (r) throw new HttpError(400, 'bad-body', r.error);
  };
  app.openapi(ROUTES.getSynonyms, (c) => c.json({ synonyms: [...allowed(c).current().synonyms] }, 200));
  app.openapi(ROUTES.putSynonyms, async (c) => {
    const l = allowed(c);
    refused(await l.putSynonyms(c.req.valid('json').synonyms, access.who(c)));
    return c.json({ synonyms: [...l.current().synonyms] }, 200);
  });
  app.openapi(ROUTES.getRules, (c) => c.json(rulesJson(allowed(c).current().rules), 200));
  app.openapi(ROUTES.putRules, async (c) => {
    const l = allowed(c);
    refused(await l.putRules(c.req.valid('json') as SearchRules, access.who(c)));
    return c.json(rulesJson(l.current().rules), 200);
  });
  app.openapi(historyRoute, async (c) => {
    const changes = await allowed(c).history(c.req.valid('query').limit);
    return c.json(
      {
        changes: changes.map((h) => ({
          ...h,
          at: new Date(h.at).toISOString(),
          value: JSON.parse(JSON.stringify(h.value)) as z.infer<typeof ChangeSchema>['value'],
        })),
      },
      200,
    );
  });
}

const rulesJson = (r: SearchRules) => JSON.parse(JSON.stringify(r)) as z.infer<typeof RulesSchema>;
