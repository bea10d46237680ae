/** The commands themselves. Each reads as the pipeline it runs. */
import {
  Appliance,
  Coordinator,
  CuratedSearcher,
  curationFor,
  leversOf,
  migrateStore,
  searchLogFor,
  searchReportsFor,
  SharedThreadSearcher,
  storeLocationOf,
} from '../appliance/index.ts';
import { ShardNode } from '../indexer/shards/index.ts';
import { PRODUCT_VERSION, type Config } from '../config/index.ts';
import type { CrawlStatus, RenderStatus, SeedStatus } from '../model/index.ts';
import type { RunningServer } from '../search-ui/index.ts';
import { seedCause, statusLine } from '../search-ui/status-line.ts';
import { showProgress } from './progress.ts';
import { configFrom, IMPORT_SETTINGS, log, onStopSignal, say, UsageError, type CommonFlags } from './shared.ts';

// The server (hono, zod-openapi, prom-client) and the archive reader (warcio) are loaded by the
// commands that use them: `trawl crawl` reaches its first request without them (issue 23).
const searchUi = () => import('../search-ui/index.ts');
const archives = () => import('./archive.ts');

/** `trawl start`: crawl, index and serve at once, until a signal. */
export async function start(urls: string[], flags: CommonFlags & { warc?: string[] }, preset: Record<string, unknown> = {}): Promise<RunningServer> {
  // With archives and no seed, the crawl only reads the archives (every URL admitted, nothing fetched).
  const fromArchives = flags.warc?.length && !urls.length ? IMPORT_SETTINGS : {};
  const config = configFrom(flags, urls, { ...fromArchives, ...preset });
  const app = await Appliance.open(config, { lockFor: 'start', log });
  let server: RunningServer | undefined;
  try {
    await app.loadFocus();
    const { crawler } = await app.createCrawler([], config.recrawl.continuous ? 'continuous' : 'off');
    if (!flags.warc?.length) await requireSeeds(app, 'start');
    const { createApp, listen } = await searchUi();
    const analytics = searchLogFor(config.analytics, app.store, log);
    const reports = searchReportsFor(config.analytics, app.store, analytics);
    const curation = await curationFor(config, app.store, app.normalize, log);
    const ui = createApp({
      ...serverOptions(config),
      // (Searches share the main thread with the crawl's page work: lib/slices.ts.)
      searcher: new CuratedSearcher(new SharedThreadSearcher(app.index, app.feed.slices), curation),
      levers: leversOf(curation),
      status: () => app.status(),
      storeHealth: () => app.store.health?.() ?? { up: true },
      version: PRODUCT_VERSION,
      explain: (url) => app.explain(url),
      admin: app,
      adminToken: config.server.adminToken,
      ...(analytics ? { analytics } : {}),
      ...(reports ? { reports } : {}),
    });
    server = await listen(ui, config.server.host, config.server.port);
    app.startFlushTimer();
    onStopSignal(async () => {
      await server?.close();
      await analytics?.close();
      curation.close();
      await app.close();
    });
    process.stdout.write(
      `Trawl ${PRODUCT_VERSION}: crawling ${(await app.store.seeds.all()).join(', ') || '(no seed)'}\n` +
        `Search at ${server.url}\nCrawl status at ${server.url}status\n`,
    );
    // Archives are imported while the server answers: each page is searchable as soon as it is read.
    if (flags.warc?.length) {
      const { importLine, importWithProgress } = await archives();
      const summary = await importWithProgress(crawler, flags.warc);
      await app.refreshAnchors();
      log.info(importLine(summary, app.index.documentCount));
    }
    log.info(
      config.server.adminToken
        ? 'admin actions are on (server.adminToken is set)'
        : 'admin actions are off (set server.adminToken or TRAWL_ADMIN_TOKEN to turn them on)',
    );
    const exposed = exposure(config);
    if (exposed) log.warn(exposed);
    log.info(`data directory: ${app.where}`);
    const summary = setInterval(async () => log.info(statusLine(await app.status())), 10_000);
    summary.unref();
    void crawler.run().then(async ({ reason }) => {
      clearInterval(summary);
      await app.refreshAnchors();
      await app.flush().catch((e: unknown) => log.warn(`index flush failed (the crawl database still has every page): ${(e as Error).message}`));
      const revisiting = config.recrawl.continuous && reason !== 'stopped' ? '; pages will be fetched again as they fall due' : '';
      const s = await app.status();
      log.info(
        `crawl ${reason === 'exhausted' ? 'finished: nothing in scope is left' : `stopped (${reason})`}. ${statusLine(s)}. ` +
          `Still serving at ${server?.url}${revisiting}; Ctrl-C to stop.`,
      );
      const failed = seedsFailed(s.seeds ?? []);
      if (failed) log.warn(failed);
    });
    return server;
  } catch (e) {
    await server?.close();
    await app.close();
    throw e;
  }
}

