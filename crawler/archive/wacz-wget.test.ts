// openWacz on a WACZ that Trawl did not write: wget crawls three pages off a loopback server into a
// WARC, js-wacz (Harvard LIL's WACZ writer) packages it with the pages it detects, and the package
// must open as js-wacz wrote it — its WARC in place, its three titles, its index.
//
// What js-wacz writes that a reader must take as it is: its CDXJ `digest` is the bare base32 value
// (warcio strips the `sha1:` of WARC-Payload-Digest), and offset, length and status are strings; it
// indexes wget's metadata:// records too; datapackage-digest.json is not listed in datapackage.json,
// as the spec has it. And off the spec: the WARC's hash in datapackage.json is not its sha256 but
// that of each 64 KiB read fed twice (harvard-lil/js-wacz#127) — taken, and the one problem told.
// The pages are some 130 KB each, so that the WARC is read in several blocks.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { gunzipSync } from 'node:zlib';
import { openWacz } from './wacz.ts';

const run = promisify(execFile);
const jsWacz = fileURLToPath(new URL('../../node_modules/@harvard-lil/js-wacz/bin/cli.js', import.meta.url));
const site: Record<string, { title: string; links: string[] }> = {
  '/': { title: 'Trawl home', links: ['/one.html', '/two.html'] },
  '/one.html': { title: 'Page one', links: ['/two.html'] },
  '/two.html': { title: 'Page two', links: ['/'] },
};
const filler = () => `<p>${randomBytes(100_000).toString('base64')}</p>`;

describe('openWacz on a WACZ by wget and js-wacz', () => {
  let dir: string;
  let server: Server;
  let base: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-wacz-wget-'));
    server = createServer((req, res) => {
      const page = site[req.url ?? ''];
      if (!page) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html><head><title>${page.title}</title></head><body><h1>${page.title}</h1>${filler()}` +
          `${page.links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</body></html>`,
      );
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('opens it: the WARC, the three titles, the index, captures by the WARC’s own digests', async () => {
    const warcPath = join(dir, 'crawl.warc.gz');
    await run('wget', [
      `--warc-file=${join(dir, 'crawl')}`,
      '--recursive',
      '--level=1',
      '--no-verbose',
      '-e',
      'robots=off',
      '-P',
      join(dir, 'site'),
      `${base}/`,
    ]);
    const out = join(dir, 'crawl.wacz');
    await run(process.execPath, [jsWacz, 'create', '-f', warcPath, '-o', out, '--url', `${base}/`, '--log-level', 'silent']);

    const pkg = await openWacz(out);
    try {
      assert.deepEqual(pkg.problems, [
        { reason: 'a hash as js-wacz writes it (each 64 KiB read hashed twice, harvard-lil/js-wacz#127), taken', count: 1, example: 'archive/crawl.warc.gz' },
      ]);
      assert.equal(pkg.version, '1.1.1');
      assert.deepEqual(
        pkg.warcs.map((w) => [w.name, w.compressed]),
        [['archive/crawl.warc.gz', false]],
      );
      const warc = readFileSync(warcPath);
      assert.ok(warc.length > 3 * 64 * 1024);
      const at = await pkg.warcs[0]!.locate();
      assert.deepEqual(readFileSync(at.path).subarray(at.start, at.end), warc);
      assert.deepEqual(new Map(pkg.titles), new Map(Object.entries(site).map(([path, { title }]) => [`${base}${path}`, title])));
      // Three pages and wget's three metadata records.
      assert.equal(pkg.indexLines, 6);
      // The digest as wget wrote it in the WARC (sha1:BASE32) finds the record it heads (whose URI wget writes in <>).
      const text = gunzipSync(warc).toString('latin1');
      for (const path of Object.keys(site)) {
        const url = `${base}${path}`;
        const head = text.split('WARC/1.0\r\n').find((r) => r.includes('WARC-Type: response') && r.includes(`WARC-Target-URI: <${url}>\r\n`))!;
        const digest = /WARC-Payload-Digest: (\S+)/.exec(head)![1]!;
        const c = pkg.byDigest(digest)!;
        assert.equal(c.url, url);
        assert.match(gunzipSync(warc.subarray(c.offset, c.offset + c.length)).toString('latin1'), new RegExp(`WARC-Payload-Digest: ${digest}\r\n`));
      }
    } finally {
      await pkg.close();
    }
  });
});
