/**
 * One crawl for bench/documents, in a process of its own (every run as cold as a real `trawl
 * crawl`, no run inheriting another's heap or PDF.js's caches): reads its settings as JSON from
 * argv (or a file named there), crawls the directory listings served by nginx (autoindex) with politeness off, and prints
 * one JSON line of figures — time, CPU (all threads: process.cpuUsage), peak RSS, what every
 * fetch was, the record of every PDF of the tree, each PDF's text agreement with pdftotext's and
 * the known-item queries' ranks. Progress goes to stderr.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Appliance } from '../appliance/index.ts';
import { loadConfig } from '../config/index.ts';
import { between, snapshot, trackWorkerThreads, type ThreadFigures } from './thread-cpu.ts';

// (Before anything starts a worker: their CPU is told apart by their threads.)
trackWorkerThreads();

export type DocumentsOnceSettings = {
  seed: string;
  /** Document worker threads (documents.workers); absent: the default. */
  documentWorkers?: number;
  /** The PDFs of the tree, relative to the root, and where pdftotext's text of each is (same order). */
  pdfs: string[];
  pdftotextFiles: string[];
  queries: { q: string; answers: string[] }[];
};

/** A PDF of the tree and what became of it. */
export type PdfRecord = {
  path: string;
  /** Stored as a document (under its own URL or as a duplicate of another's). */
  indexed: boolean;
  state: string;
  reason: string | null;
  error: string | null;
  httpStatus: number | null;
  bytes: number;
  pages: number | null;
  pagesCut: number;
  textCut: number;
  /** pdftotext's words (≥ 2 characters, with repeats) and those found among Trawl's. */
  words: number;
  found: number;
  /** The same after NFKC (ligatures such as "ﬁ" split into letters) on both sides. */
  foundNfkc: number;
  wordsNfkc: number;
};

export type DocumentsOnceFigures = {
  seconds: number;
  /** When the last PDF was indexed (the crawl may go on with links that answer 404, asked again to confirm). */
  lastPdfSeconds: number;
  cpuSeconds: number;
  /** CPU and run-queue wait by thread group: main, page workers (extract-for-index.js), document workers (extract.js), the rest (thread-cpu.ts). */
  threads: ThreadFigures;
  peakRssMB: number;
  startRssMB: number;
  requests: number;
  /** Fetches by kind of URL (pdf, listing, or the file's extension): count, bytes, outcomes. */
  fetches: Record<string, { count: number; bytes: number; outcomes: Record<string, number> }>;
  byType: { type: string; count: number }[];
  indexDocuments: number;
  pdfs: PdfRecord[];
  /** Rank (0-based, -1: not in the top 10) of the first answer of each query, and the top three. */
  queries: { q: string; rank: number; recall: number; top: string[] }[];
  anchorsRefreshed: number;
};

