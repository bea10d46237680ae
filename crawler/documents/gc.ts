/**
 * A full garbage collection after a large document, in document worker threads only.
 *
 * A PDF leaves its whole working set (PDF.js's parsed objects, fonts, pages) garbage at once when
 * it is destroyed. V8 sizes the next collection by what was live before, so without a push the
 * next document is read on top of the last one's garbage, and on a 2-core machine two workers can
 * each hold a big document's worth of both (bench/documents: peak RSS 1,078 MB). Collecting right
 * after a large document lets V8 give the freed pages back before the next one starts. Small
 * documents skip it: a full collection costs tens of milliseconds, more than reading them.
 *
 * `gc` is not exposed without the --expose-gc flag, which a worker's execArgv may not carry (V8
 * flags are the process's): it is set at run time, which exposes `gc` in contexts made afterwards —
 * a new vm context hands it over. On the main thread nothing is done: its heap is the index's.
 */
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isMainThread } from 'node:worker_threads';

/** A document of at least this many bytes is followed by a collection… */
export const GC_AFTER_BYTES = 1024 * 1024;
/** …and so is any document that leaves the heap this large (its garbage included). */
export const GC_ABOVE_HEAP_BYTES = 192 * 1024 * 1024;

let collect: (() => void) | null | undefined;

/** The `gc` function, made available once; null where it cannot be had. */
function collector(): (() => void) | null {
  if (collect !== undefined) return collect;
  try {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as unknown;
    collect = typeof gc === 'function' ? (gc as () => void) : null;
  } catch {
    collect = null;
  }
  return collect;
}

/** Called when a document's extraction is over (its PDF.js document destroyed). */
export function afterDocument(bytes: number): void {
  if (isMainThread) return;
  if (bytes < GC_AFTER_BYTES && getHeapStatistics().used_heap_size < GC_ABOVE_HEAP_BYTES) return;
  collector()?.();
}
