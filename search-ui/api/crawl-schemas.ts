/**
 * The parts of /api/status (schemas.ts) that tell whether an auth scope applied at all.
 */
import { z } from '@hono/zod-openapi';

const count = z.number().int().min(0);

/** What /api/status says of an auth scope beyond its logins: whether it applied at all. */
export const authCoverage = {
  requests: count.openapi({ description: 'Requests it gave its credentials to in this run (0: it never applied)' }),
  loginRedirectsOutside: count.openapi({ description: 'Pages it does not cover that were sent to its login page: a sign that its match misses the site' }),
  hostsOutside: z.array(z.string()).readonly().openapi({ description: 'The hosts of those pages, with their ports, the first few' }),
};
