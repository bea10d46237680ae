/**
 * What a backend gives the contract suite: a way to open a fresh, empty store, and to open the same
 * store again (as a process restarting after a crash or a stop would).
 */
import type { LoggedSearch, QueuedUrl, StoredDocument } from '../../model/index.ts';
import type { Store } from '../store.ts';

export type StoreFactory = {
  /** A new, empty store (written to by the tests). */
  fresh(): Promise<Store>;
  /** The same store opened again by a new connection, after `store` was closed. */
  reopen(store: Store): Promise<Store>;
};

/** A fixed clock for the tests: every store call takes `now` explicitly. */
export const T0 = 1_000_000;

export const doc = (id: number, text: string, extra: Partial<StoredDocument> = {}): StoredDocument => ({
  id,
  url: `http://e.org/${id}`,
  title: 't',
  description: 'd',
  headings: ['h1', 'h2'],
  text,
  contentType: 'text/html',
  bytes: 3,
  truncated: false,
  httpStatus: 200,
  fetchedAt: 5,
  hash: `hash-${id}-${text}`,
  ...extra,
});

/** Queues `url` and takes it: the URL record is then in flight, as the crawler would have it. */
export async function taken(store: Store, url: string, now = T0): Promise<QueuedUrl> {
  await store.enqueue({ urls: [{ url, depth: 0 }] }, now);
  const q = await store.urls.take(new URL(url).host, { kinds: ['queued'], now });
  if (!q || q.url !== url) throw new Error(`expected to take ${url}, got ${q?.url}`);
  return q;
}

/** Runs a test on a fresh store and closes it afterwards. */
export function withStore(factory: StoreFactory, test: (store: Store) => Promise<void>): () => Promise<void> {
  return async () => {
    const store = await factory.fresh();
    try {
      await test(store);
    } finally {
      await store.close();
    }
  };
}

/** A logged search of the search log's contract suites: `kill query`, shown two pages. */
export const loggedSearch = (id: string, at: number, extra: Partial<LoggedSearch> = {}): LoggedSearch => ({
  id,
  at,
  source: 'page',
  query: 'kill query',
  understood: 'kill query',
  filters: {},
  page: 1,
  total: 2,
  shown: ['http://e.org/a', 'http://e.org/b'],
  tookMs: 3.5,
  prefixes: [],
  ...extra,
});
