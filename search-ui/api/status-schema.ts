/**
 * GET /api/status's shape (schemas.ts holds the others'). Strict: a test holds a full status
 * against it, so a field added to the model without a description here fails the build.
 */
import { z } from '@hono/zod-openapi';
import { URL_STATES, type ApplianceStatus } from '../../model/index.ts';
import { authCoverage, BrokenLinksSchema, FetchFailuresSchema, HistorySchema } from './crawl-schemas.ts';
import { count, type Described, iso, isoOrNull } from './values.ts';

const stageFigures = z.strictObject({ count, ms: z.number() });

const CrawlStatsSchema = z.strictObject({
  requests: count,
  bytes: count,
  pagesPerSecond: z.number(),
  stages: z.strictObject({
    fetch: stageFigures,
    parse: stageFigures,
    render: stageFigures,
    classify: stageFigures,
    store: stageFigures,
    index: stageFigures,
    links: stageFigures,
  }),
  outcomes: z.record(z.string(), count).openapi({ description: 'Request outcomes of this run, by kind' }),
});

const HostSchema = z.strictObject({
  host: z.string(),
  queued: count,
  inFlight: count,
  delayMs: z.number(),
  errors: count,
  waitingForRobots: z.boolean(),
  suspendedUntil: z.iso.datetime().nullable().openapi({ description: 'Until when the host is suspended; null: it is not' }),
  suspensions: count,
  lastError: z.string().nullable(),
});

const FetchEventSchema = z.strictObject({
  url: z.string(),
  status: z.union([z.number().int(), z.string()]).openapi({ description: 'The HTTP status, or the error code when no response came' }),
  ms: z.number(),
  bytes: count,
  outcome: z.enum(['indexed', 'fetched', 'not-modified', 'redirected', 'excluded', 'failed', 'dead']),
  held: z.boolean().optional().openapi({ description: 'A revisit of a page Trawl held' }),
  change: z.enum(['new', 'changed', 'unchanged', 'gone']).optional(),
});

const SeedSchema = z.strictObject({
  url: z.string(),
  state: z.enum([...URL_STATES, 'unknown']).openapi({ description: "Its URL record's state (unknown: never queued, e.g. out of scope)" }),
  fetched: z.boolean().openapi({ description: 'An HTTP response came back' }),
  error: z.string().nullable(),
  reason: z.string().nullable(),
});