/** `trawl crawl`: crawl until nothing in scope is left (or a limit), flush, exit. */
export async function crawl(urls: string[], flags: CommonFlags): Promise<void> {
  const config = configFrom(flags, urls);
  const app = await Appliance.open(config, { lockFor: 'crawl', log });
  try {
    await app.loadFocus();
    const { crawler } = await app.createCrawler();
    await requireSeeds(app, 'crawl');
    app.startFlushTimer();
    onStopSignal(() => app.close());
    say(`crawling ${(await app.store.seeds.all()).join(', ')} into ${app.where}`);
    const progress = showProgress(() => app.status());
    const { reason } = await crawler.run();
    await progress.stop();
    await app.close();
    const s = await app.status();
    const ended =
      reason === 'exhausted'
        ? 'done: nothing in scope is left'
        : reason === 'limit'
          ? `stopped: limits.maxPages (${config.limits.maxPages}) reached`
          : 'stopped';
    say(
      `${ended}. ` +
        `${s.crawl.fetched} fetched, ${failedSummary(s.crawl)}, ${s.crawl.excluded} excluded, ${s.crawl.queued} still queued; ` +
        `${s.index.documents} documents indexed.` +
        (s.focus ? ` Focus: ${s.focus.relevant} pages relevant, ${s.focus.notRelevant} not (recorded, not indexed).` : '') +
        renderSummary(s.render),
    );
    const failed = seedsFailed(s.seeds ?? []);
    if (failed) throw new CrawlFailedError(failed);
  } catch (e) {
    await app.close();
    throw e;
  }
}

/**
 * `trawl recrawl`: fetches again the pages named (every URL, a host's, some URLs, or those whose
 * revisit is due), applies what changed to the index, and exits with a summary. Stored pages are
 * asked for conditionally.
 */
export async function recrawl(urls: string[], flags: CommonFlags & { all?: boolean; due?: boolean; host?: string[] }): Promise<void> {
  const targets = [
    ...(flags.all ? [{ all: true as const }] : []),
    ...(flags.host ?? []).map((host) => ({ host: host.toLowerCase() })),
    ...urls.map((url) => ({ url })),
  ];
  if (!targets.length && !flags.due) throw new UsageError('trawl recrawl: say what to recrawl: --all, --due, --host HOST or URLs');
  if ((flags.all || flags.due) && targets.length + (flags.due ? 1 : 0) > 1)
    throw new UsageError(`trawl recrawl: ${flags.all ? '--all' : '--due'} is a whole pass; give it alone`);
  const config = configFrom(flags);
  const app = await Appliance.open(config, { lockFor: 'recrawl', log });
  try {
    await app.loadFocus();
    const { crawler } = await app.createCrawler([], flags.due ? 'due' : 'off');
    app.startFlushTimer();
    onStopSignal(() => app.close());
    const counts = { unchanged: 0, changed: 0, new: 0, gone: 0, failed: 0 };
    crawler.on('fetch', (e) => {
      if (e.change) counts[e.change]++;
      // (A URL that will be retried counts once it is given up.)
      else if (e.outcome === 'dead') counts.failed++;
    });
    let queued = 0;
    for (const t of targets) queued += (await app.recrawl(t)).queued;
    say(
      flags.due
        ? `recrawling the ${await app.store.urls.dueRevisits(Date.now())} pages of ${app.where} whose revisit is due`
        : `recrawling ${queued} URLs of ${app.where}`,
    );
    const started = performance.now();
    const progress = showProgress(() => app.status());
    const { reason } = await crawler.run();
    await progress.stop();
    await app.close();
    say(
      `recrawl ${reason === 'exhausted' ? 'done' : `stopped (${reason})`} in ${((performance.now() - started) / 1000).toFixed(1)} s: ` +
        `${counts.unchanged} unchanged, ${counts.changed} changed, ${counts.new} new, ${counts.gone} gone, ${counts.failed} failed.`,
    );
  } catch (e) {
    await app.close();
    throw e;
  }
}

