/**
 * bench/documents: a crawl of a tree of PDFs — Debian's TeX Live documentation — served from
 * loopback by nginx with `autoindex on` (plain directory listings: the crawl starts at the root
 * listing and follows them), politeness off, fetch → sniff → extract (document worker threads) →
 * store → index included. Prints PDFs/s and MB/s of PDF extracted, wall and CPU seconds and peak
 * RSS of the crawler process (each run a fresh process, bench/documents-once.ts), the PDFs that were
 * not indexed by reason, completeness against the PDFs of the tree, each run next to a pdftotext
 * (poppler) run over the same files one process at a time just before it; CPU by thread group; then the agreement of each PDF's stored text with
 * pdftotext's words, and known-item search quality (bench/relevance/texlive.json).
 *
 *   npx tsx bench/documents.ts [--root /usr/share/doc/texlive-doc] [--runs 3] [--doc-workers default,2]
 *   (Debian: apt-get install texlive-latex-base-doc nginx-light poppler-utils)
 *   --doc-workers: comma-separated documents.workers settings, run interleaved (default: the setting's default)
 *   --queries FILE: the known-item queries (default bench/relevance/texlive.json); --show: every query's rank
 *   --json FILE: also write every run's figures there
 *
 * The other files of the tree (.tex, .html, .txt, .md, .gz…) are fetched too and reported apart;
 * only PDFs count for PDFs/s and MB/s.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { prebuiltWorkerName } from '../crawler/parse/bundle.ts';
import { compiledArgs, figuresOf, productEnv } from './compiled.ts';
import { startNginx } from './corpus-server.ts';
import type { DocumentsOnceFigures, DocumentsOnceSettings, PdfRecord } from './documents-once.ts';

const { values } = parseArgs({
  options: {
    root: { type: 'string', default: '/usr/share/doc/texlive-doc' },
    runs: { type: 'string', default: '3' },
    'doc-workers': { type: 'string', default: 'default' },
    queries: { type: 'string', default: new URL('./relevance/texlive.json', import.meta.url).pathname },
    show: { type: 'boolean', default: false },
    json: { type: 'string' },
  },
});
const NGINX = '/usr/sbin/nginx';
const root = values.root!.replace(/\/+$/, '');
const fail = (msg: string): never => {
  console.error(msg);
  process.exit(2);
};
if (!existsSync(NGINX)) fail(`${NGINX} is missing. On Debian: apt-get install nginx-light`);
if (!existsSync(root) || !statSync(root).isDirectory()) fail(`${root} does not exist. On Debian: apt-get install texlive-latex-base-doc (or pass --root DIR)`);
try {
  execFileSync('pdftotext', ['-v'], { stdio: 'ignore' });
} catch {
  fail('pdftotext is missing. On Debian: apt-get install poppler-utils');
}
const docWorkers = values['doc-workers']!.split(',').map((s) => (s.trim() === 'default' ? undefined : Number(s)));
if (docWorkers.some((w) => w !== undefined && !(w >= 1 && w <= 16))) fail('--doc-workers: a comma-separated list of "default" or 1–16');
const runCount = Number(values.runs);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const range = (xs: number[], d: number) => (xs.length > 1 ? ` (${Math.min(...xs).toFixed(d)}–${Math.max(...xs).toFixed(d)})` : '');
const fmt = (n: number, d = 1) => n.toFixed(d);
const pct = (a: number, b: number) => `${fmt(b ? (a / b) * 100 : 0)} %`;
/** The compiled workers' files (scripts/build.ts): the page workers', and the document workers' (the parse pool's default extractor). */
const PAGE_WORKER = prebuiltWorkerName(new URL('../appliance/extract-for-index.ts', import.meta.url));
const DOCUMENT_WORKER = prebuiltWorkerName(new URL('../crawler/parse/extract.ts', import.meta.url));
const setting = (w: number | undefined) => (w === undefined ? 'documents.workers default (auto)' : `documents.workers ${w}`);

