// Entry of a parse worker when its code could not be bundled (bundle.ts): loads the TypeScript
// through tsx. Node 20 does not apply a loader given in a worker's execArgv to the worker's own
// entry module, so register it here. Slower to start (~0.3 s) than the bundle (~0.05 s).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
const { serve } = await import('./worker.ts');
const { extract, configure } = await import(workerData.module);
serve(extract, configure);
