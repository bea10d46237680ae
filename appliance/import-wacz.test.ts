// Integration: a WACZ imported — its WARCs read in place (stored) or extracted (deflated), a revisit
// resolved through the package's CDXJ index to a response in another of its WARCs, a page without
// a title of its own titled from pages.jsonl — and a package that lies refused, named, the other
// files imported all the same.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { IMPORT_SETTINGS } from '../cli/shared.ts';
import { loadConfig } from '../config/index.ts';
import { cdxj, sha256, warc, writeWacz } from '../crawler/archive/wacz-fixture.ts';
import { Appliance } from './appliance.ts';
import { importArchives } from './import.ts';

const tmp = (name: string) => mkdtempSync(join(tmpdir(), `trawl-wacz-import-${name}-`));

const ALPHA = '<html><head><title>Alpha page</title></head><body><p>alphaword and some text of the alpha page</p></body></html>';
const BETA = '<html><body><p>betaword: a page with no title of its own</p></body></html>';

/** A revisit of `digest` at `url`, alone in a .warc.gz: its original is in another WARC of the package. */
function revisitOnly(url: string, digest: string): Buffer {
  const http = 'HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\r\n';
  const head = [
    'WARC/1.1',
    'WARC-Type: revisit',
    'WARC-Record-ID: <urn:uuid:10000000-0000-4000-8000-000000000001>',
    'WARC-Date: 2024-02-03T04:05:06Z',
    `WARC-Target-URI: ${url}`,
    'Content-Type: application/http; msgtype=response',
    `WARC-Payload-Digest: ${digest}`,
    'WARC-Profile: http://netpreserve.org/warc/1.1/revisit/identical-payload-digest',
    `Content-Length: ${http.length}`,
  ].join('\r\n');
  return gzipSync(`${head}\r\n\r\n${http}\r\n\r\n`);
}

async function importInto(files: string[]) {
  const app = await Appliance.open(loadConfig({ overrides: { dataDir: tmp('data'), parseWorkers: 0, ...IMPORT_SETTINGS } }), { lockFor: 'test' });
  const { crawler } = await app.createCrawler([], 'off');
  return { app, summary: await importArchives(crawler, files) };
}

describe('importing a WACZ', () => {
  it('reads its WARCs, resolves a revisit through its index, and titles a page from pages.jsonl', async () => {
    const dir = tmp('good');
    const main = warc([
      { url: 'http://wacz.test/alpha', body: ALPHA },
      { url: 'http://wacz.test/beta', body: BETA },
    ]);
    const digest = `sha256:${sha256(ALPHA)}`;
    const pages = [
      '{"format":"json-pages-1.0","id":"pages","title":"All Pages"}',
      JSON.stringify({ id: '1', url: 'http://wacz.test/beta', ts: '2024-01-02T03:04:05Z', title: 'Beta, as pages.jsonl tells' }),
      JSON.stringify({ id: '2', url: 'http://wacz.test/alpha', ts: '2024-01-02T03:04:05Z', title: 'not the title: the page has its own' }),
    ].join('\n');
    const file = join(dir, 'site.wacz');
    // (The revisit's WARC comes first in the zip: when it is read, its original has not been.)
    await writeWacz(file, [
      { name: 'archive/revisits.warc.gz', data: revisitOnly('http://wacz.test/alpha-copy', digest) },
      { name: 'archive/main.warc.gz', data: main.bytes, compress: true },
      { name: 'indexes/index.cdx', data: cdxj(main.captures, 'main.warc.gz') },
      { name: 'pages/pages.jsonl', data: `${pages}\n` },
    ]);
    const { app, summary } = await importInto([file]);
    try {
      const f = summary.perFile[0]!;
      assert.equal(f.format, 'WACZ 1.1.1 of 2 WARCs (WARC 1.1, gzipped)');
      assert.deepEqual([...f.skipped], [], 'every capture used: the revisit resolved');
      assert.deepEqual(f.damage, []);
      assert.equal(f.captures, 4, 'alpha, beta, the revisit in main.warc.gz, and alpha-copy');
      assert.deepEqual(f.records, { revisit: 2, response: 2 });
      assert.equal(summary.complete, true);
      const beta = (await app.index.search('betaword')).hits[0];
      assert.equal(beta?.url, 'http://wacz.test/beta');
      assert.equal(beta?.title, 'Beta, as pages.jsonl tells');
      assert.equal((await app.index.search('alphaword')).hits[0]?.title, 'Alpha page');
      const copy = await app.store.urls.record('http://wacz.test/alpha-copy');
      assert.ok(copy, 'the revisit at another URL was handled as a capture');
      assert.equal(copy.state !== 'queued', true, JSON.stringify(copy));
    } finally {
      await app.close();
    }
  });

  it('refuses a package whose datapackage.json lies, names it, and imports the other files', async () => {
    const dir = tmp('lying');
    const { bytes } = warc([{ url: 'http://wacz.test/gamma', body: '<title>Gamma</title><p>gammaword</p>' }]);
    const lying = join(dir, 'lying.wacz');
    await writeWacz(lying, [{ name: 'archive/data.warc.gz', data: bytes }], (dp) => {
      dp.resources[0]!.bytes += 1000;
    });
    const honest = join(dir, 'honest.wacz');
    await writeWacz(honest, [{ name: 'archive/data.warc.gz', data: bytes }]);
    const { app, summary } = await importInto([lying, honest]);
    try {
      const [bad, good] = summary.perFile;
      assert.match(bad?.refused ?? '', /lying\.wacz.*data\.warc\.gz.*\d/, bad?.refused);
      assert.equal(bad?.captures, 0);
      assert.equal(good?.refused, undefined);
      assert.equal((await app.index.search('gammaword')).total, 1);
      assert.equal(summary.complete, false);
    } finally {
      await app.close();
    }
  });
});