// The tree: PDFs and the rest.
const pdfs: string[] = [];
const others = new Map<string, number>();
const walk = (d: string) => {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const p = join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.pdf$/i.test(e.name)) pdfs.push(relative(root, p));
    else {
      const ext = /\.([A-Za-z0-9]{1,8})$/.exec(e.name)?.[1]?.toLowerCase() ?? '(none)';
      others.set(ext, (others.get(ext) ?? 0) + 1);
    }
  }
};
walk(root);
pdfs.sort();
if (!pdfs.length) fail(`${root} holds no PDF. On Debian: apt-get install texlive-latex-base-doc`);
const pdfBytes = pdfs.reduce((s, f) => s + statSync(join(root, f)).size, 0);
console.log(
  `corpus: ${root}: ${pdfs.length} PDFs (${fmt(pdfBytes / 1e6)} MB); other files: ${[...others]
    .sort((a, b) => b[1] - a[1])
    .map(([e, n]) => `${n} .${e}`)
    .join(', ')}`,
);
console.log(`machine: ${execFileSync('uptime').toString().trim()}`);

const set = JSON.parse(readFileSync(values.queries!, 'utf8')) as { corpus: string; queries: { q: string; answers: string[] }[] };
for (const { answers } of set.queries) for (const a of answers) if (!pdfs.includes(a)) fail(`${values.queries}: answer ${a} is not a PDF of ${root}`);

// Everything started here is stopped on the way out, whatever happens.
const work = mkdtempSync(join(tmpdir(), 'trawl-bench-documents-'));
let nginx: ChildProcess | undefined;
let child: ChildProcess | undefined;
const cleanup = () => {
  child?.kill('SIGKILL');
  nginx?.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
};
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
  process.on(sig, () => {
    console.error(`\n${sig}: stopping nginx and the crawl`);
    process.exit(130);
  });

// 1. The reference: pdftotext over every PDF, one process at a time (its text kept for the agreement).
const textDir = join(work, 'pdftotext');
const pdftotextFiles = pdfs.map((_, i) => join(textDir, `${i}.txt`));
const runPdftotext = () => {
  const t = performance.now();
  let failed = 0;
  for (let i = 0; i < pdfs.length; i++) {
    try {
      execFileSync('pdftotext', ['-q', join(root, pdfs[i]!), pdftotextFiles[i]!], { stdio: 'ignore' });
    } catch {
      failed++;
      writeFileSync(pdftotextFiles[i]!, '');
    }
  }
  return { seconds: (performance.now() - t) / 1000, failed };
};
execFileSync('mkdir', ['-p', textDir]);

// 2. nginx with directory listings, one worker, in its own process.
// (Every folder answered by its listing: corpus-server.ts.)
const served = await startNginx(root, 0, { autoindex: true });
nginx = served.server;
const base = served.bases[0]!;
console.log(`nginx (autoindex on, 1 worker) at ${base}`);

// 3. The crawls, each in a fresh process and each right after a pdftotext run of its own: this
// shared machine's speed drifts by a third within minutes (CPU seconds for the same crawl:
// 122–184), so each crawl is compared with the reference run beside it, not with the fastest.
// The settings are interleaved (A B A B…) so that the drifts fall on all of them alike.
const results = new Map<number | undefined, DocumentsOnceFigures[]>(docWorkers.map((w) => [w, []]));
/** Each crawl's seconds over those of the pdftotext run just before it, by setting. */
const ratios = new Map<number | undefined, number[]>(docWorkers.map((w) => [w, []]));
const refRuns: { seconds: number; failed: number }[] = [];
for (let r = 0; r < runCount; r++) {
  for (const w of docWorkers) {
    const ref = runPdftotext();
    refRuns.push(ref);
    console.log(
      `run ${r + 1}/${runCount}, ${setting(w)}: pdftotext over every PDF, one process at a time: ` +
        `${fmt(ref.seconds, 2)} s${ref.failed ? ` (${ref.failed} failed)` : ''}; crawling…`,
    );
    const f = await documentsOnce({ seed: base, ...(w !== undefined ? { documentWorkers: w } : {}), pdfs, pdftotextFiles, queries: set.queries });
    results.get(w)!.push(f);
    ratios.get(w)!.push(f.seconds / ref.seconds);
    const pdf = pdfFigures(f);
    console.log(
      `  ${pdf.indexed}/${pdfs.length} PDFs indexed (${f.requests} requests) in ${fmt(f.seconds, 2)} s = ${fmt(f.seconds / ref.seconds, 2)}× ` +
        `pdftotext → ${fmt(pdf.indexed / f.seconds, 2)} PDFs/s, ${fmt(pdf.bytes / 1e6 / f.seconds, 2)} MB/s; ` +
        `${fmt(f.cpuSeconds, 1)} CPU s (${threadsLine(f)}), ` +
        `peak RSS ${fmt(f.peakRssMB, 0)} MB (${fmt(f.startRssMB, 0)} MB before the crawl); load ${loadavg()}`,
    );
  }
}
nginx?.kill('SIGTERM');
nginx = undefined;
const ref = median(refRuns.map((x) => x.seconds));
if (values.json)
  writeFileSync(values.json, JSON.stringify({ pdftotext: refRuns, runs: [...results].map(([w, runs]) => ({ documentWorkers: w ?? 'default', runs })) }));

