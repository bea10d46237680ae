/**
 * The message loop of a parse worker: answers each ParseJob with what `extract` returns, or with
 * the error, and says `ready` once loaded. The worker's code is a bundle of this loop and the
 * extractor module (bundle.ts); without a bundler, worker-entry.mjs loads both through tsx.
 */
import { parentPort } from 'node:worker_threads';
import type { Extracted, ParseJob } from './extract.ts';

export function serve(extract: (job: ParseJob) => Extracted): void {
  const port = parentPort;
  if (!port) throw new Error('serve() runs in a worker thread');
  port.on('message', (msg: { id: number; job: ParseJob }) => {
    try {
      port.postMessage({ id: msg.id, result: extract(msg.job) });
    } catch (e) {
      port.postMessage({ id: msg.id, error: (e as Error).message || String(e) });
    }
  });
  // Loaded: from now on the pool sends this worker pages.
  port.postMessage({ ready: true });
}
