/**
 * Full garbage collections in document worker threads only: after a large document, and within
 * one when its garbage outgrows a headroom over what is live.
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

/**
 * Within a document, garbage is let grow this far above what the last collection left live. V8
 * itself lets an old generation grow to up to four times its live size before collecting:
 * source3.pdf (1,611 pages) lives in ~120–190 MB but reached 426 MB of heap in use; collected at
 * 64 MB of headroom it stays under ~230 MB, for ~20 full collections (~1.4 s of its ~25 s).
 */
export const GC_HEADROOM_BYTES = 64 * 1024 * 1024;
/** No collection within a document below this heap: small documents never pay for one. */
export const GC_FLOOR_BYTES = 96 * 1024 * 1024;

let collect: (() => void) | null | undefined;
/** The heap in use right after this module's last collection. */
let liveAfterCollection = 0;

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
  collectNow();
}

/** Called after each page of a long document (PDF pages): collects when garbage has outgrown its headroom. */
export function afterPage(): void {
  if (isMainThread) return;
  const used = getHeapStatistics().used_heap_size;
  if (used < Math.max(GC_FLOOR_BYTES, liveAfterCollection + GC_HEADROOM_BYTES)) return;
  collectNow();
}

function collectNow(): void {
  const gc = collector();
  if (!gc) return;
  gc();
  liveAfterCollection = getHeapStatistics().used_heap_size;
}