// 4. Figures.
console.log(`\n== ${set.corpus}`);
console.log(
  `pdftotext: ${pdfs.length} files in ${fmt(ref, 2)} s${range(
    refRuns.map((x) => x.seconds),
    2,
  )} (one process at a time, median of the ${refRuns.length} runs, one before each crawl)`,
);
for (const [w, runs] of results) {
  const ps = runs.map(pdfFigures);
  const secs = runs.map((f) => f.seconds);
  const ratio = median(ratios.get(w)!);
  const rss = median(runs.map((f) => f.peakRssMB));
  console.log(`\n-- ${setting(w)}: medians of ${runs.length} runs, each in a fresh process (range in parentheses)`);
  console.log(
    `  PDFs/s: ${fmt(median(ps.map((p, i) => p.indexed / secs[i]!)), 2)}${range(
      ps.map((p, i) => p.indexed / secs[i]!),
      2,
    )}; MB/s of PDF extracted: ${fmt(median(ps.map((p, i) => p.bytes / 1e6 / secs[i]!)), 2)}${range(
      ps.map((p, i) => p.bytes / 1e6 / secs[i]!),
      2,
    )}`,
  );
  console.log(
    `  wall: ${fmt(median(secs), 2)} s${range(secs, 2)}, ${fmt(ratio, 2)}×${range(ratios.get(w)!, 2)} the pdftotext run beside it; ` +
      `CPU: ${fmt(median(runs.map((f) => f.cpuSeconds)), 1)} s${range(
        runs.map((f) => f.cpuSeconds),
        1,
      )}; peak RSS: ${fmt(rss, 0)} MB${range(
        runs.map((f) => f.peakRssMB),
        0,
      )}`,
  );
  const med = (pick: (f: DocumentsOnceFigures) => number) => fmt(median(runs.map(pick)), 1);
  console.log(
    `  CPU by thread (medians): main ${med((f) => f.threads.main.cpu)} s, page workers ${med((f) => byFile(f, PAGE_WORKER).cpu)} s, ` +
      `document workers ${med((f) => byFile(f, DOCUMENT_WORKER).cpu)} s, ` +
      `other threads ${med((f) => f.threads.other.cpu)} s; waiting for a core (all threads): ${med(waited)} s`,
  );
  const complete = Math.min(...ps.map((p) => p.indexed)) === pdfs.length;
  console.log(
    '  target (whole corpus crawled, extracted, searchable in < 2× pdftotext, RSS < 600 MB): ' +
      `${ratio < 2 && rss < 600 && complete ? 'MET' : 'NOT met'} (time ${ratio < 2 ? 'ok' : 'over'}, ` +
      `RSS ${rss < 600 ? 'ok' : 'over'}, ${complete ? 'complete' : 'incomplete'})`,
  );
  const last = runs[runs.length - 1]!;
  const kinds = Object.entries(last.fetches).sort((a, b) => b[1].count - a[1].count);
  const outcomes = (o: Record<string, number>) =>
    Object.entries(o)
      .map(([k, n]) => `${n} ${k}`)
      .join(', ');
  const shown = kinds.filter(([k]) => k === 'pdf' || k === 'listing').concat(kinds.filter(([k]) => k !== 'pdf' && k !== 'listing').slice(0, 6));
  const rest = kinds.filter((k) => !shown.includes(k));
  const restOutcomes: Record<string, number> = {};
  for (const [, v] of rest) for (const [o, n] of Object.entries(v.outcomes)) restOutcomes[o] = (restOutcomes[o] ?? 0) + n;
  const strayPdfs = (last.fetches.pdf?.count ?? 0) - last.pdfs.filter((p) => p.state !== 'unknown').length;
  console.log(
    `  URLs fetched (last run, ${last.requests} requests): ` +
      `${shown.map(([k, v]) => `${k === 'listing' ? 'directory listings' : `.${k}`} ${v.count} (${outcomes(v.outcomes)})`).join('; ')}; ` +
      `${rest.length} other kinds ${rest.reduce((s, [, v]) => s + v.count, 0)} (${outcomes(restOutcomes)}). ` +
      `PDF URLs not in the tree (links in documents, 404): ${strayPdfs}`,
  );
  const tail = median(runs.map((r) => r.seconds - r.lastPdfSeconds));
  if (tail > 0.5)
    console.log(
      `  the last PDF indexed at ${fmt(median(runs.map((r) => r.lastPdfSeconds)), 2)} s (median); ` +
        `the crawl ended ${fmt(tail, 2)} s later (404s asked again to confirm them)`,
    );
  console.log(`  index by type (last run): ${last.byType.map((t) => `${t.type} ${t.count}`).join(', ')} — ${last.indexDocuments} documents`);
}

