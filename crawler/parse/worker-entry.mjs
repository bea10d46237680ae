// Entry of a parse worker thread. Trawl runs its TypeScript through tsx; Node 20 does not apply a
// loader given in a worker's execArgv to the worker's own entry module, so register it here.
import { register } from 'tsx/esm/api';

register();
await import('./worker.ts');
