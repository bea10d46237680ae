/**
 * Config → components: the one place that turns settings into the stages of a crawl (URL policy,
 * fetcher, parser, host scheduler, frontier — local, or leased when the store is shared — crawler). The appliance builds its crawl from here, and so does
 * `trawl classify` for the one page it fetches and parses, so that both fetch and parse alike.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PRODUCT_VERSION } from '../config/index.ts';
import { WarcArchive } from '../crawler/archive/archive.ts';
import { availableParallelism } from 'node:os';
import { ConfigError } from '../config/index.ts';
import type { AuthService } from '../crawler/auth/auth.ts';
import { browserLogin } from '../crawler/auth/browser-login.ts';
import { silentLog } from '../lib/log.ts';
import type { Config } from '../config/schema.ts';
import {
  buildScope,
  Crawler,
  createNormalizer,
  defaultFilters,
  defaultParseWorkers,
  Fetcher,
  HostScheduler,
  LeasedFrontier,
  LocalFrontier,
  parseHostAlias,
  ParsePool,
  productToken,
  RobotsCache,
  type CrawlerLimits,
  type HostPolicy,
  type IndexSink,
  type RevisitMode,
  type RobotsSource,
  type SharedFrontier,
  type UrlPolicy,
} from '../crawler/index.ts';
import type { ParseSettings } from '../crawler/parse/extract.ts';
import { isDocumentJob } from '../crawler/parse/jobs.ts';
import { RoutedParser } from '../crawler/parse/route.ts';
import { checkBrowser, RenderPolicy, RenderService, type RenderDeps } from '../crawler/render/index.ts';
import type { Focus } from '../crawler/focus/index.ts';
import { DEFAULT_TEMPLATE_SETTINGS, Extraction, TemplateLearner } from '../crawler/template/index.ts';
import { AddressPolicy } from '../crawler/fetch/index.ts';
import type { NormalizeOptions, Normalizer } from '../crawler/urls/index.ts';
import type { Log } from '../lib/log.ts';
import type { Slices } from '../lib/slices.ts';
import type { Store } from '../store/index.ts';

/** The URL normalizer's options of the config (host aliases, parameters to drop, …). */
export function normalizeOptionsOf(c: Readonly<Config>): NormalizeOptions {
  return {
    hostAliases: c.urls.hostAliases.map(parseHostAlias),
    stripParams: c.urls.stripParams.map((p) => new RegExp(p, 'i')),
    collapseRepeatedParams: c.urls.collapseRepeatedParams,
    dropIndexFiles: c.urls.dropIndexFiles,
    lowercasePath: c.urls.lowercasePath,
  };
}

/** The URL normalizer of the config. */
export function normalizerOf(c: Readonly<Config>): Normalizer {
  return createNormalizer(normalizeOptionsOf(c));
}

/**
 * How raw links become queued URLs: the normalizer and the filter chain. The default scope is the
 * seeds' hosts as identities (after host aliases), since scope is checked on identities.
 */
export function urlPolicyOf(c: Readonly<Config>, seeds: readonly string[], urlsOfHost: (host: string) => number): UrlPolicy {
  const normalize = normalizerOf(c);
  const identities = [...new Set(seeds)].map((s) => {
    const n = normalize(s);
    return n.ok ? n.url : s;
  });
  const scope = buildScope({ allow: c.scope.allow, exclude: c.scope.exclude, seeds: identities });
  const filters = defaultFilters(
    scope,
    {
      maxUrlLength: c.limits.maxUrlLength,
      maxDepth: c.limits.maxDepth,
      maxPagesPerHost: c.limits.maxPagesPerHost,
      maxRepeatedSegments: c.limits.maxRepeatedSegments,
      maxQueryParams: c.limits.maxQueryParams,
      maxParamLength: c.limits.maxParamLength,
    },
    urlsOfHost,
  );
  return { normalize, filters };
}

/**
 * The fetcher of the config: user agent, timeouts, body cap, connections per host, and the
 * addresses it may connect to (fetch.allowPrivateAddresses, given the seeds: DNS is asked).
 */