// What became of the PDFs, the text agreement and the queries: the first setting's runs (the
// others' are printed where they differ).
const first = results.get(docWorkers[0])!;
const f = first[first.length - 1]!;
const missing = f.pdfs.filter((p) => !p.indexed);
console.log(
  `\ncompleteness (last run, ${setting(docWorkers[0])}): ` +
    `${f.pdfs.length - missing.length} of ${pdfs.length} PDFs indexed (${pct(f.pdfs.length - missing.length, pdfs.length)})`,
);
for (const [w, runs] of results) {
  const counts = runs.map((r) => r.pdfs.filter((p) => p.indexed).length);
  if (new Set(counts).size > 1 || w !== docWorkers[0]) console.log(`  ${setting(w)}: PDFs indexed per run: ${counts.join(', ')}`);
}
if (missing.length) {
  const byReason = new Map<string, PdfRecord[]>();
  for (const p of missing) {
    const key = `${p.state}${p.error ? ` (${p.error})` : ''}: ${(p.reason ?? '').replace(/\d+(\.\d+)?/g, 'N').slice(0, 90)}`;
    byReason.set(key, [...(byReason.get(key) ?? []), p]);
  }
  console.log('failures by reason:');
  for (const [key, ps] of [...byReason].sort((a, b) => b[1].length - a[1].length)) {
    console.log(`  ${ps.length} × ${key}`);
    for (const p of ps.slice(0, 4))
      console.log(`      e.g. ${p.path} (${fmt(statSync(join(root, p.path)).size / 1e3, 0)} KB; pdftotext: ${p.words} words): ${p.reason ?? ''}`);
  }
  console.log(`missing: ${missing.map((p) => p.path).join(', ')}`);
}
const cut = f.pdfs.filter((p) => p.pagesCut || p.textCut);
if (cut.length) console.log(`cut: ${cut.map((p) => `${p.path} (${p.pagesCut} pages, ${p.textCut} chars)`).join(', ')}`);

