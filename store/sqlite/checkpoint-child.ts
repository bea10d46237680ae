/**
 * A test helper (store/sqlite/checkpointer.test.ts): a process that opens a crawl database with
 * the checkpointer, writes, closes the store and prints "closed" — and must then exit by itself.
 * (Were close() never to resolve, Node would end it with exit code 13, an unsettled top-level await.)
 */
import { openSqliteStore } from './store.ts';

const store = openSqliteStore(process.argv[2]!, { checkpoints: { checkMs: 10 } });
process.stdout.write(`checkpointer ${(await store.checkpointer!.ready) ? 'running' : 'failed'}\n`);
for (let n = 0; n < 20; n++) {
  await store.enqueue({ urls: Array.from({ length: 200 }, (_, i) => ({ url: `http://child.example/${n}/${i}/${'x'.repeat(200)}`, depth: 1 })) }, Date.now());
  await store.sync();
}
await store.close();
process.stdout.write(`closed; worker ${store.checkpointer!.live ? 'live' : 'ended'}\n`);
