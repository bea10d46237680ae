// The PostgreSQL store against the store contract (store/contract/), on a throwaway PostgreSQL 15
// (testweb/postgres.ts): each test gets a database of its own.
import { after } from 'node:test';
import { startPostgres } from '../../testweb/postgres.ts';
import { describeStoreContract } from '../contract/index.ts';
import { openPostgresStore } from './store.ts';

const server = await startPostgres();
after(() => server.stop());

const urls = new WeakMap<object, string>();

describeStoreContract('PostgreSQL', {
  async fresh() {
    const url = await server.createDatabase();
    const store = await openPostgresStore(url);
    urls.set(store, url);
    return store;
  },
  async reopen(store) {
    const url = urls.get(store)!;
    const again = await openPostgresStore(url);
    urls.set(again, url);
    return again;
  },
});