/**
 * `trawl serve`: search over an existing data directory — or, with a shared store, a search node:
 * its index built from the store (or its own snapshot in --data), following the change log so that
 * what any worker stores is searchable here at once, and flushed to --data like a crawl's.
 */
export async function serveOnly(flags: CommonFlags): Promise<void> {
  const config = configFrom(flags);
  if (config.cluster.shards.length) return coordinate(config);
  if (config.cluster.shard && !config.store)
    throw new UsageError(`--shard ${config.cluster.shard} needs the store the shards share: give --store postgres://user@host/db (or TRAWL_STORE)`);
  const app = await Appliance.open(config, config.store ? { log, lockFor: 'serve', readOnlyStore: true } : { log });
  if (config.store) app.startFlushTimer();
  // (No crawl runs here: no admin actions, which act on one. A coordinator may ask this index: /api/shard/*.)
  const shard = app.feed.shard?.text;
  const { createApp, listen } = await searchUi();
  const analytics = searchLogFor(config.analytics, app.store, log);
  const reports = searchReportsFor(config.analytics, app.store, analytics);
  const curation = await curationFor(config, app.store, app.normalize, log);
  const ui = createApp({
    ...serverOptions(config),
    searcher: new CuratedSearcher(app.index, curation),
    levers: leversOf(curation),
    shard: new ShardNode(app.index, shard, (q) => curation.optionsFor(q, {})),
    status: () => app.status(),
    storeHealth: () => app.store.health?.() ?? { up: true },
    version: PRODUCT_VERSION,
    explain: (url) => app.explain(url),
    adminToken: config.server.adminToken,
    ...(analytics ? { analytics } : {}),
    ...(reports ? { reports } : {}),
  });
  const server = await listen(ui, config.server.host, config.server.port);
  onStopSignal(async () => {
    await server.close();
    await analytics?.close();
    curation.close();
    await app.close();
  });
  process.stdout.write(
    `Trawl ${PRODUCT_VERSION}: ${app.index.documentCount} documents${shard ? ` (shard ${shard})` : ''} ` +
      `from ${app.where}${config.store ? ', following its changes' : ''}\nSearch at ${server.url}\n`,
  );
  const exposed = exposure(config);
  if (exposed) log.warn(exposed);
}

/**
 * `trawl serve --shards URL,URL,…`: a coordinator — no index, no store — answering every search
 * by asking each shard and merging their answers (appliance/coordinator.ts).
 */
