/**
 * A parse worker: loads the module named in workerData (by default ./extract.ts; the orchestrator
 * may name one that also analyzes pages for the index), then answers each ParseJob with what that
 * module's `extract` returns, or with the error.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Extracted, ParseJob } from './extract.ts';

const module = (workerData as { module?: string } | undefined)?.module ?? new URL('./extract.ts', import.meta.url).href;
const { extract } = (await import(module)) as { extract: (job: ParseJob) => Extracted };

parentPort!.on('message', (msg: { id: number; job: ParseJob }) => {
  try {
    parentPort!.postMessage({ id: msg.id, result: extract(msg.job) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message || String(e) });
  }
});
