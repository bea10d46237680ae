/** A parse worker: receives ParseJobs, answers with what `extract` found (or the error). */
import { parentPort } from 'node:worker_threads';
import { extract, type ParseJob } from './extract.ts';

parentPort!.on('message', (msg: { id: number; job: ParseJob }) => {
  try {
    parentPort!.postMessage({ id: msg.id, result: extract(msg.job) });
  } catch (e) {
    parentPort!.postMessage({ id: msg.id, error: (e as Error).message || String(e) });
  }
});
