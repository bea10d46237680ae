/**
 * `npm run build`: the JavaScript that `trawl` runs, in dist/ — so that the installed command
 * starts without compiling TypeScript (tsx costs ~0.5 s and ~50 MB at every start).
 *
 * - dist/trawl.js: the command line (cli/main.ts) bundled by esbuild, npm packages left as imports;
 *   what a command needs is split into chunks loaded when that command runs (`trawl --help` loads
 *   almost nothing).
 * - dist/workers/*.js: the parse workers' code, one file per extractor module (the page workers'
 *   and the document workers'), which crawler/parse/worker-code.ts takes instead of bundling at start;
 *   and the SQLite writer's checkpointer (store/sqlite/checkpointer.ts looks for it).
 * - dist/static/: the search page's files, read beside the code (search-ui/static-files.ts).
 * - dist/build.json: every source file the build read, for bin/trawl.js to tell a stale build.
 *
 * `buildTrawl` is also what the benchmarks use to run their one-crawl scripts as compiled code.
 */
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { prebuiltWorkerName, workerEntry } from '../crawler/parse/bundle.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The extractor modules run in parse workers (crawler/parse/worker-code.ts looks for their files). */
export const WORKER_MODULES = [new URL('../appliance/extract-for-index.ts', import.meta.url), new URL('../crawler/parse/extract.ts', import.meta.url)];

/** Worker threads whose entry is a file of its own, by their name in dist/workers/ (each module looks for its file there). */
export const WORKER_ENTRIES: Record<string, string> = { 'checkpoint-worker': 'store/sqlite/checkpoint-worker.mjs' };

const COMMON: BuildOptions = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  // crawler/parse/worker-code.ts: workers' code comes from dist/workers/ (see TRAWL_BUILD there).
  define: { TRAWL_BUILD: '"dist"' },
  sourcemap: 'linked',
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: ROOT,
};

/** Builds `entries` (output name → TypeScript file, relative to the project) into `outdir`, with the workers and the static files. */
export async function buildTrawl(entries: Record<string, string>, outdir: string): Promise<{ inputs: string[]; ms: number }> {
  const t0 = performance.now();
  const out = resolve(ROOT, outdir);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const metas: Metafile[] = [];
  const main = await build({ ...COMMON, entryPoints: entries, outdir: out, splitting: true, chunkNames: '[name]-[hash]' });
  metas.push(main.metafile!);
  for (const module of WORKER_MODULES) {
    const worker = await build({ ...COMMON, stdin: workerEntry(module), outfile: join(out, 'workers', prebuiltWorkerName(module)) });
    metas.push(worker.metafile!);
  }
  const threads = await build({ ...COMMON, entryPoints: WORKER_ENTRIES, outdir: join(out, 'workers') });
  metas.push(threads.metafile!);
  cpSync(join(ROOT, 'search-ui', 'static'), join(out, 'static'), { recursive: true });
  // (The workers' entries are made in memory: only the files on disk count.)
  const inputs = [...new Set(metas.flatMap((m) => Object.keys(m.inputs)))]
    .map((f) => relative(ROOT, resolve(ROOT, f)))
    .filter((f) => existsSync(join(ROOT, f)))
    .sort();
  inputs.push('search-ui/static', 'package.json');
  writeFileSync(join(out, 'build.json'), `${JSON.stringify({ inputs }, null, 1)}\n`);
  return { inputs, ms: performance.now() - t0 };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { inputs, ms } = await buildTrawl({ trawl: 'cli/main.ts' }, 'dist');
  console.log(
    `dist/: trawl.js and ${WORKER_MODULES.length + Object.keys(WORKER_ENTRIES).length} workers from ${inputs.length} source files in ${Math.round(ms)} ms`,
  );
}
