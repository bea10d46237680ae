/**
 * The one configuration schema; every field declared once, here or in its section's file
 * (auth-schema.ts, serving-schema.ts): type, default, the environment variable that may set it,
 * and the doc line `config/README.md` repeats. Nothing else in Trawl reads `process.env` or parses a config file.
 */
import { z } from 'zod';
import { isCidr } from '../lib/cidr.ts';
import { LOG_LEVELS } from '../lib/log.ts';
import { DOCUMENT_FORMATS } from '../model/documents.ts';
import { authScopeSchema } from './auth-schema.ts';
import { analyticsSettings, clusterSettings, searchSettings, serverSettings } from './serving-schema.ts';
import { cssSelector, databaseUrl, duration, hostAlias, httpUrl, int, regex, scopeRule } from './values.ts';
import { PRODUCT_VERSION, PROJECT_URL } from './version.ts';

/** How pages are rendered in a browser (crawler/render/policy.ts). */
export const RENDER_MODES = ['never', 'auto', 'always'] as const;
export const DEFAULT_USER_AGENT = `TrawlBot/${PRODUCT_VERSION} (+${PROJECT_URL})`;

/** Query parameters dropped by default (urls.stripParams): session ids and campaign tracking never change what a page says. */
const DEFAULT_STRIP_PARAMS: readonly string[] = ['^(jsessionid|phpsessid|sid|sessionid|aspsessionid\\w*)$', '^utm_'];