// The settings as JSON, or the path of a file that holds them (a list of 300 PDFs is long for argv).
const arg = process.argv[2]!;
const settings = JSON.parse(arg.startsWith('{') ? arg : readFileSync(arg, 'utf8')) as DocumentsOnceSettings;
const base = new URL('./', settings.seed);
const dataDir = mkdtempSync(join(tmpdir(), 'trawl-bench-documents-'));
try {
  const app = await Appliance.open(
    loadConfig({
      overrides: {
        seeds: [settings.seed],
        dataDir,
        concurrency: 16,
        perHost: { delayMs: 0, maxConnections: 16 },
        limits: { maxDepth: 100, maxPages: 0 },
        ...(settings.documentWorkers ? { documents: { workers: settings.documentWorkers } } : {}),
      },
    }),
    { lockFor: 'bench' },
  );
  const startRss = process.memoryUsage.rss();
  const { crawler } = await app.createCrawler();
  /** The last fetch of every URL: its bytes, status and outcome. */
  const fetched = new Map<string, { bytes: number; outcome: string; status: number | string }>();
  let pdfsDone = 0;
  let lastPdfAt = 0;
  const t0 = performance.now();
  crawler.on('fetch', (e) => {
    fetched.set(e.url, { bytes: e.bytes, outcome: e.outcome, status: e.status });
    if (!/\.pdf$/i.test(new URL(e.url).pathname) || e.outcome !== 'indexed') return;
    lastPdfAt = performance.now() - t0;
    if (++pdfsDone % 50 === 0) process.stderr.write(`    … ${pdfsDone} PDFs indexed, ${(lastPdfAt / 1000).toFixed(0)} s\n`);
  });
  let peakRss = startRss;
  const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage.rss())), 20);
  const cpu0 = process.cpuUsage();
  const threads0 = snapshot();
  await crawler.run();
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  const threads = between(threads0, snapshot(), (cpu.user + cpu.system) / 1e6);
  clearInterval(sampler);
  peakRss = Math.max(peakRss, process.memoryUsage.rss());

  // Links found after a document was indexed reach its anchor field now (the appliance also
  // starts this when the crawl is done; awaited here so that the queries see it finished).
  const anchorsRefreshed = await app.refreshAnchors();
  const status = await app.status();

  const kindOf = (url: string) => {
    const p = new URL(url).pathname;
    if (p.endsWith('/')) return 'listing';
    const m = /\.([A-Za-z0-9]{1,8})$/.exec(p);
    return m ? m[1]!.toLowerCase() : '(none)';
  };
  const fetches: DocumentsOnceFigures['fetches'] = {};
  for (const [url, f] of fetched) {
    const k = (fetches[kindOf(url)] ??= { count: 0, bytes: 0, outcomes: {} });
    k.count++;
    k.bytes += f.bytes;
    k.outcomes[f.outcome] = (k.outcomes[f.outcome] ?? 0) + 1;
  }

  // Every stored document by each URL it was found under (its duplicates' included).
  const docByUrl = new Map<string, { text: string; pages: number | null; pagesCut: number; textCut: number; id: number }>();
  for await (const d of app.store.documents.all()) {
    const entry = { text: d.text, pages: d.document?.pages ?? null, pagesCut: d.document?.pagesCut ?? 0, textCut: d.document?.textCut ?? 0, id: d.id };
    for (const u of await app.store.documents.urlsOf(d)) docByUrl.set(u, entry);
  }

  const pdfs: PdfRecord[] = [];
  for (let i = 0; i < settings.pdfs.length; i++) {
    const path = settings.pdfs[i]!;
    const url = new URL(path.split('/').map(encodeURIComponent).join('/'), base).href;
    const x = await app.explain(url);
    const doc = docByUrl.get(x.url) ?? docByUrl.get(url);
    const reference = readFileSync(settings.pdftotextFiles[i]!, 'utf8');
    const agree = (nfkc: boolean) => {
      const mine = new Set(words(doc?.text ?? '', nfkc));
      const theirs = words(reference, nfkc);
      return { words: theirs.length, found: theirs.filter((w) => mine.has(w)).length };
    };
    const raw = agree(false);
    const norm = agree(true);
    pdfs.push({
      path,
      indexed: doc !== undefined,
      state: x.known ? x.state : 'unknown',
      reason: x.reason,
      error: x.known ? x.error : null,
      httpStatus: x.known ? x.httpStatus : null,
      bytes: fetched.get(x.url)?.bytes ?? fetched.get(url)?.bytes ?? 0,
      pages: doc?.pages ?? null,
      pagesCut: doc?.pagesCut ?? 0,
      textCut: doc?.textCut ?? 0,
      words: raw.words,
      found: raw.found,
      wordsNfkc: norm.words,
      foundNfkc: norm.found,
    });
  }

  // Known-item queries, through the index as the search page asks it.
  const rel = (u: string) => decodeURIComponent(new URL(u).pathname).slice(decodeURIComponent(base.pathname).length);
  const queries: DocumentsOnceFigures['queries'] = [];
  for (const { q, answers } of settings.queries) {
    const got = (await app.index.search(q, { size: 10 })).hits.map((h) => rel(h.url));
    const rank = got.findIndex((g) => answers.includes(g));
    queries.push({ q, rank, recall: answers.filter((a) => got.includes(a)).length / answers.length, top: got.slice(0, 3) });
  }

  const figures: DocumentsOnceFigures = {
    seconds,
    lastPdfSeconds: lastPdfAt / 1000,
    cpuSeconds: (cpu.user + cpu.system) / 1e6,
    threads,
    peakRssMB: peakRss / 1e6,
    startRssMB: startRss / 1e6,
    requests: crawler.stats.snapshot().requests,
    fetches,
    byType: [...(status.index.byType ?? [])],
    indexDocuments: status.index.documents,
    pdfs,
    queries,
    anchorsRefreshed,
  };
  await app.close();
  console.log(JSON.stringify(figures));
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/** Words as the agreement counts them: lowercased, split on what is not a letter or digit, ≥ 2 characters. */
function words(text: string, nfkc: boolean): string[] {
  const t = (nfkc ? text.normalize('NFKC') : text).toLowerCase();
  return t.split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 2);
}
