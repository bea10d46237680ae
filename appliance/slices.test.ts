import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { MessageChannel } from 'node:worker_threads';
import { loadConfig } from '../config/index.ts';
import { analyze } from '../indexer/index.ts';
import type { StoredDocument } from '../model/index.ts';
import { Appliance } from './appliance.ts';

const WORDS = 'connection pool replication vacuum index planner checkpoint tablespace sequence trigger cursor transaction'.split(' ');
const page = (id: number): StoredDocument => {
  const text = `${Array.from({ length: 400 }, (_, i) => `${WORDS[(i * 7 + id) % WORDS.length]}${(i * 31 + id) % 97}`).join(' ')} replication`;
  return {
    id,
    url: `http://e.org/${id}`,
    title: `Page ${id}`,
    description: '',
    headings: [],
    text,
    contentType: 'text/html',
    bytes: text.length,
    truncated: false,
    httpStatus: 200,
    fetchedAt: 1,
    hash: '',
  };
};

describe("the index feed in the main thread's slices", () => {
  it('answers a search that arrives while a burst of pages is being indexed before the burst is through', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-slices-'));
    const app = await Appliance.open(loadConfig({ overrides: { dataDir: dir } }), { lockFor: 'test' });
    const server = createServer((req, res) => {
      // (What the search saw: how many pages of the burst were indexed when it ran.)
      const q = new URL(req.url!, 'http://x').searchParams.get('q')!;
      void app.index.search(q).then((r) => res.end(JSON.stringify({ indexed: app.index.documentCount, total: r.total })));
    });
    const { port1, port2 } = new MessageChannel();
    try {
      const pages = Array.from({ length: 200 }, (_, i) => page(i + 1));
      // Stored first, as the crawler's commits do; their index adds are the burst.
      const seqs: number[] = [];
      for (const d of pages) seqs.push(await app.store.documents.put(d));
      const analyses = pages.map((d) => analyze(d));
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const client = createConnection((server.address() as { port: number }).port, '127.0.0.1');
      await once(client, 'connect');
      let answer = '';
      client.on('data', (d: Buffer) => (answer += d.toString()));
      const answered = once(client, 'end');
      // The pages become ready together, as parse results delivered in one go do; the search request is on its way meanwhile.
      const added: Promise<void>[] = [];
      port2.on('message', (i: number) => added.push(app.feed.put(pages[i]!, analyses[i], seqs[i]!)));
      for (let i = 0; i < pages.length; i++) port1.postMessage(i);
      client.write('GET /?q=replication HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      await answered;
      const { indexed } = JSON.parse(answer.slice(answer.indexOf('{'))) as { indexed: number };
      assert.ok(indexed < pages.length, `the search waited until all ${pages.length} pages were indexed`);
      while (added.length < pages.length) await new Promise((r) => setImmediate(r));
      await Promise.all(added);
      assert.equal(app.index.documentCount, pages.length, 'every page of the burst indexed in the end');
      assert.equal((await app.index.search('replication', { exact: true })).total, pages.length);
      assert.equal(app.feed.through, seqs.at(-1), 'and the feed holds every change: a flush may claim them');
    } finally {
      port2.close();
      server.closeAllConnections();
      server.close();
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
