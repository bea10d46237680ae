/**
 * PDF.js, loaded once per thread, quietly, for text extraction only.
 *
 * - The worker module is imported here and handed to PDF.js as `globalThis.pdfjsWorker`: PDF.js then
 *   runs its "fake worker" in this thread without importing a file by a computed path (which a
 *   bundle loaded from a data: URL could not resolve). The caller runs extraction in worker threads.
 * - PDF.js's display module evaluates `new DOMMatrix()` when it loads, and on Node it `require`s the
 *   optional @napi-rs/canvas package (Skia, installed with pdfjs-dist) for DOMMatrix, ImageData and
 *   Path2D. Text extraction never renders, and loading Skia cost ~37 MB of RSS (its library, and the
 *   system fonts it maps): inert stand-ins are installed first, and the package is answered by an
 *   empty module from `require`'s cache, so that it is never loaded. PDF.js's load-time warnings are
 *   silenced (its verbosity cannot be set before it loads; getDocument's `verbosity` governs the rest).
 * - Loading PDF.js changes this thread's globals: it polyfills recent built-ins (core-js:
 *   Promise.withResolvers, Uint8Array.prototype.toHex, iterator helpers, …) and defines `self` and,
 *   on Node 20, `navigator`.
 */
import { createRequire, Module } from 'node:module';

export type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

let loading: Promise<PdfJs> | undefined;

export function loadPdfJs(): Promise<PdfJs> {
  loading ??= load();
  return loading;
}

async function load(): Promise<PdfJs> {
  const g = globalThis as Record<string, unknown>;
  for (const name of ['DOMMatrix', 'ImageData', 'Path2D']) g[name] ??= class {};
  withoutCanvas();
  const { log, warn } = console;
  console.log = console.warn = () => {};
  // The legacy build's core-js replaces Array.prototype.push and JSON's functions on Node 20 (a
  // feature check fails there), and its push cost ~16 % of extraction (bench/documents): the
  // native ones are put back once it has loaded. PDF.js works the same with either.
  const natives = [
    [Array.prototype, 'push'],
    [JSON, 'parse'],
    [JSON, 'stringify'],
  ].map(([owner, name]) => [owner, name, Object.getOwnPropertyDescriptor(owner, name as string)!] as const);
  try {
    const [pdfjs, worker] = await Promise.all([import('pdfjs-dist/legacy/build/pdf.mjs'), import('pdfjs-dist/legacy/build/pdf.worker.mjs')]);
    g.pdfjsWorker = worker;
    return pdfjs;
  } finally {
    for (const [owner, name, descriptor] of natives) Object.defineProperty(owner, name as string, descriptor);
    console.log = log;
    console.warn = warn;
  }
}

/**
 * @napi-rs/canvas, as PDF.js would require it (from its own folder), answered by an empty module in
 * require's cache (this thread's): PDF.js then takes the stand-ins above and never loads Skia. Where
 * the package is not installed there is nothing to do (PDF.js's require fails quietly).
 */
export function withoutCanvas(): void {
  let path: string;
  try {
    path = createRequire(import.meta.resolve('pdfjs-dist/legacy/build/pdf.mjs')).resolve('@napi-rs/canvas');
  } catch {
    return;
  }
  const cache = createRequire(import.meta.url).cache;
  if (cache[path]) return;
  const empty = new Module(path);
  empty.filename = path;
  empty.loaded = true;
  cache[path] = empty;
}
