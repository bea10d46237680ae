/**
 * The settings of serving search (`server`), of its search log (`analytics`) and of many Trawl
 * processes on one PostgreSQL store (`cluster`): three sections of the configuration schema
 * (schema.ts), declared here.
 */
import { MAX_SYNONYMS, parseSynonym } from '../model/curation.ts';
import { z } from 'zod';
import { shardProblem } from '../lib/shard.ts';
import { serverAuthSchema } from './auth-schema.ts';
import { corsOrigin, duration, httpUrl, int } from './values.ts';

export const serverSettings = z
  .strictObject({
    host: z.string().min(1).default('127.0.0.1').describe('Address the search server listens on. Keep 127.0.0.1 unless others must reach it.'),
    port: int(0, 65_535).default(8080).describe('Port of the search server (0: any free port).'),
    adminToken: z
      .string()
      .min(16, 'server.adminToken must be at least 16 characters (a guessable token guards nothing)')
      .regex(/^[\x21-\x7e]+$/, 'server.adminToken must be printable ASCII without spaces')
      .optional()
      .describe(
        'Bearer token for the admin API and the admin form (add seeds, pause, resume, recrawl, remove). Unset: admin actions are off. ' +
          'Prefer the environment variable TRAWL_ADMIN_TOKEN.',
      ),
    allowedHosts: z
      .array(
        z
          .string()
          .regex(
            /^(\*|(\*\.)?[a-z0-9.-]+)$/i,
            'server.allowedHosts: each entry is a host name (no port, no scheme), `*.example.org` for its subdomains, or `*` for any',
          ),
      )
      .default([])
      .describe(
        'Host names the search server answers to besides IP addresses, `localhost` and `server.host` ' +
          '(a browser asking by any other name gets 421: a guard against DNS rebinding). ' +
          '`*.example.org` allows the subdomains; `*` any name, for a proxy that checks names itself.',
      ),
    corsOrigins: z
      .array(corsOrigin)
      .default([])
      .describe(
        'Origins (`https://www.example.org`) whose pages may call the search API from the browser — /api/search and /api/suggest, ' +
          'as the search widget does; `*` for any. Empty: none. The status and the admin API never answer another origin.',
      ),
    apiRate: int(1, 1_000_000)
      .default(20)
      .describe(
        'Requests a second that one client address may make to /api/* (bursts of twice that); more get 429 with Retry-After. ' +
          'Raise it behind a proxy that sends every user from one address, or for a load test.',
      ),
    maxEventStreams: int(1, 10_000)
      .default(32)
      .describe('Live dashboards (server-sent event streams of /api/events) open at once; more get 503 with Retry-After.'),
    auth: serverAuthSchema.describe(
      'Puts the search page, the API and the dashboard behind `basic` ({username, passwordEnv | passwordFile}) or ' +
        '`bearer` ({tokenEnv | tokenFile}); /healthz stays open. The admin token still guards the admin actions (and passes this too).',
    ),
  })
  .prefault({});

export const clusterSettings = z
  .strictObject({
    poolSize: int(1, 100)
      .default(8)
      .describe("Connections to a PostgreSQL store this process keeps at most (a crawler's commits run concurrently, one per connection)."),
    connectTimeoutMs: int(100, 600_000).default(10_000).describe('How long connecting to a PostgreSQL store may take before it counts as unreachable.'),
    leaseMs: int(1000, 3_600_000)
      .default(30_000)
      .describe(
        "How long a crawler's hold on a host lasts unless renewed (every third of it): a crawler that dies gives its hosts up, " +
          'and its URLs in flight back to the queue, after this.',
      ),
    hostsPerWorker: int(0, 100_000)
      .default(0)
      .describe('Hosts a crawler on a PostgreSQL store holds at most at once; 0: twice as many as concurrency / perHost.maxConnections.'),
    readerTimeout: duration
      .prefault('1d')
      .describe(
        'A search node not heard from for this long no longer holds the change log back from pruning; when it comes back, ' +
          'it rebuilds its index from the store.',
      ),
    outageRetry: duration
      .prefault('1h')
      .describe('How long a process waits for a PostgreSQL store that stopped answering (retrying with back-off; crawling pauses) before it gives up.'),
    shard: z
      .string()
      .superRefine((s, ctx) => {
        const problem = s === '' ? undefined : shardProblem(s);
        if (problem) ctx.addIssue({ code: 'custom', message: problem });
      })
      .default('')
      .describe(
        "This search node indexes only shard K of N of the documents (`K/N`, e.g. `1/2`; by a hash of each document's URL), " +
          "for an index larger than one node's RAM; a coordinator (cluster.shards) merges the shards' answers. " +
          'Empty: every document. Needs a shared store.',
      ),
    shards: z
      .array(httpUrl)
      .default([])
      .describe(
        'The search nodes of a sharded index (`http://host:port/`, one per shard): this server then answers every search by asking each of them ' +
          'and merging, with statistics of the whole corpus, and holds no index of its own.',
      ),
    shardTimeoutMs: int(50, 600_000)
      .default(2000)
      .describe(
        "How long a coordinator (cluster.shards) waits for a shard's answer; a shard that has not answered by then is left out, and the answer says which.",
      ),
  })
  .prefault({})
  .describe('Many Trawl processes on one PostgreSQL store: connections, host leases, search nodes.');

/** What the search console's levers start from (model/curation.ts; the console and the admin API change the store's). */
export const searchSettings = z
  .object({
    synonyms: z
      .array(
        z.string().superRefine((line, ctx) => {
          const r = parseSynonym(line);
          if ('error' in r) ctx.addIssue({ code: 'custom', message: r.error });
        }),
      )
      .max(MAX_SYNONYMS)
      .default([])
      .describe(
        'Synonyms applied to every search, besides those set in the console (`PUT /api/synonyms`): groups (`k8s, kubernetes`), ' +
          'one-way rules (`kill => terminate, cancel`), entries of several words (`"long running" => statement_timeout`). ' +
          'A synonym matches below the word itself, as completions and corrections do; no re-indexing.',
      ),
    learnFromClicks: z
      .boolean()
      .default(true)
      .describe(
        'Ranking learns from the search log: for a query with enough traffic, the pages searchers choose rise and those nobody chooses sink slowly ' +
          '(clicks corrected for the position they were shown at, capped per session). Needs `analytics.enabled`.',
      ),
  })
  .prefault({});

/** The search log (appliance/search-log.ts, search-ui/analytics.ts). */
export const analyticsSettings = z
  .object({
    enabled: z
      .boolean()
      .default(true)
      .describe(
        'Keep a search log (the console reads it): each search made on the search page, in the widget or through /api/search — the query, ' +
          "its filters, what its page showed, the clicks on it — and a tab's random session id; never an address, a user agent or a cookie. " +
          'A browser sending `Sec-GPC: 1` or `DNT: 1` is not logged.',
      ),
    retentionDays: int(1, 36_500).default(90).describe('Logged searches older than this many days are deleted (at start and every day).'),
  })
  .prefault({});