export async function fetcherOf(c: Readonly<Config>, seeds: readonly string[], log: Log = silentLog): Promise<Fetcher> {
  const addresses = await AddressPolicy.of(c.fetch.allowPrivateAddresses, seeds);
  // (The form login of an auth scope makes its requests through this fetcher, once it exists.)
  let fetcher: Fetcher | undefined;
  // (Loaded only for a crawl with auth scopes: tough-cookie and the login flows stay out of the others' start.)
  const AuthService = c.auth.length ? (await import('../crawler/auth/auth.ts')).AuthService : undefined;
  const auth = AuthService
    ? new AuthService(
        c.auth,
        (method, url, headers, body) => fetcher!.send(method, url, headers, body),
        log,
        c.auth.some((a) => a.form?.browser) ? browserLogin(c.render.browserPath) : undefined,
      )
    : undefined;
  fetcher = new Fetcher({
    userAgent: c.userAgent,
    timeoutMs: c.limits.timeoutMs,
    maxBodyBytes: c.limits.maxBodyBytes,
    connectionsPerOrigin: c.perHost.maxConnections,
    addresses,
    documents: { maxBytes: c.documents.maxBytes, is: (contentType, head, url) => isDocumentJob({ contentType, body: head, url }) },
    network: {
      ...(c.fetch.proxy ? { proxy: c.fetch.proxy } : {}),
      env: { HTTP_PROXY: c.fetch.httpProxy, HTTPS_PROXY: c.fetch.httpsProxy, NO_PROXY: c.fetch.noProxy },
      ca: c.fetch.caFile ? [readCaFile(c.fetch.caFile)] : [],
      insecureHosts: c.fetch.insecureHosts,
    },
    ...(auth ? { auth } : {}),
    keepRaw: c.archive.warc,
  });
  const network = fetcher.describeNetwork();
  if (network !== 'direct') log.info(`requests leave ${network}`);
  for (const host of c.fetch.insecureHosts)
    log.warn(`fetch.insecureHosts: the TLS certificate of ${host} is NOT checked — anyone between Trawl and it could read and change what is crawled`);
  return fetcher;
}

