/**
 * A parse worker's code as one JavaScript bundle (esbuild): the message loop and the extractor
 * module with everything they import. Loading that in a worker takes ~50 ms, where loading the
 * same TypeScript through tsx (a module-loader thread, one round trip per module) took ~300 ms
 * of CPU per worker — a tenth of a 1,000-page crawl's time (bench/crawl). Built at every start
 * (~40 ms, in esbuild's own process), so it can never be stale.
 */
import type { Plugin } from 'esbuild';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * iconv-lite's code-page tables for Chinese, Japanese and Korean: ~400 KB of JSON, over half the
 * bundle, read only when a page is in one of those encodings. Left out, they are required from
 * node_modules then (the bundle's require resolves from this folder, and esbuild writes their
 * paths relative to it); a worker no longer parses them at every start, and is ready ~100 ms
 * sooner (the main thread parses pages inline until then).
 */
function codePageTables(): string[] {
  try {
    return [join(dirname(createRequire(import.meta.url).resolve('iconv-lite/package.json')), 'encodings', 'tables', '*')];
  } catch {
    return []; // (Another layout: bundled like the rest.)
  }
}

/** The entry of a parse worker that runs `extract` of `module`: the message loop, then the extractor (esbuild's stdin). */
export function workerEntry(module: URL): { contents: string; resolveDir: string; loader: 'ts'; sourcefile: string } {
  const loop = fileURLToPath(new URL('./worker.ts', import.meta.url));
  return {
    contents:
      `import { serve } from ${JSON.stringify(loop)};\n` +
      `import * as extractor from ${JSON.stringify(fileURLToPath(module))};\n` +
      "serve(extractor.extract, Reflect.get(extractor, 'configure'));\n",
    resolveDir: fileURLToPath(new URL('.', import.meta.url)),
    loader: 'ts',
    sourcefile: 'parse-worker.ts',
  };
}

/**
 * The name of the worker file that the build (scripts/build.ts) makes for an extractor module:
 * `workers/<the module's file name, without its extension>.js` beside the compiled CLI.
 */
export function prebuiltWorkerName(module: URL): string {
  return `${fileURLToPath(module)
    .replace(/^.*[\\/]/, '')
    .replace(/\.[cm]?[jt]s$/, '')}.js`;
}

/** The source of an ES module that runs `extract` of `module` in a parse worker. */
export async function bundleWorker(module: URL): Promise<string> {
  const loop = fileURLToPath(new URL('./worker.ts', import.meta.url));
  // (Imported when needed: the compiled CLI runs workers the build made, and never loads esbuild.)
  const { build } = await import('esbuild');
  const result = await build({
    stdin: workerEntry(module),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    logLevel: 'silent',
    // (Only the imports the filter matches ask this thread: two, for PDF.js.)
    plugins: [externalByPath(EXTERNAL)],
    // Some dependencies are CommonJS and require() Node's built-in modules: give the ES module a require.
    // (The bundle runs from a data: URL, so require resolves from this folder.)
    banner: { js: `import { createRequire as __trawlRequire } from 'node:module'; const require = __trawlRequire(${JSON.stringify(loop)});` },
    external: codePageTables(),
    // External paths are written relative to this: the folder the bundle's require resolves from.
    absWorkingDir: dirname(loop),
  });
  return result.outputFiles[0]!.text;
}

/**
 * Packages left out of the bundle, imported from where they are installed instead: PDF.js is
 * 4 MB of code that only a document worker needs, once it meets a PDF (bundled, it made every
 * worker's code ten times larger and its build ~0.5 s instead of ~40 ms); the language
 * detector's database (eld, ~1 MB) is loaded by the index's extractor when it needs it.
 */
const EXTERNAL = /^(pdfjs-dist|eld)(\/|$)/;

/** Imports matching `filter` stay imports, of the installed file's absolute URL (the bundle runs from a data: URL, where a bare name resolves to nothing). */
function externalByPath(filter: RegExp): Plugin {
  return {
    name: 'external-by-path',
    setup(b) {
      b.onResolve({ filter }, (args) => ({ path: import.meta.resolve(args.path), external: true }));
    },
  };
}
