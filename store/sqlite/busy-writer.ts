/**
 * A test helper (store/sqlite/sqlite.test.ts): another process writing to a crawl database the
 * whole time, as a live crawl does — short transactions, back to back — until it is killed.
 * Prints "writing" once it holds the database open.
 */
import { openSqliteStore } from './store.ts';

const store = openSqliteStore(process.argv[2]!);
let n = 0;
process.stdout.write('writing\n');
for (;;) {
  await store.enqueue({ urls: Array.from({ length: 20 }, (_, i) => ({ url: `http://busy.example/${n}/${i}`, depth: 1 })) }, Date.now());
  await store.sync();
  n++;
}
