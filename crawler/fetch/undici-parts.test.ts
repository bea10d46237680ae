import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { undici, undiciLoadedFrom } from './undici-parts.ts';

describe("undici's parts, loaded from its own files", () => {
  let origin = '';
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'x-method': req.method ?? '' });
    res.end(`path ${req.url}`);
  });
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('come from the files, not the index (an undici release that moved them would start slower)', () => {
    undici();
    assert.equal(undiciLoadedFrom(), 'files');
  });

  it('are the very classes undici exports', async () => {
    const index = await import('undici');
    const parts = undici();
    assert.equal(parts.Agent, index.Agent);
    assert.equal(parts.Pool, index.Pool);
    assert.equal(parts.ProxyAgent, index.ProxyAgent);
    assert.equal(parts.EnvHttpProxyAgent, index.EnvHttpProxyAgent);
  });

  it('request: the path and query from the URL, the method given, through the dispatcher given', async () => {
    const { Agent, request } = undici();
    const dispatcher = new Agent();
    try {
      const res = await request(`${origin}/a/b?c=1`, { dispatcher, method: 'HEAD' });
      assert.equal(res.statusCode, 200);
      assert.equal(res.headers['x-method'], 'HEAD');
      await res.body.dump();
      const get = await request(`${origin}/a/b?c=1`, { dispatcher });
      assert.equal(get.headers['x-method'], 'GET');
      assert.equal(await get.body.text(), 'path /a/b?c=1');
    } finally {
      await dispatcher.close();
    }
  });
});
