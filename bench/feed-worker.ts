/**
 * bench/index's crawler stand-in: makes documents from..to − 1 and analyzes them in a worker thread,
 * as the appliance's parse workers do, and posts each with its analysis to `port`. It stays AHEAD
 * documents ahead of what the main thread has taken, so that its work (and the main thread's
 * reading of its messages) is spread over the rounds it feeds, as a crawl's is.
 */
import { workerData, type MessagePort } from 'node:worker_threads';
import { analyze } from '../indexer/ingest/analyze.ts';
import { syntheticCorpus } from './synthetic-corpus.ts';

export type FeedCounters = { produced: Int32Array; taken: Int32Array };
const AHEAD = 4;

const { root, from, to, port, produced, taken } = workerData as { root: string; from: number; to: number; port: MessagePort } & FeedCounters;
const corpus = syntheticCorpus(root);
for (let id = from; id < to; id++) {
  for (let t = Atomics.load(taken, 0); id - from - t >= AHEAD; t = Atomics.load(taken, 0)) Atomics.wait(taken, 0, t);
  const doc = corpus.makeDoc(id);
  port.postMessage({ doc, analysis: analyze(doc) });
  Atomics.add(produced, 0, 1);
  Atomics.notify(produced, 0);
}
port.close();
