// The SQLite store against the store contract (store/contract/).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeStoreContract } from '../contract/index.ts';
import type { Store } from '../store.ts';
import { openSqliteStore } from './store.ts';

const dirs = new WeakMap<Store, string>();

describeStoreContract('SQLite', {
  async fresh() {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-contract-'));
    const store = openSqliteStore(dir);
    dirs.set(store, dir);
    return store;
  },
  async reopen(store) {
    const dir = dirs.get(store)!;
    const again = openSqliteStore(dir);
    dirs.set(again, dir);
    return again;
  },
});