// Text agreement: the share of pdftotext's words that occur in Trawl's text of the same PDF.
const agreement = (ps: PdfRecord[], nfkc = false) => {
  const w = (p: PdfRecord) => (nfkc ? p.wordsNfkc : p.words);
  const fd = (p: PdfRecord) => (nfkc ? p.foundNfkc : p.found);
  const withWords = ps.filter((p) => w(p) > 0);
  return {
    total:
      withWords.reduce((s, p) => s + fd(p), 0) /
      Math.max(
        1,
        withWords.reduce((s, p) => s + w(p), 0),
      ),
    median: median(withWords.map((p) => fd(p) / w(p))),
    worst: [...withWords].sort((a, b) => fd(a) / w(a) - fd(b) / w(b)).slice(0, 5),
    files: withWords.length,
  };
};
const indexed = f.pdfs.filter((p) => p.indexed);
const a = agreement(indexed);
const aAll = agreement(f.pdfs);
const aNfkc = agreement(indexed, true);
console.log(
  `\ntext agreement with pdftotext (its words of ≥ 2 letters/digits, lowercased, found in Trawl's stored text): ${fmt(a.total * 100, 2)} % ` +
    `of ${indexed.reduce((s, p) => s + p.words, 0).toLocaleString('en')} words over the ${a.files} PDFs indexed with words; ` +
    `median per file ${fmt(a.median * 100, 2)} % — target ≥ 97 %: ${a.total >= 0.97 ? 'MET' : 'NOT met'}`,
);
console.log(`  counting the PDFs not indexed as 0: ${fmt(aAll.total * 100, 2)} %; after NFKC on both sides (ligatures): ${fmt(aNfkc.total * 100, 2)} %`);
console.log(`  worst: ${a.worst.map((p) => `${p.path} ${fmt((p.found / p.words) * 100, 1)} % of ${p.words}`).join('; ')}`);
const runsAgree = [...results.values()].flat().map((r) => agreement(r.pdfs.filter((p) => p.indexed)).total);
if (Math.max(...runsAgree) - Math.min(...runsAgree) > 1e-6) console.log(`  per run: ${runsAgree.map((x) => fmt(x * 100, 2)).join(', ')} %`);

// Known-item queries.
const relevance = (r: DocumentsOnceFigures) => ({
  mrr: r.queries.reduce((s, q) => s + (q.rank >= 0 ? 1 / (q.rank + 1) : 0), 0) / r.queries.length,
  recall: r.queries.reduce((s, q) => s + q.recall, 0) / r.queries.length,
  first: r.queries.filter((q) => q.rank === 0).length,
});
const rel = relevance(f);
console.log(
  `\nrelevance (${set.queries.length} known-item queries, ${values.queries}): MRR@10 ${fmt(rel.mrr, 3)}, ` +
    `recall@10 ${fmt(rel.recall, 3)}, answer first ${rel.first}/${set.queries.length}`,
);
for (const q of f.queries)
  if (q.rank !== 0 || values.show) console.log(`  ${JSON.stringify(q.q)}: answer at ${q.rank < 0 ? '>10' : q.rank + 1}; top: ${q.top.join(', ')}`);
const mrrs = [...results.values()].flat().map((r) => relevance(r).mrr);
if (Math.max(...mrrs) - Math.min(...mrrs) > 1e-9) console.log(`  MRR@10 per run: ${mrrs.map((x) => fmt(x, 3)).join(', ')}`);
console.log(`\nmachine after: ${execFileSync('uptime').toString().trim()}`);
process.exit(0);

function byFile(f: DocumentsOnceFigures, file: string) {
  return f.threads.workersByFile[file] ?? { cpu: 0, wait: 0 };
}
/** Seconds the crawl's threads were runnable but waited for a core: what the machine's other load cost it. */
function waited(f: DocumentsOnceFigures) {
  return f.threads.main.wait + f.threads.workers.wait + f.threads.other.wait;
}
function threadsLine(f: DocumentsOnceFigures) {
  return (
    `main ${fmt(f.threads.main.cpu, 1)}, page workers ${fmt(byFile(f, PAGE_WORKER).cpu, 1)}, ` +
    `document workers ${fmt(byFile(f, DOCUMENT_WORKER).cpu, 1)}, other ${fmt(f.threads.other.cpu, 1)}; waited for a core ${fmt(waited(f), 1)} s`
  );
}

function pdfFigures(f: DocumentsOnceFigures) {
  return { indexed: f.pdfs.filter((p) => p.indexed).length, bytes: f.pdfs.reduce((s, p) => s + p.bytes, 0) };
}

function loadavg(): string {
  return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

/** Runs bench/documents-once.ts, compiled and launched as the `trawl` command is, in a child process and returns its figures. */
async function documentsOnce(settings: DocumentsOnceSettings): Promise<DocumentsOnceFigures> {
  const arg = join(work, 'settings.json');
  writeFileSync(arg, JSON.stringify(settings));
  child = spawn(process.execPath, [...(await compiledArgs(new URL('./documents-once.ts', import.meta.url))), arg], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: productEnv(),
  });
  try {
    return await figuresOf<DocumentsOnceFigures>(child, 'crawl run');
  } finally {
    child = undefined;
  }
}
