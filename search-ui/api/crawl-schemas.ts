/**
 * The parts of /api/status (schemas.ts) that tell a crawl's failures apart and keep its history:
 * the sites' broken links, the crawl's own failures, and the samples the dashboard's chart draws.
 */
import { z } from '@hono/zod-openapi';
import { count } from './values.ts';

/** How many there are and the first few: the shape of both lists of failures. */
const listed = <T extends z.ZodType>(item: T, what: string) =>
  z.strictObject({
    count: count.openapi({ description: `How many ${what} there are` }),
    shown: z
      .array(item)
      .readonly()
      .openapi({ description: `The first ${what} (at most 20), in the order Trawl found them` }),
  });

export const BrokenLinksSchema = listed(
  z.strictObject({
    url: z.string(),
    status: z.number().int().openapi({ description: '404 or 410' }),
    foundOn: z.string().nullable().openapi({ description: 'The page whose links first led to it (null: not recorded)' }),
    links: count.openapi({ description: 'Links to it that carry text, from the crawled pages (links without text are not counted)' }),
  }),
  'broken links',
)
  .optional()
  .openapi({
    description: "Of failed: links of the crawled sites to pages that are not there (404/410 reached from a link, not a seed) — the site's to fix",
  });

export const FetchFailuresSchema = listed(
  z.strictObject({
    url: z.string(),
    state: z.enum(['failed', 'dead']).openapi({ description: 'failed: another attempt is due; dead: given up' }),
    error: z.string().nullable().openapi({ description: 'Its error code (timeout, http-5xx, refused, unparsable…)' }),
    reason: z.string().nullable(),
    httpStatus: z.number().int().nullable(),
    attempts: count,
  }),
  'failures of the crawl',
)
  .optional()
  .openapi({ description: 'Of failed: every failure that is not a broken link — timeouts, 5xx, refused connections, pages that could not be parsed…' });

export const HistorySchema = z
  .array(
    z.strictObject({
      at: z.iso.datetime(),
      pagesPerSecond: z.number(),
      pages: count.openapi({ description: 'Pages fetched with success by this process so far' }),
      failures: count.openapi({ description: 'Fetches that failed so far (a URL tried again counts each time)' }),
    }),
  )
  .readonly()
  .optional()
  .openapi({
    description:
      "The crawl's figures over time in this process, oldest first: at most 240 samples, thinned evenly over the whole crawl (absent: no crawl here)",
  });

/** What /api/status says of an auth scope beyond its logins: whether it applied at all. */
export const authCoverage = {
  requests: count.openapi({ description: 'Requests it gave its credentials to in this run (0: it never applied)' }),
  loginRedirectsOutside: count.openapi({ description: 'Pages it does not cover that were sent to its login page: a sign that its match misses the site' }),
  hostsOutside: z.array(z.string()).readonly().openapi({ description: 'The hosts of those pages, with their ports, the first few' }),
};