export const configSchema = z.strictObject({
  seeds: z.array(httpUrl).default([]).describe('Start URLs. The crawl begins here; by default it stays on their hosts.'),
  scope: z
    .strictObject({
      allow: z
        .array(scopeRule)
        .default([])
        .describe("A URL is in scope if it matches any of these (`HOST:regex`, the host with or without its port, or `URL:regex`). Empty: the seeds' hosts."),
      exclude: z.array(scopeRule).default([]).describe('A URL matching any of these is out of scope, even if allowed.'),
    })
    .prefault({}),
  urls: z
    .strictObject({
      hostAliases: z
        .array(hostAlias)
        .default([])
        .describe(
          'Host names of one site, collapsed into one: `startsWith(www.)=`, `endsWith(.a.org)=.b.org`, `synonym(mirror.org)=main.org` (applied in that order).',
        ),
      stripParams: z
        .array(regex)
        .default([...DEFAULT_STRIP_PARAMS])
        .describe('Query parameters whose names match one of these regular expressions are dropped (session ids, tracking).'),
      collapseRepeatedParams: z.boolean().default(true).describe('Drop a query parameter that repeats an earlier one exactly (`?a=1&a=1` → `?a=1`).'),
      dropIndexFiles: z.boolean().default(false).describe('Treat `dir/index.html` (and `index.*`, `default.*`) as `dir/` when comparing URLs.'),
      lowercasePath: z.boolean().default(false).describe('Compare URL paths case-insensitively (for servers that ignore case).'),
    })
    .prefault({}),
  userAgent: z
    .string()
    .min(1)
    .max(512)
    .default(DEFAULT_USER_AGENT)
    .describe('Sent with every request. Its product token (before the first `/`) selects the robots.txt group.'),
  concurrency: int(1, 512).default(8).describe('Requests in flight at once, over all hosts.'),
  followNofollow: z.boolean().default(false).describe('Follow links marked rel="nofollow" (they are skipped by default).'),
  parseWorkers: z
    .union([z.literal('auto'), int(0, 16)])
    .default('auto')
    .describe('Worker threads that decode and parse pages: `auto` is one per spare core (at most 4); 0 parses on the main thread.'),
  perHost: z
    .strictObject({
      maxConnections: int(1, 64).default(1).describe('Requests in flight at once to one host.'),
      delayMs: int(0, 3_600_000).default(1000).describe('Milliseconds between the end of one request to a host and the start of the next.'),
      maxCrawlDelayMs: int(0, 3_600_000).default(60_000).describe('Upper bound on a robots.txt Crawl-delay, in milliseconds.'),
      suspendAfterErrors: int(1, 1000).default(5).describe('Consecutive failures after which a host is suspended.'),
      suspendMs: int(1000, 86_400_000).default(300_000).describe('How long a first suspension lasts; each further one lasts twice as long.'),
      maxSuspensions: int(1, 100).default(3).describe('Suspensions after which a host is given up (its URLs are marked dead).'),
    })
    .prefault({}),
  documents: z
    .strictObject({
      types: z
        .array(z.enum(DOCUMENT_FORMATS, { error: `documents.types: each is one of ${DOCUMENT_FORMATS.join(', ')}` }))
        .default([...DOCUMENT_FORMATS])
        .describe(
          `Document formats fetched and indexed besides HTML: ${DOCUMENT_FORMATS.map((f) => `\`${f}\``).join(', ')}. Others are recorded as excluded (type).`,
        ),
      maxBytes: int(1024, 2 * 1024 ** 3)
        .default(50 * 1024 ** 2)
        .describe('Largest document fetched, in bytes (default 50 MB); a larger one is excluded (too-large) — unread when its Content-Length says so.'),
      maxPages: int(1, 1_000_000).default(5000).describe('Pages (slides, sheets) of a document extracted; the rest is counted, not indexed.'),
      timeoutMs: int(100, 3_600_000)
        .default(60_000)
        .describe('Wall-clock limit on extracting one document; past it the document is recorded as unparsable (timeout) and its worker replaced.'),
      workers: z
        .union([z.literal('auto'), int(1, 16)])
        .default('auto')
        .describe(
          'Worker threads that extract documents (PDF, Office), apart from the page parsers so that pages are never held up by them. ' +
            '`auto`: one per core, at most 4 (extraction is most of the work of a crawl of documents); ' +
            'each worker may take up to documents.maxHeapMb — 1 worker holds a quarter less memory for half again the time.',
        ),
      maxHeapMb: int(64, 16_384).default(1024).describe('Heap limit of each document worker, in MB: a document that needs more fails alone (unparsable).'),
    })
    .prefault({}),
  render: z.preprocess(
    // `render: auto` is short for `render: { mode: auto }`.
    (v) => (typeof v === 'string' ? { mode: v } : v),
    z
      .strictObject({
        mode: z
          .enum(RENDER_MODES, { error: `render.mode is one of ${RENDER_MODES.join(', ')}` })
          .default('auto')
          .describe(
            '`auto` renders in a headless browser the pages that need it (an empty app root, a page of scripts without text…), ' +
              'found by looking at each page; `never` fetches over HTTP only; `always` renders every page (and refuses to start without a browser).',
          ),
        rules: z
          .array(z.strictObject({ match: scopeRule, mode: z.enum(RENDER_MODES) }))
          .default([])
          .describe(
            'Per host or URL: `{match: "HOST:^app\\.intra$", mode: always}` (the scope rules\' syntax); the first rule that matches wins over `render.mode`.',
          ),
        browserPath: z
          .string()
          .min(1)
          .default('/usr/bin/chromium')
          .describe('The Chromium (or Chrome) that renders pages (Debian: apt-get install chromium). Never downloaded.'),
        concurrency: int(1, 32).default(2).describe('Pages rendered at once, in one browser.'),
        timeoutMs: int(1000, 600_000)
          .default(15_000)
          .describe("A page's whole budget in the browser: past it, the render fails (timeout) and the page is recorded so."),
        settleMs: int(50, 10_000)
          .default(500)
          .describe(
            "The upper bound of the settle wait's quiet: a page with nothing pending (no request, no timer or animation frame due within settleMs) " +
              'is taken once its DOM, network and callbacks have been still for min(50 ms, settleMs) ' +
              '(150 ms after a script or stylesheet not yet seen loaded); ' +
              'one that keeps a short timer or animation going, ' +
              'when no request has been in flight for settleMs; one that keeps a request open forever, when its DOM has not changed for settleMs.',
          ),
        maxRequests: int(1, 10_000)
          .default(200)
          .describe('Requests a page may make in the browser (scripts, XHR, styles); images, media and fonts are never loaded.'),
        maxBytes: int(1024, 1024 ** 3)
          .default(20 * 1024 ** 2)
          .describe("Bytes of those requests' answers per page; past it the render fails (too-large)."),
      })
      .prefault({}),
  ),
  archive: z
    .strictObject({
      warc: z
        .boolean()
        .default(false)
        .describe(
          "Keep every fetched response in WARC files (ISO 28500, gzipped WARC 1.1) in the data directory's archive/ folder: " +
            'each response with its request, the bytes as received; ' +
            'a 304 or unchanged text as a revisit record referring to the response it repeats; every changed version kept.',
        ),
      maxFileBytes: int(64 * 1024, 1024 ** 4)
        .default(1024 ** 3)
        .describe('A WARC file is finished, and the next begun, at this size (default 1 GB).'),
      format: z
        .enum(['warc', 'wacz'])
        .default('warc')
        .describe(
          'How finished files are kept: `warc`, as gzipped WARC files; `wacz`, each packaged into a WACZ of the same name ' +
            "(Webrecorder's WACZ 1.1.1: the WARC stored as it is, a CDXJ index, the HTML pages with their titles, a manifest of hashes), " +
            'which ReplayWeb.page opens, and the WARC file removed. With wacz, the WARC files already in the folder are packaged at the start.',
        ),
    })
    .prefault({}),
  extract: z
    .strictObject({
      exclude: z
        .record(
          z.string().regex(/^(\*|[a-z0-9.-]+(:\d{1,5})?)$/i, 'extract.exclude: each key is a host name, host:port, or `*` for every host'),
          z.array(cssSelector),
        )
        .default({})
        .describe(
          "Per host (`docs.example.org`, `host:port`, or `*` for every host): CSS selectors whose elements' text is not body text (nor in snippets); " +
            'their links still count. E.g. `{"docs.example.org": [".sidebar", "table.navheader"]}`.',
        ),
      template: z
        .strictObject({
          learn: z
            .boolean()
            .default(true)
            .describe(
              "Learn each host's template: blocks of text on many of its pages (menus, sidebars, footers) are left out of body text and snippets, " +
                'and pages stored before it was learned are cleaned.',
            ),
          minPages: int(2, 1_000_000).default(20).describe('Pages of a host seen before any block is called its template.'),
          share: z.number().min(0.05).max(1).default(0.3).describe("A block on at least this share of a host's pages is template."),
        })
        .prefault({}),
    })
    .prefault({}),
  retry: z
    .strictObject({
      maxAttempts: int(1, 20).default(3).describe('Attempts per URL for transient errors (timeouts, resets, 429, 5xx) before it is marked dead.'),
      baseDelayMs: int(0, 86_400_000)
        .default(10_000)
        .describe('Wait before the second attempt; each further attempt waits twice as long (at least what Retry-After asks).'),
    })
    .prefault({}),
  limits: z
    .strictObject({
      maxPages: int(0, 1_000_000_000).default(100_000).describe('Stop after this many pages have been fetched in this data directory (0: no limit).'),
      maxDepth: int(0, 1000).default(20).describe('Links followed from a seed at most (a seed has depth 0).'),
      maxBodyBytes: int(1024, 1_073_741_824)
        .default(5 * 1024 * 1024)
        .describe('Larger responses are cut off at this many bytes and the cut is recorded.'),
      timeoutMs: int(100, 600_000).default(30_000).describe('Connect, headers and body timeout of one request, in milliseconds.'),
      maxRedirects: int(0, 20).default(5).describe('Redirect hops followed from one URL.'),
      maxUrlLength: int(16, 65_536).default(2048).describe('Longer URLs are rejected.'),
      maxPagesPerHost: int(0, 1_000_000_000).default(0).describe('At most this many URLs of one host are queued (0: no limit).'),
      maxRepeatedSegments: int(1, 100).default(3).describe('A URL whose path repeats one segment more often than this is a crawler trap and is rejected.'),
      maxQueryParams: int(1, 1000).default(16).describe('URLs with more query parameters are rejected (calendars, faceted search).'),
      maxParamLength: int(16, 65_536).default(512).describe('URLs with a longer query parameter are rejected.'),
      // High enough for real API indexes (rust-doc's core::arch::x86 has 9,585 links), bounded so that a hostile page cannot fill the memory.
      maxLinksPerPage: int(1, 10_000_000)
        .default(100_000)
        .describe(
          'Links followed from one page at most; a page with more is recorded with how many were cut (explain shows it, the dashboard counts such pages).',
        ),
    })
    .prefault({}),
  fetch: z
    .strictObject({
      allowPrivateAddresses: z
        .union([z.literal('seeds'), z.boolean(), z.array(z.string().refine(isCidr, 'must be an address range such as 10.0.0.0/8, fd00::/8, or an address'))])
        .default('seeds')
        .describe(
          'Which private, loopback and link-local addresses (10.x, 192.168.x, 127.x, 169.254.x, ::1, fc00::/7…) a fetch may connect to, ' +
            'checked on the address DNS answers for every connection, redirects included: `seeds` (the ranges the seeds resolve into: ' +
            'crawling an intranet or loopback works, nothing else non-public is reached), `true` (any), `false` (public addresses only), ' +
            'or a list of ranges.',
        ),
      proxy: z
        .string()
        .regex(/^https?:\/\/\S+$/i, 'fetch.proxy must be an http:// or https:// URL, e.g. http://proxy.intra:3128')
        .optional()
        .describe(
          'An HTTP(S) proxy every request goes through (`http://user:pass@proxy:3128` — better: the environment variable TRAWL_PROXY). ' +
            'Unset: HTTPS_PROXY / HTTP_PROXY / NO_PROXY from the environment, if set. ' +
            'Through a proxy, fetch.allowPrivateAddresses can check only addresses written as such.',
        ),
      httpProxy: z.string().min(1).optional().describe("The proxy for http:// URLs when fetch.proxy is unset: the environment's HTTP_PROXY (or http_proxy)."),
      httpsProxy: z
        .string()
        .min(1)
        .optional()
        .describe(
          "The proxy for https:// URLs when fetch.proxy is unset: the environment's HTTPS_PROXY (or https_proxy); " +
            'HTTP_PROXY serves https too when it is alone.',
        ),
      noProxy: z
        .string()
        .optional()
        .describe(
          "Hosts reached without the environment's proxy: NO_PROXY (or no_proxy), comma-separated names, `.suffix`es, `host:port`, or `*`. " +
            'Loopback addresses are always reached directly.',
        ),
      caFile: z.string().min(1).optional().describe("A PEM file of CA certificates to trust besides the system's: a company's private CA."),
      insecureHosts: z
        .array(z.string().regex(/^[a-z0-9.-]+(:\d{1,5})?$/i, 'fetch.insecureHosts: each is a host name or host:port'))
        .default([])
        .describe(
          'Hosts whose certificate is not checked (self-signed): each is named in the log at start. Only for a host you know; never for the public web.',
        ),
    })
    .prefault({}),
  auth: z
    .array(authScopeSchema(scopeRule, httpUrl, regex))
    .default([])
    .describe(
      'Credentials per scope (`match`, as scope rules: `HOST:…` or `URL:…`): `basic` or `digest` ({username, passwordEnv | passwordFile}), ' +
        '`bearer` ({tokenEnv | tokenFile}), `headers` and `cookies` ({Name: {env | file}}), ' +
        '`form` (a login form: url, fields, secretFields, loggedOut, browser). Sent only to URLs the scope matches; secrets only by reference.',
    ),
  index: z
    .strictObject({
      flushIntervalMs: int(1000, 86_400_000)
        .default(30_000)
        .describe('How often the in-RAM index is written to the data directory (it is also written on stop).'),
      stemming: z
        .enum(['language', 'english', 'none'])
        .default('language')
        .describe(
          'Reduce words to their stems ("indexes" finds "index", "Häuser" finds "Haus"): each page with the stemmer of its language (language), ' +
            'every page as English (english: Porter), or match words only as written (none).',
        ),
      nearDuplicates: z
        .strictObject({
          maxDistance: int(0, 7)
            .default(3)
            .describe(
              "Results whose text's SimHash is within this many bits of a better result's (mirrors, print views, " +
                'other versions of a page) fold under it as "similar pages" (0: never).',
            ),
        })
        .prefault({}),
    })
    .prefault({}),
  recrawl: z
    .strictObject({
      continuous: z.boolean().default(true).describe('`trawl start` fetches pages again as they fall due, between new ones, for as long as it runs.'),
      minInterval: duration.prefault('1h').describe('The shortest a page waits between two fetches, however often it changes.'),
      maxInterval: duration.prefault('7d').describe('The longest a page waits between two fetches, however rarely it changes.'),
    })
    .refine((r) => typeof r.minInterval !== 'number' || typeof r.maxInterval !== 'number' || r.minInterval <= r.maxInterval, {
      message: 'recrawl.minInterval must not be longer than recrawl.maxInterval',
      path: ['minInterval'],
    })
    .prefault({}),
  focus: z
    .strictObject({
      topicFile: z
        .string()
        .min(1)
        .optional()
        .describe(
          'A topic definition (`config/topics/*.txt`): the crawl keeps the pages about it, files them under its classes, ' +
            'and follows links from them. Relative to the config file. Unset: no focus, every page is kept.',
        ),
      classifier: z
        .string()
        .min(1)
        .optional()
        .describe(
          'A module (`.js`, `.mjs` or `.ts`) that classifies pages in place of the built-in scorer; it is given the topic, if any. ' +
            'Relative to the config file.',
        ),
      scorer: z
        .enum(['plain', 'position'])
        .default('plain')
        .describe('`plain`: Σ weight × location weight × hits; `position`: title, meta data and text as one stream, matches nearer the start count more.'),
      cutoff: z.number().finite().default(10).describe('A page scoring at least this is relevant: stored, indexed with its classes, its links followed.'),
      normalize: z
        .boolean()
        .default(false)
        .describe('Score per 100 words of the page (a shorter page counts as 100 words), so that long pages do not win by length alone.'),
      tunnel: int(0, 10)
        .default(1)
        .describe(
          'Links of a page that is not relevant are followed while fewer than this many such pages lead to it in a row ' +
            "from a relevant page or a seed (0: only relevant pages' links).",
        ),
      sitesOK: z
        .array(z.string().regex(/^[a-z0-9.-]+$/i, 'must be a host name, e.g. coins.example.org'))
        .default([])
        .describe('Hosts (and their subdomains) whose pages are relevant whatever they score.'),
      locationWeights: z
        .strictObject({
          title: z.number().finite().min(0).default(4).describe('Plain scorer: weight of a match in the title.'),
          meta: z.number().finite().min(0).default(3).describe('Plain scorer: weight of a match in the meta description or keywords.'),
          headings: z.number().finite().min(0).default(2).describe('Plain scorer: weight of a match in a heading (h1–h4).'),
          text: z.number().finite().min(0).default(1).describe('Plain scorer: weight of a match in the text.'),
        })
        .prefault({}),
      halfWeightAt: int(1, 1_000_000).default(100).describe('Position scorer: a match this many words from the start counts half as much as one at the start.'),
      andHalfWeightGap: int(1, 1_000_000)
        .default(10)
        .describe('Position scorer: the parts of an `@and` term with this many other words between them count half as much as adjacent ones.'),
    })
    .prefault({}),
  server: serverSettings,
  search: searchSettings,
  analytics: analyticsSettings,
  dataDir: z.string().min(1).default('./trawl-data').describe('Where the crawl database, the index and the lock file live.'),
  store: databaseUrl
    .optional()
    .describe(
      'Where the crawl is kept: unset for SQLite in dataDir (crawl.db), or a PostgreSQL database that many Trawl processes share, ' +
        'postgres://user@host:5432/trawl (the index stays in dataDir). ' +
        'A password is better kept in PGPASSWORD or ~/.pgpass than in the URL; it is never shown.',
    ),
  cluster: clusterSettings,
  logLevel: z
    .enum(LOG_LEVELS)
    .default('info')
    .describe(
      'The least important messages logged: `debug`, `info`, `warn`, `error` or `silent`. JSON lines when stderr is not a terminal, ' +
        'lines for people when it is.',
    ),
});

export type ConfigInput = z.input<typeof configSchema>;
export type Config = z.output<typeof configSchema>;