/** fetch.caFile's certificates, or a clear refusal. */
function readCaFile(file: string): string {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (e) {
    throw new ConfigError(`fetch.caFile: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new ConfigError(`fetch.caFile: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return pem;
}

/** What a parse job carries besides the page: the robots token, the links cap, what documents are read and how far. */
export function parseSettingsOf(c: Readonly<Config>): ParseSettings {
  return {
    robotsToken: productToken(c.userAgent).toLowerCase(),
    maxLinks: c.limits.maxLinksPerPage,
    documentTypes: c.documents.types,
    maxPages: c.documents.maxPages,
    maxDocumentBytes: c.documents.maxBytes,
  };
}

/**
 * The parser: worker threads running the crawler's extraction and the index's analysis of each
 * page — pages in one pool, documents (PDF, Office…) in another, started at the first document,
 * with their own heap and time limits and never on the main thread. The document workers run the
 * crawler's extraction only; the page workers analyze their pages (RoutedParser).
 */
export function parserOf(c: Readonly<Config>, log: Log): RoutedParser {
  // (The parsers load on this thread only when it first parses a page itself: a crawl's first
  // request does not wait for them.)
  const extractor = {
    module: new URL('./extract-for-index.ts', import.meta.url),
    load: () => import('./extract-for-index.ts').then((m) => m.extract),
    config: { stemming: c.index.stemming },
  };
  const pages = new ParsePool(c.parseWorkers === 'auto' ? defaultParseWorkers() : c.parseWorkers, { log, extractor });
  const documentWorkers = c.documents.workers === 'auto' ? defaultDocumentWorkers() : c.documents.workers;
  const documents = new ParsePool(documentWorkers, {
    log,
    name: 'document',
    lazy: true,
    inline: false,
    timeoutMs: c.documents.timeoutMs,
    maxHeapMb: c.documents.maxHeapMb,
    youngGenerationMb: DOCUMENT_YOUNG_GENERATION_MB,
    jobsPerWorker: 1,
  });
  return new RoutedParser(pages, documents);
}

/**
 * Document workers by default: one per core, at most 4. Extraction is most of the work of a crawl of
 * documents, and PDF.js takes ~4× pdftotext's CPU: on 2 cores one worker made bench/documents 1.5×
 * slower (146 s against 98 s, same loaded machine) for a quarter less memory (758 against 1,002 MB
 * peak RSS) — set documents.workers to 1 where memory counts more than time.
 */
export function defaultDocumentWorkers(cores = availableParallelism()): number {
  return Math.max(1, Math.min(4, cores));
}

/** A document worker's young generation (MB): PDF.js's garbage is collected by the worker itself (documents/gc.ts). */
const DOCUMENT_YOUNG_GENERATION_MB = 16;

/** The hosts' politeness of the config (perHost.*). */
export function hostPolicyOf(c: Readonly<Config>): HostPolicy {
  return {
    maxConnections: c.perHost.maxConnections,
    delayMs: c.perHost.delayMs,
    maxCrawlDelayMs: c.perHost.maxCrawlDelayMs,
    suspendAfterErrors: c.perHost.suspendAfterErrors,
    suspendMs: c.perHost.suspendMs,
  };
}

export function schedulerOf(c: Readonly<Config>): HostScheduler {
  return new HostScheduler(hostPolicyOf(c));
}

/** The crawler's settings of the config. */
export function limitsOf(c: Readonly<Config>): CrawlerLimits {
  return {
    concurrency: c.concurrency,
    maxRedirects: c.limits.maxRedirects,
    maxLinksPerPage: c.limits.maxLinksPerPage,
    followNofollow: c.followNofollow,
    retry: c.retry,
    revisit: { minMs: c.recrawl.minInterval, maxMs: c.recrawl.maxInterval },
    documents: { types: c.documents.types, maxPages: c.documents.maxPages, maxBytes: c.documents.maxBytes },
  };
}

/**
 * The crawl's frontier over `store`: by host lease when it is shared with other crawlers
 * (`shared`: a PostgreSQL store), else the crawler's own; its per-host counts read.
 */
export async function frontierOf(
  c: Readonly<Config>,
  store: Store,
  o: { scheduler: HostScheduler; robots: RobotsSource; revisits: RevisitMode; shared?: SharedFrontier | undefined; log?: Log | undefined },
): Promise<LocalFrontier> {
  const options = {
    store,
    scheduler: o.scheduler,
    robots: o.robots,
    maxPages: c.limits.maxPages,
    revisits: o.revisits,
    maxSuspensions: c.perHost.maxSuspensions,
    log: o.log,
  };
  const frontier = o.shared ? new LeasedFrontier({ ...options, shared: o.shared }) : new LocalFrontier(options);
  await frontier.load();
  return frontier;
}

/**
 * Rendering in a browser (crawler/render), when the config may render at all: the policy, and the
 * renderer, launched at the first page that needs it. Its own requests go through the crawl's
 * fetcher (the address policy, the user agent). `always` without a browser is refused here, at start.
 */
export async function renderOf(c: Readonly<Config>, fetcher: Fetcher, log: Log): Promise<RenderDeps | undefined> {
  const policy = new RenderPolicy(c.render.mode, c.render.rules);
  if (!policy.mayRender) return undefined;
  if (policy.requiresBrowser) await checkBrowser(c.render.browserPath);
  const r = c.render;
  const service = new RenderService(
    {
      browserPath: r.browserPath,
      concurrency: r.concurrency,
      timeoutMs: r.timeoutMs,
      settleMs: r.settleMs,
      maxRequests: r.maxRequests,
      maxBytes: r.maxBytes,
      subFetch: (url, init, maxBytes, signal) => fetcher.subrequest(url, init, maxBytes, signal),
      allowRequest: (url) => /^https?:\/\//i.test(url),
      log,
    },
    log,
  );
  return { policy, service };
}

/** What the parser leaves out of pages' text: the config's selectors per host, and the templates learned (unless off). */
export function extractionOf(c: Readonly<Config>): Extraction {
  const t = c.extract.template;
  return new Extraction(c.extract.exclude, t.learn ? new TemplateLearner({ ...DEFAULT_TEMPLATE_SETTINGS, minPages: t.minPages, share: t.share }) : undefined);
}

/** A crawl's components, for the orchestrator to hold (and close). */
export type CrawlParts = {
  readonly crawler: Crawler;
  readonly policy: UrlPolicy;
  readonly scheduler: HostScheduler;
  readonly fetcher: Fetcher;
  readonly parser: RoutedParser;
  readonly render: RenderDeps | undefined;
  readonly auth: AuthService | undefined;
  readonly archive: WarcArchive | undefined;
  readonly extraction: Extraction;
};

/**
 * Builds a crawl over `store`: seeds are the config's, the extra ones given and the stored ones
 * (they define the default scope). `index` receives the pages stored.
 */
/** The WARC archive of the crawl (archive.warc), in the data directory's archive/ folder. */
export function archiveOf(c: Readonly<Config>, store: Store, dataDir: string, log: Log): WarcArchive | undefined {
  if (!c.archive.warc) return undefined;
  // The settings the crawl ran with, for the warcinfo record (secrets print as where they come from).
  const settings = JSON.stringify({
    seeds: c.seeds,
    scope: c.scope,
    userAgent: c.userAgent,
    limits: c.limits,
    perHost: c.perHost,
    documents: c.documents,
    render: c.render,
    auth: c.auth.map((a) => a.match),
  });
  return new WarcArchive(
    {
      dir: join(dataDir, 'archive'),
      maxFileBytes: c.archive.maxFileBytes,
      format: c.archive.format,
      title: `Trawl's crawl of ${c.seeds.length ? c.seeds.join(', ').slice(0, 200) : 'its stored seeds'}`,
      info: { software: `Trawl ${PRODUCT_VERSION}`, isPartOf: c.seeds[0] ?? 'trawl crawl', 'trawl-settings': settings, 'http-header-user-agent': c.userAgent },
    },
    store.archive,
    log,
  );
}

export async function buildCrawl(
  c: Readonly<Config>,
  store: Store,
  o: {
    extraSeeds: readonly string[];
    revisits: RevisitMode;
    focus: Focus | undefined;
    index: IndexSink;
    slices?: Slices | undefined;
    log: Log;
    dataDir: string;
    shared?: SharedFrontier | undefined;
  },
): Promise<CrawlParts> {
  const seeds = [...c.seeds, ...o.extraSeeds, ...(await store.seeds.all())];
  const fetcher = await fetcherOf(c, seeds, o.log);
  const scheduler = schedulerOf(c);
  const robots = new RobotsCache(store.robots, fetcher, c.userAgent);
  const frontier = await frontierOf(c, store, { scheduler, robots, revisits: o.revisits, shared: o.shared, log: o.log });
  const policy = urlPolicyOf(c, seeds, (host) => frontier.urlsOfHost(host));
  const render = await renderOf(c, fetcher, o.log);
  const archive = archiveOf(c, store, o.dataDir, o.log);
  const parser = parserOf(c, o.log);
  const extraction = extractionOf(c);
  const crawler = new Crawler({
    store,
    frontier,
    fetcher,
    parser,
    policy,
    limits: limitsOf(c),
    focus: o.focus,
    extraction,
    render,
    archive,
    auth: fetcher.auth as AuthService | undefined,
    index: o.index,
    slices: o.slices,
    userAgent: c.userAgent,
    log: o.log,
  });
  return { crawler, policy, scheduler, fetcher, parser, render, archive, extraction, auth: fetcher.auth as AuthService | undefined };
}
