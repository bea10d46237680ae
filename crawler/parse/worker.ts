/**
 * The message loop of a parse worker: answers each ParseJob with what `extract` returns, or with
 * the error, and says `ready` once loaded. The worker's code is a bundle of this loop and the
 * extractor module (bundle.ts); without a bundler, worker-entry.mjs loads both through tsx.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Extracted, ParseJob } from './extract.ts';

/**
 * `configure`, if the extractor module exports one, is called first with the pool's `config`
 * (settings the extraction depends on, such as the index's stemming).
 */
export function serve(extract: (job: ParseJob) => Extracted, configure?: (config: unknown) => void): void {
  const port = parentPort;
  if (!port) throw new Error('serve() runs in a worker thread');
  configure?.((workerData as { config?: unknown } | undefined)?.config);
  // The id of the job being parsed, shared with the pool: if this thread dies, the pool knows
  // which page it was working on (messages sent before death may arrive after it).
  const current = (workerData as { current?: Int32Array } | undefined)?.current ?? new Int32Array(1);
  port.on('message', (msg: { id: number; job: ParseJob }) => {
    Atomics.store(current, 0, msg.id);
    try {
      port.postMessage({ id: msg.id, result: extract(msg.job) });
    } catch (e) {
      port.postMessage({ id: msg.id, error: (e as Error).message || String(e) });
    }
    Atomics.store(current, 0, -1);
  });
  // Loaded: from now on the pool sends this worker pages.
  port.postMessage({ ready: true });
}