async function coordinate(config: Readonly<Config>): Promise<void> {
  if (config.cluster.shard) throw new UsageError('a coordinator (--shards) holds no shard of its own: give --shard to the shards, --shards to the coordinator');
  const coordinator = new Coordinator(config, log);
  await coordinator.start();
  const { createApp, listen } = await searchUi();
  const ui = createApp({
    ...serverOptions(config),
    searcher: coordinator.searcher,
    status: async () => coordinator.status(),
    shards: () => coordinator.shards(),
    version: PRODUCT_VERSION,
  });
  const server = await listen(ui, config.server.host, config.server.port);
  onStopSignal(async () => {
    await server.close();
    await coordinator.stop();
  });
  const up = coordinator.shards().filter((s) => s.up).length;
  process.stdout.write(
    `Trawl ${PRODUCT_VERSION}: coordinator of ${config.cluster.shards.length} shards ` +
      `(${up} answering, ${coordinator.searcher.documentCount} documents)\nSearch at ${server.url}\n`,
  );
  const exposed = exposure(config);
  if (exposed) log.warn(exposed);
}

/** `trawl db migrate`: creates the store, or brings its schema up to this Trawl, and says what it did. */
export async function migrate(flags: CommonFlags): Promise<void> {
  const report = await migrateStore(storeLocationOf(configFrom(flags)));
  say(`${report.location}: schema ${report.version}${report.applied.length ? `; applied ${report.applied.join('; ')}` : ', nothing to migrate'}`);
}

/** The failures at the end of a crawl: the crawl's own, and the sites' broken links apart ("2 failed, 3 broken links"). */
function failedSummary(c: CrawlStatus): string {
  if (!c.brokenLinks || !c.fetchFailures) return `${c.failed} failed`;
  return `${c.fetchFailures.count} failed, ${c.brokenLinks.count} broken link${c.brokenLinks.count === 1 ? '' : 's'}`;
}

/** What the browser did, for the end of a crawl: pages rendered, or those that needed a browser there was none of. */
function renderSummary(r: RenderStatus | undefined): string {
  if (!r) return '';
  const rendered = r.rendered || r.failed ? ` Rendered in a browser: ${r.rendered} pages${r.failed ? ` (${r.failed} renders failed)` : ''}.` : '';
  const missed = r.wouldRender ? ` ${r.wouldRender} pages needed a browser and were indexed from their plain HTML: ${r.unavailable}.` : '';
  return rendered + missed;
}

/** A crawl behind a login served to everyone on the network: what to say (undefined when not so). */
export function exposure(config: Readonly<Config>): string | undefined {
  const loopback = /^(127\.|::1$|localhost$|\[::1\]$)/i.test(config.server.host);
  if (!config.auth.length || config.server.auth || loopback) return undefined;
  return (
    `auth is configured (content behind a login is crawled), but the search server on ${config.server.host} answers everyone who can reach it: ` +
    'set server.auth (basic or bearer) to protect it, or keep server.host on 127.0.0.1'
  );
}

/** What every search server of these commands is given besides what it serves: the server's settings, and the logger. */
export function serverOptions(config: Config) {
  return {
    log,
    hosts: { bound: config.server.host, allowed: config.server.allowedHosts },
    maxEventStreams: config.server.maxEventStreams,
    apiRate: config.server.apiRate,
    serverAuth: config.server.auth,
    corsOrigins: config.server.corsOrigins,
  };
}

/** A crawl that could fetch none of its seeds: a failure (exit code 1), named seed by seed. */
export class CrawlFailedError extends Error {
  readonly code = 'ERR_NO_SEED_FETCHED';
}

/** When no seed could be fetched, what to tell: each seed and the real cause; else undefined. */
export function seedsFailed(seeds: readonly SeedStatus[]): string | undefined {
  if (!seeds.length || seeds.some((s) => s.fetched)) return undefined;
  const lines = seeds.map((s) => `  ${s.url}: ${seedCause(s)}`);
  return `no seed could be fetched:\n${lines.join('\n')}`;
}

async function requireSeeds(app: Appliance, command: string): Promise<void> {
  if ((await app.store.seeds.all()).length === 0) {
    throw new UsageError(`nothing to crawl: give a URL (trawl ${command} https://docs.example.org/) or "seeds" in a --config file`);
  }
}

export type { Config };
