/**
 * A test helper (appliance.test.ts): a writer that dies between two flushes. It opens the data
 * directory given, stores a page and flushes, then stores another and removes the first without
 * flushing, says "ready" and waits to be killed (kill -9: no close, no last flush).
 */
import { loadConfig } from '../config/index.ts';
import type { StoredDocument } from '../model/index.ts';
import { Appliance } from './appliance.ts';

const doc = (id: number, word: string): StoredDocument => ({
  id,
  url: `http://e.org/${id}`,
  title: `Doc ${id}`,
  description: '',
  headings: [],
  text: `${word} text`,
  contentType: 'text/html',
  bytes: 1,
  truncated: false,
  httpStatus: 200,
  fetchedAt: 1,
  hash: '',
});

const app = await Appliance.open(loadConfig({ overrides: { dataDir: process.argv[2]! } }), { lockFor: 'test' });
const put = async (d: StoredDocument) => app.feed.put(d, undefined, await app.store.documents.put(d));
await put(doc(1, 'flushedword'));
await app.flush();
await put(doc(2, 'unflushedword'));
await app.feed.remove(1, (await app.store.documents.remove(1))!);
await app.store.sync();
process.stdout.write('ready\n');
setInterval(() => undefined, 1000);
