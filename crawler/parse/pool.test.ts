import assert from 'node:assert/strict';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { pathToFileURL } from 'node:url';
import { after, describe, it } from 'node:test';
import { extract, type ParseJob } from './extract.ts';
import { ParsePool } from './pool.ts';

const html = (i: number) => Buffer.from(`<html><head><title>Page ${i}</title></head><body><main><h1>H ${i}</h1><p>word${i} text</p><a href="/next/${i}">next</a></main></body></html>`);
const job = (i: number, body: Buffer = html(i), contentType = 'text/html; charset=utf-8'): ParseJob => ({ body, contentType, url: `http://e.org/${i}`, robotsToken: 'trawlbot' });

describe('extract', () => {
  it('dispatches by content type', () => {
    assert.equal(extract(job(1)).kind, 'page');
    const text = extract(job(2, Buffer.from('hello'), 'text/plain'));
    assert.ok(text.kind === 'page' && text.page.text === 'hello');
    const map = extract({ ...job(3, Buffer.from('<urlset><url><loc>http://e.org/a</loc></url></urlset>'), 'application/xml') });
    assert.deepEqual(map, { kind: 'sitemap', pages: [{ url: 'http://e.org/a' }], sitemaps: [] });
    const gz = extract({ ...job(3, gzipSync('<urlset><url><loc>http://e.org/z</loc></url></urlset>'), 'application/gzip'), url: 'http://e.org/s.xml.gz' });
    assert.deepEqual(gz, { kind: 'sitemap', pages: [{ url: 'http://e.org/z' }], sitemaps: [] });
    const bomb = extract({ ...job(3, gzipSync(Buffer.alloc(60 * 1024 * 1024)), 'application/gzip'), url: 'http://e.org/s.xml.gz' });
    assert.equal(bomb.kind, 'unsupported', 'a gzipped sitemap bomb is stopped at the protocol\'s 50 MB');
    assert.deepEqual(extract(job(4, Buffer.from([1, 2]), 'image/png')), { kind: 'unsupported', type: 'image/png' });
    assert.deepEqual(extract(job(5, Buffer.from('<rss/>'), 'application/rss+xml')), { kind: 'unsupported', type: 'application/rss+xml' });
  });

  it('reports the encoding it decoded with', () => {
    const r = extract(job(6, Buffer.from([0x63, 0x61, 0x66, 0xe9]), 'text/plain; charset=windows-1252'));
    assert.ok(r.kind === 'page');
    assert.equal(r.encoding, 'windows-1252');
    assert.equal(r.page.text, 'café');
  });
});

describe('ParsePool', () => {
  const pools: ParsePool[] = [];
  after(async () => {
    await Promise.all(pools.map((p) => p.close()));
  });

  it('parses in worker threads exactly as inline', async () => {
    const pool = new ParsePool(2);
    pools.push(pool);
    assert.equal(pool.workers, 2);
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => pool.parse(job(i))));
    results.forEach((r, i) => assert.deepEqual(r, extract(job(i)), `page ${i}`));
  });

  it('does not disturb the caller\'s buffer (it is copied before transfer)', async () => {
    const pool = new ParsePool(1);
    pools.push(pool);
    const body = html(7);
    await pool.parse(job(7, body));
    assert.equal(body.length, html(7).length);
    assert.match(body.toString(), /word7/);
  });

  it('parses inline with no workers', async () => {
    const pool = new ParsePool(0);
    pools.push(pool);
    assert.deepEqual(await pool.parse(job(1)), extract(job(1)));
  });

  it('falls back to parsing inline when workers keep failing, and says so', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-pool-'));
    const broken = join(dir, 'broken.mjs');
    writeFileSync(broken, 'throw new Error("broken worker");\n');
    const logs: string[] = [];
    const pool = new ParsePool(1, { log: (m) => logs.push(m), entry: pathToFileURL(broken) });
    pools.push(pool);
    const results = await Promise.all(Array.from({ length: 5 }, (_, i) => pool.parse(job(i))));
    results.forEach((r, i) => assert.deepEqual(r, extract(job(i))));
    // Each failure starts a new worker, until the third one: then the pool stays inline.
    await new Promise<void>((resolve) => {
      const check = () => (pool.workers === 0 ? resolve() : setTimeout(check, 20));
      check();
    });
    assert.ok(logs.some((l) => /parsing on the main thread from now on/.test(l)), logs.join('\n'));
    assert.deepEqual(await pool.parse(job(9)), extract(job(9)));
  });
});