/** GET /api/status: the crawl, the seeds, the recrawl, a focused crawl, the index and the latest fetches. */
export const StatusSchema = z
  .strictObject({
    summary: z.string().openapi({ description: 'The one-line summary the search page shows' }),
    crawl: z.strictObject({
      running: z.boolean(),
      paused: z.boolean().openapi({ description: 'Paused by an admin' }),
      fetched: count,
      indexed: count,
      queued: count,
      inFlight: count,
      failed: count.openapi({ description: "Retrying plus dead: the sites' broken links and the crawl's own failures (brokenLinks, fetchFailures)" }),
      retrying: count,
      dead: count,
      excluded: count,
      redirected: count,
      pagesPerSecond: z.number(),
      stats: CrawlStatsSchema.nullable().openapi({ description: "This run's per-stage figures; null before it starts" }),
      hosts: z.array(HostSchema).readonly().openapi({ description: 'Hosts with their politeness state, the busiest first' }),
      rejections: z
        .array(z.strictObject({ reason: z.string(), count }))
        .readonly()
        .openapi({ description: 'Why URLs were not queued, most first' }),
      linksCut: z
        .strictObject({ pages: count, links: count })
        .optional()
        .openapi({ description: 'Pages with more links than limits.maxLinksPerPage, and the links not followed' }),
      templates: z
        .strictObject({
          hosts: count.openapi({ description: 'Hosts whose template (blocks of text on many of their pages) was learned' }),
          blocks: count.openapi({ description: 'Blocks of text in those templates, kept out of body text and snippets' }),
          pagesCleaned: count.openapi({ description: 'Stored pages cleaned of blocks learned after they were stored' }),
          hostsForgotten: count.openapi({ description: 'Hosts whose block counts were dropped for newer ones (at most 1,000 kept)' }),
        })
        .optional()
        .openapi({ description: 'Templates learned in this run; absent when extract.template.learn is off or no crawl runs here' }),
      brokenLinks: BrokenLinksSchema,
      fetchFailures: FetchFailuresSchema,
    }),
    history: HistorySchema,
    seeds: z.array(SeedSchema).readonly().optional().openapi({ description: 'The first seeds and what became of them' }),
    recrawl: z.strictObject({
      continuous: z.boolean(),
      due: count,
      nextDueAt: isoOrNull,
      revisited: count,
      changed: count,
      unchanged: count,
      removed: count,
    }),
    focus: z
      .strictObject({ classifier: z.string(), cutoff: z.number(), relevant: count, notRelevant: count })
      .nullable()
      .openapi({ description: 'null: not a focused crawl' }),
    render: z
      .strictObject({
        mode: z.enum(['never', 'auto', 'always']),
        rendered: count,
        failed: count,
        waiting: count.openapi({ description: 'Pages waiting for the browser' }),
        rendering: count,
        meanMs: z.number().openapi({ description: 'Mean time a render took' }),
        browserRssBytes: count.openapi({ description: "The browser's resident memory, all its processes" }),
        restarts: count,
        unavailable: z.string().nullable().openapi({ description: 'Why there is no browser (null: there is one, or none was needed yet)' }),
        wouldRender: count.openapi({ description: 'Pages that needed a browser while there was none' }),
        renderingHosts: z.array(z.string()).readonly().openapi({ description: 'Hosts rendered from the start: their pages kept needing a browser' }),
      })
      .optional()
      .openapi({ description: 'Rendering pages that need JavaScript; absent when no crawl runs here or render.mode is never' }),
    auth: z
      .array(
        z.strictObject({
          scope: z.string(),
          kind: z.string(),
          logins: count,
          loginFailures: count,
          renewals: count,
          refused: count,
          lastProblem: z.string().nullable(),
          ...authCoverage,
        }),
      )
      .readonly()
      .optional()
      .openapi({ description: 'The scopes of auth: logins, sessions renewed, credentials refused — never a secret' }),
    workers: z
      .array(
        z.strictObject({
          id: z.string(),
          machine: z.string(),
          pid: count,
          state: z.enum(['running', 'stale', 'stopped']).openapi({
            description: 'running: renews its leases; stale: its leases could have run out unrenewed (died, or cut off from the store); stopped: said so',
          }),
          hosts: count.openapi({ description: 'Hosts under its lease now' }),
          staleHosts: count.openapi({ description: 'Hosts whose lease ran out unrenewed (taken over by other workers in time)' }),
          pages: count,
          pagesPerSecond: z.number(),
          startedAt: iso,
          seenAt: iso.openapi({ description: 'Its last heartbeat' }),
        }),
      )
      .readonly()
      .optional()
      .openapi({ description: 'The crawlers sharing a PostgreSQL store, as each last told it; absent on SQLite (one process holds the store)' }),
    shards: z
      .array(
        z.strictObject({
          url: z.string(),
          shard: z.string().nullable().openapi({ description: '"K/N", the share of the documents the shard says it holds (null: it does not say)' }),
          up: z.boolean().openapi({ description: 'It answered the last check' }),
          documents: count,
          checkedAt: iso.openapi({ description: 'When it was last asked (every second)' }),
          ms: z.number().openapi({ description: 'How long it took to answer, or to fail' }),
          error: z.string().nullable().openapi({ description: 'Why it did not answer (null: it did)' }),
        }),
      )
      .readonly()
      .optional()
      .openapi({ description: 'The shards this coordinator merges (trawl serve --shards); absent: it answers from its own index' }),
    index: z.strictObject({
      documents: count,
      terms: count,
      lastFlushAt: isoOrNull,
      lastFlushMs: z.number().nullable(),
      lastFlushBytes: z.number().nullable(),
      byType: z
        .array(z.strictObject({ type: z.string(), count }))
        .readonly()
        .optional()
        .openapi({ description: 'Documents by type (html, pdf, docx…), most first' }),
      nearDuplicates: z
        .strictObject({
          maxDistance: count.openapi({ description: 'index.nearDuplicates.maxDistance: bits of SimHash within which two documents are near-duplicates' }),
          documents: count.openapi({ description: 'Documents that have at least one near-duplicate' }),
          clusters: count.openapi({ description: 'Groups of such documents, joined by near-duplicate pairs' }),
          countedAt: z.iso
            .datetime()
            .openapi({ description: 'When they were counted (a census runs when the index changed, at most once a minute unless it grew by a tenth)' }),
        })
        .optional()
        .openapi({ description: 'Near-duplicates in the index; absent when index.nearDuplicates.maxDistance is 0' }),
    }),
    recent: z.array(FetchEventSchema).readonly().openapi({ description: 'The latest fetches, newest first' }),
  })
  .openapi('Status');

// The schema describes the model's type: a change to one that the other does not follow fails here.
export const STATUS_DESCRIBED: Described<ApplianceStatus & { summary: string }, typeof StatusSchema> = true;
