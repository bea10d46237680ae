import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { serveHandler, type HandlerServer } from '../../testweb/index.ts';
import { Fetcher, parseRetryAfter, type FetchResponse } from './fetcher.ts';

describe('Fetcher', () => {
  let web: HandlerServer;
  const fetcher = new Fetcher({ userAgent: 'TestBot/1.0', timeoutMs: 300, maxBodyBytes: 10_000 });
  const get = async (path: string) => fetcher.fetch(web.url + path);
  const response = async (path: string) => {
    const r = await get(path);
    assert.equal(r.kind, 'response', JSON.stringify(r));
    return r as FetchResponse;
  };

  before(async () => {
    web = await serveHandler((req, res) => {
      switch (req.url) {
        case '/ua':
          return res.end(String(req.headers['user-agent']));
        case '/gzip':
          res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' });
          return res.end(gzipSync('<p>unzipped</p>'));
        case '/bomb':
          // 50 MB of zeros, a few KB on the wire.
          res.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'text/html' });
          return res.end(gzipSync(Buffer.alloc(50_000_000)));
        case '/big':
          res.writeHead(200, { 'content-type': 'text/html' });
          return res.end('x'.repeat(50_000));
        case '/doc.pdf':
          res.writeHead(200, { 'content-type': 'application/pdf' });
          return res.end(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(50_000, 0x20)]));
        case '/disguised':
          // A PDF as application/octet-stream, without Content-Length (chunked): told by its bytes.
          res.writeHead(200, { 'content-type': 'application/octet-stream' });
          res.write(Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(20_000, 0x20)]));
          return res.end(Buffer.alloc(30_000, 0x20));
        case '/huge.pdf':
          res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': String(5_000_000) });
          return res.end(Buffer.alloc(5_000_000));
        case '/redirect':
          res.writeHead(302, { location: '/elsewhere' });
          return res.end('moved');
        case '/slow-headers':
          // Never answered: the connection stays open until the server closes it, after the tests.
          return;
        case '/retry':
          res.writeHead(503, { 'retry-after': '7' });
          return res.end();
        default:
          res.writeHead(404);
          return res.end();
      }
    });
  });
  after(async () => {
    await fetcher.close();
    await web.close();
  });

  it('sends the configured User-Agent', async () => {
    assert.equal((await response('/ua')).body.toString(), 'TestBot/1.0');
  });

  it('decompresses gzip', async () => {
    const r = await response('/gzip');
    assert.equal(r.body.toString(), '<p>unzipped</p>');
    assert.ok(r.wireBytes > 0 && r.wireBytes < r.body.length + 40);
  });

  it('cuts a body at maxBodyBytes and says so', async () => {
    const r = await response('/big');
    assert.equal(r.body.length, 10_000);
    assert.equal(r.truncated, true);
  });

  it('stops a gzip bomb at maxBodyBytes of decompressed output', async () => {
    const r = await response('/bomb');
    assert.equal(r.body.length, 10_000);
    assert.equal(r.truncated, true);
  });

  it('lets a document be larger than a page, up to its own cap, and does not read one whose Content-Length is over it', async () => {
    const isDocument = (type: string, head: Uint8Array, url: string) =>
      type.includes('pdf') || url.endsWith('.pdf') || Buffer.from(head.subarray(0, 5)).toString() === '%PDF-';
    const documents = new Fetcher({ userAgent: 'TestBot/1.0', timeoutMs: 2000, maxBodyBytes: 10_000, documents: { maxBytes: 100_000, is: isDocument } });
    try {
      const pdf = (await documents.fetch(`${web.url}/doc.pdf`)) as FetchResponse;
      assert.deepEqual([pdf.body.length, pdf.truncated], [50_009, false]);
      const disguised = (await documents.fetch(`${web.url}/disguised`)) as FetchResponse;
      assert.deepEqual([disguised.body.length, disguised.truncated], [50_009, false], 'told by its first bytes');
      const page = (await documents.fetch(`${web.url}/big`)) as FetchResponse;
      assert.deepEqual([page.body.length, page.truncated], [10_000, true], 'a page keeps the page cap');
      const huge = (await documents.fetch(`${web.url}/huge.pdf`)) as FetchResponse;
      assert.deepEqual([huge.status, huge.body.length, huge.truncated], [200, 0, true]);
      assert.ok(huge.wireBytes < 100_000, `${huge.wireBytes} bytes read of 5,000,000`);
    } finally {
      await documents.close();
    }
  });

  it('does not follow redirects itself: it reports the Location', async () => {
    const r = await response('/redirect');
    assert.equal(r.status, 302);
    assert.equal(r.location, '/elsewhere');
    assert.equal(r.body.length, 0);
  });

  it('parses Retry-After', async () => {
    const r = await response('/retry');
    assert.equal(r.status, 503);
    assert.equal(r.retryAfterMs, 7000);
    assert.equal(parseRetryAfter('Wed, 21 Oct 2015 07:28:00 GMT', Date.parse('Wed, 21 Oct 2015 07:27:00 GMT')), 60_000);
    assert.equal(parseRetryAfter('soon'), undefined);
    assert.equal(parseRetryAfter('999999'), 3_600_000, 'capped at an hour');
  });

  it('times out a server that never answers, with a stable code', async () => {
    const r = await get('/slow-headers');
    assert.equal(r.kind, 'error');
    assert.equal(r.kind === 'error' && r.code, 'timeout');
  });

  it('reports a refused connection', async () => {
    const closed = await serveHandler((_q, res) => res.end());
    const url = closed.url;
    await closed.close();
    const r = await fetcher.fetch(`${url}/`);
    assert.deepEqual(r.kind === 'error' && r.code, 'refused');
  });
});
