/**
 * bench/recrawl: what a recrawl pass costs next to a full crawl. A copy of a documentation corpus,
 * with a sitemap (each page's <lastmod> is its file's time) named by robots.txt, is served by nginx
 * (which answers If-None-Match / If-Modified-Since with 304) and crawled in full. Then 5 % of the
 * crawled pages are edited on disk, the sitemap is written again, and two passes run, each over its
 * own copy of the data directory:
 *   - `trawl recrawl --due`: reads the sitemaps, whose newer <lastmod>s make the edited pages due;
 *   - `trawl recrawl --all`: asks for every page again, conditionally.
 * Printed: each pass's time, requests and body bytes, the ratios to the full crawl, and what the
 * pass found (each must find exactly the edited pages changed). Medians over --runs.
 *
 * Politeness is off by default (16 connections, no delay), as in bench/crawl: the passes are then
 * bound by CPU, and fixed costs (robots.txt, the sitemap) weigh most. `--delay-ms N` crawls
 * politely instead (one connection, N ms between requests), where time follows the requests made.
 *
 *   npx tsx bench/recrawl.ts [--root /usr/share/doc/postgresql-doc-15/html] [--changed 0.05] [--runs 3] [--delay-ms N]
 *   (Debian: apt-get install postgresql-doc-15 nginx-light)
 */
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { startNginx } from './corpus-server.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/postgresql-doc-15/html' },
    seed: { type: 'string', default: 'index.html' },
    changed: { type: 'string', default: '0.05' },
    runs: { type: 'string', default: '3' },
    'delay-ms': { type: 'string' },
  },
});
if (!existsSync(values.root!)) {
  console.error(`${values.root} does not exist. On Debian: apt-get install postgresql-doc-15 (or pass --root DIR)`);
  process.exit(2);
}
if (!existsSync('/usr/sbin/nginx')) {
  console.error('bench/recrawl needs nginx (apt-get install nginx-light): it answers conditional requests as a real server does');
  process.exit(2);
}
const share = Number(values.changed);
const delayMs = values['delay-ms'] === undefined ? undefined : Number(values['delay-ms']);
const perHost = delayMs === undefined ? { delayMs: 0, maxConnections: 16 } : { delayMs, maxConnections: 1 };
console.log(delayMs === undefined ? 'politeness off: 16 connections, no delay' : `polite: 1 connection, ${delayMs} ms between requests`);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/** robots.txt naming a sitemap that lists every HTML page with its file's time as <lastmod>. */
function writeSitemap(corpus: string, base: string, files: readonly string[]): void {
  const urls = files.map((f) => `<url><loc>${new URL(f, base).href}</loc><lastmod>${statSync(join(corpus, f)).mtime.toISOString()}</lastmod></url>`);
  writeFileSync(
    join(corpus, 'sitemap.xml'),
    `<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
  );
  writeFileSync(join(corpus, 'robots.txt'), `User-agent: *\nAllow: /\nSitemap: ${new URL('sitemap.xml', base).href}\n`);
}

type Pass = { seconds: number; requests: number; bytes: number; changes: Record<string, number> };

/** One pass over `dataDir`: a full crawl from the seed, every known URL again (`all`), or the due ones. */
async function pass(dataDir: string, seed: string, kind: 'full' | 'all' | 'due'): Promise<Pass & { loadSeconds: number; app: Appliance }> {
  const l0 = performance.now();
  const app = await Appliance.open(loadConfig({ overrides: { seeds: [seed], dataDir, concurrency: 16, perHost, limits: { maxDepth: 100, maxPages: 0 } } }), {
    lockFor: 'bench',
  });
  const loadSeconds = (performance.now() - l0) / 1000;
  const { crawler } = await app.createCrawler([], kind === 'due' ? 'due' : 'off');
  let bytes = 0;
  let requests = 0;
  const changes: Record<string, number> = {};
  crawler.on('fetch', (e) => {
    requests++;
    bytes += e.bytes;
    const k = e.change ?? e.outcome;
    changes[k] = (changes[k] ?? 0) + 1;
  });
  const t0 = performance.now();
  if (kind === 'all') await app.recrawl({ all: true });
  await crawler.run();
  return { seconds: (performance.now() - t0) / 1000, requests, bytes, changes, loadSeconds, app };
}

const figures = {
  full: [] as number[],
  load: [] as number[],
  due: { seconds: [] as number[], time: [] as number[], bytes: [] as number[] },
  all: { seconds: [] as number[], time: [] as number[], bytes: [] as number[] },
};
const htmlFiles = (dir: string, rel = ''): string[] =>
  readdirSync(join(dir, rel), { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? htmlFiles(dir, join(rel, e.name)) : /\.html?$/i.test(e.name) ? [join(rel, e.name)] : [],
  );
for (let r = 0; r < Number(values.runs); r++) {
  const corpus = mkdtempSync(join(tmpdir(), 'trawl-bench-recrawl-site-'));
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-recrawl-data-'));
  const dataDirAll = `${dataDir}-all`;
  cpSync(values.root!, corpus, { recursive: true });
  // (nginx's worker may run as another user: the copy must be readable to it, as the original is.)
  chmodSync(corpus, 0o755);
  const { server, bases } = await startNginx(corpus, 0);
  try {
    const seed = new URL(values.seed!, bases[0]).href;
    const files = htmlFiles(corpus);
    writeSitemap(corpus, bases[0]!, files);
    const full = await pass(dataDir, seed, 'full');
    // Edit an evenly spread share of the pages crawled: a new sentence before </body>.
    const urls: string[] = [];
    for await (const d of full.app.store.documents.all()) urls.push(d.url);
    urls.sort();
    await full.app.close();
    cpSync(dataDir, dataDirAll, { recursive: true });
    const step = Math.round(1 / share);
    const edited = urls.filter((_, i) => i % step === 0);
    for (const [i, url] of edited.entries()) {
      const file = join(corpus, decodeURIComponent(new URL(url).pathname));
      const html = readFileSync(file, 'utf8');
      writeFileSync(file, html.replace(/<\/body>/i, `<p>recrawlmark${i} was added after the first crawl.</p></body>`));
    }
    writeSitemap(corpus, bases[0]!, files);
    console.log(
      `run ${r + 1}: full crawl: ${full.requests} requests, ${full.seconds.toFixed(2)} s, ` +
        `${(full.bytes / 1e6).toFixed(1)} MB; then ${edited.length} of ${urls.length} pages edited`,
    );
    for (const kind of ['due', 'all'] as const) {
      const re = await pass(kind === 'due' ? dataDir : dataDirAll, seed, kind);
      const marked = edited.filter(async (_, i) => (await re.app.index.search(`recrawlmark${i}`)).total === 1).length;
      await re.app.close();
      console.log(
        `  recrawl --${kind}: ${re.requests} requests, ${re.seconds.toFixed(2)} s (${pct(re.seconds / full.seconds)}), ` +
          `${(re.bytes / 1e6).toFixed(2)} MB (${pct(re.bytes / full.bytes)}); ` +
          `${Object.entries(re.changes)
            .map(([k, v]) => `${v} ${k}`)
            .join(', ')}; index open ${re.loadSeconds.toFixed(2)} s; edits found by search: ${marked} of ${edited.length}`,
      );
      if (re.changes.changed !== edited.length || marked !== edited.length)
        console.log(`  ✗ the pass should find exactly the ${edited.length} edited pages changed and searchable`);
      figures[kind].seconds.push(re.seconds);
      figures[kind].time.push(re.seconds / full.seconds);
      figures[kind].bytes.push(re.bytes / full.bytes);
      figures.load.push(re.loadSeconds);
    }
    figures.full.push(full.seconds);
  } finally {
    server.kill();
    for (const d of [corpus, dataDir, dataDirAll]) rmSync(d, { recursive: true, force: true });
  }
}
console.log(
  `\nmedians of ${figures.full.length} runs (full crawl ${median(figures.full).toFixed(2)} s; index open before a pass ${median(figures.load).toFixed(2)} s):`,
);
for (const kind of ['due', 'all'] as const) {
  const f = figures[kind];
  console.log(
    `  recrawl --${kind}: ${median(f.seconds).toFixed(2)} s = ${pct(median(f.time))} of a full crawl's time (target ≤ 15 %), ` +
      `${pct(median(f.bytes))} of its body bytes`,
  );
}
