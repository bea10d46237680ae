/**
 * bench/render's child processes, so that every figure is one process's alone:
 *
 *   render-once.ts crawl '<CrawlSettings JSON>'   one Trawl crawl in a fresh process (as cold as a
 *                                                 real `trawl crawl`): prints one JSON line of figures
 *   render-once.ts spa-server <pages>             testweb/spa-web.ts on a free loopback port, until
 *                                                 killed: prints "listening http://127.0.0.1:PORT"
 *
 * The crawl samples `app.status().render` every `sampleMs` (the renderer's browserRssBytes: PSS
 * summed over Chromium's processes, refreshed once a second) for its peak, and reports the CPU of
 * this process (all its threads; the browser's is measured by bench/render from outside).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type CrawlSettings = {
  seeds: string[];
  concurrency: number;
  perHost: { delayMs: number; maxConnections: number };
  render: { mode: 'auto' | 'never' | 'always'; concurrency?: number; settleMs?: number };
  /** Status sampled this often for the browser's memory (0: never during the crawl). */
  sampleMs: number;
  /** Searched after the crawl: each query's hits (URLs). */
  queries: string[];
  /** A progress line on stderr this often (0: none). */
  progressMs: number;
  label: string;
};

export type CrawlFigures = {
  pages: number;
  indexed: number;
  documents: number;
  requests: number;
  seconds: number;
  cpuSeconds: number;
  peakRssMB: number;
  startRssMB: number;
  render: { rendered: number; failed: number; wouldRender: number; meanMs: number; restarts: number; unavailable: string | null } | null;
  /** Peak of status().render.browserRssBytes, sampled every sampleMs. */
  peakBrowserMB: number;
  statusSamples: number;
  hits: Record<string, string[]>;
};

const [mode, arg] = process.argv.slice(2);
if (mode === 'spa-server') {
  const { spaWeb } = await import('../testweb/spa-web.ts');
  const web = spaWeb({ pages: Number(arg ?? 500) });
  const server = createServer((req, res) => {
    web.log.length = 0; // the request log is for tests: kept empty here
    web.handler(req, res);
  });
  server.keepAliveTimeout = 30_000;
  server.listen(0, '127.0.0.1', () => console.log(`listening http://127.0.0.1:${(server.address() as AddressInfo).port}`));
} else if (mode === 'crawl') {
  const settings = JSON.parse(arg!) as CrawlSettings;
  const { Appliance } = await import('../appliance/index.ts');
  const { loadConfig } = await import('../config/index.ts');
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-render-'));
  const app = await Appliance.open(
    loadConfig({
      overrides: {
        seeds: settings.seeds,
        dataDir,
        concurrency: settings.concurrency,
        perHost: settings.perHost,
        limits: { maxDepth: 100, maxPages: 0 },
        render: settings.render,
      },
    }),
    { lockFor: 'bench' },
  );
  try {
    const startRss = process.memoryUsage.rss();
    const { crawler } = await app.createCrawler();
    let peakBrowser = 0;
    let samples = 0;
    let sampling = false;
    const sample = async () => {
      if (sampling) return; // a status still being read: skip this tick
      sampling = true;
      try {
        const r = (await app.status()).render;
        samples++;
        if (r) peakBrowser = Math.max(peakBrowser, r.browserRssBytes);
      } finally {
        sampling = false;
      }
    };
    const sampler = settings.sampleMs > 0 ? setInterval(() => void sample(), settings.sampleMs) : undefined;
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    const progress =
      settings.progressMs > 0
        ? setInterval(() => {
            void app
              .status()
              .then((s) =>
                console.error(
                  `    ${settings.label}: ${Math.round((performance.now() - t0) / 1000)} s, ${s.crawl.fetched} fetched, ` +
                    `${s.render?.rendered ?? 0} rendered, browser ${Math.round((s.render?.browserRssBytes ?? 0) / 1e6)} MB`,
                ),
              );
          }, settings.progressMs)
        : undefined;
    await crawler.run();
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    clearInterval(sampler);
    clearInterval(progress);
    if (settings.sampleMs > 0) await sample();
    const status = await app.status();
    const hits: Record<string, string[]> = {};
    for (const q of settings.queries) hits[q] = (await app.index.search(q)).hits.map((h) => h.url);
    const r = status.render;
    const figures: Omit<CrawlFigures, 'peakRssMB'> = {
      pages: status.crawl.fetched,
      indexed: status.crawl.indexed,
      documents: status.index.documents,
      requests: crawler.stats.snapshot().requests,
      seconds,
      cpuSeconds: (cpu.user + cpu.system) / 1e6,
      startRssMB: startRss / 1e6,
      render: r
        ? { rendered: r.rendered, failed: r.failed, wouldRender: r.wouldRender, meanMs: r.meanMs, restarts: r.restarts, unavailable: r.unavailable }
        : null,
      peakBrowserMB: peakBrowser / 1e6,
      statusSamples: samples,
      hits,
    };
    await app.close();
    const out: CrawlFigures = { ...figures, peakRssMB: (process.resourceUsage().maxRSS * 1024) / 1e6 };
    console.log(JSON.stringify(out));
  } finally {
    await app.close().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
  process.exit(0);
} else {
  console.error('usage: render-once.ts crawl JSON | spa-server PAGES');
  process.exit(2);
}
