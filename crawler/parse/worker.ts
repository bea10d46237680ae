/**
 * The message loop of a parse worker: answers each ParseJob with what `extract` returns, or with
 * the error, and says `ready` once loaded. The worker's code is a bundle of this loop and the
 * extractor module (bundle.ts); without a bundler, worker-entry.mjs loads both through tsx.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { lowerThisThread } from '../../lib/thread-priority.ts';
import type { Extracted, ParseJob } from './extract.ts';

/**
 * `configure`, if the extractor module exports one, is called first with the pool's `config`
 * (settings the extraction depends on, such as the index's stemming). If it returns a promise,
 * the worker is ready once it settles: what it loads is no page's time (a pool's timeout counts).
 */
export function serve(extract: (job: ParseJob) => Extracted | Promise<Extracted>, configure?: (config: unknown) => void | Promise<void>): void {
  const port = parentPort;
  if (!port) throw new Error('serve() runs in a worker thread');
  // (A worker yields a contended core to the main thread, which answers searches and stores and
  // indexes every page: lib/thread-priority.ts.)
  lowerThisThread();
  const configured = configure?.((workerData as { config?: unknown } | undefined)?.config);
  // The id of the job being parsed, shared with the pool: if this thread dies or takes too long,
  // the pool knows which page it was working on (messages sent before death may arrive after it).
  const current = (workerData as { current?: Int32Array } | undefined)?.current ?? new Int32Array(1);
  // One job at a time, in order, even when extraction is asynchronous (a PDF): `current` must
  // name the job this thread is really working on.
  let queue: Promise<void> = Promise.resolve();
  const run = async (msg: { id: number; job: ParseJob }) => {
    Atomics.store(current, 0, msg.id);
    try {
      port.postMessage({ id: msg.id, result: await extract(msg.job) });
    } catch (e) {
      port.postMessage({ id: msg.id, error: (e as Error).message || String(e) });
    }
    Atomics.store(current, 0, -1);
  };
  port.on('message', (msg: { id: number; job: ParseJob }) => {
    queue = queue.then(() => run(msg));
  });
  // Loaded: from now on the pool sends this worker pages. (A configure that failed leaves the
  // extractor to do without what it was loading.)
  void Promise.resolve(configured)
    .catch(() => undefined)
    .then(() => port.postMessage({ ready: true }));
}
