// Integration: `trawl crawl` over a site of documents, then `trawl export`, `trawl search --json`
// and `trawl classify` on a document, as a user runs them (child processes).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { serveHandler, type HandlerServer } from '../testweb/index.ts';
import { DOCUMENT_FIXTURES } from '../testweb/documents.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;
const run = async (args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...args], { maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, stdout: x.stdout, stderr: x.stderr };
  }
};

describe('trawl over documents', () => {
  const pdf = DOCUMENT_FIXTURES.pdf!;
  const pptx = DOCUMENT_FIXTURES.pptx!;
  let web: HandlerServer;
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-cli-docs-'));
  let pdfBytes: Buffer;

  before(async () => {
    pdfBytes = await pdf.bytes();
    const pptxBytes = await pptx.bytes();
    web = await serveHandler((req, res) => {
      if (req.url === '/')
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<title>Docs</title><a href="${pdf.path}">pdf</a> <a href="${pptx.path}">slides</a>`);
      if (req.url === pdf.path) return void res.writeHead(200, { 'content-type': pdf.contentType }).end(pdfBytes);
      if (req.url === pptx.path) return void res.writeHead(200, { 'content-type': pptx.contentType }).end(pptxBytes);
      res.writeHead(404).end();
    });
    const config = join(dataDir, 'trawl.yaml');
    writeFileSync(config, 'perHost:\n  delayMs: 0\n');
    const crawled = await run(['crawl', `${web.url}/`, '--data', dataDir, '--config', config]);
    assert.equal(crawled.code, 0, crawled.stderr);
  });
  after(async () => {
    await web?.close();
  });

  it('exports a document with its type, pages, author, dates and where each page begins', async () => {
    const r = await run(['export', '--data', dataDir]);
    assert.equal(r.code, 0, r.stderr);
    const docs = r.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const q = docs.find((d) => d.url === `${web.url}${pdf.path}`)!;
    assert.equal(q.type, 'pdf');
    assert.equal(q.pages, 6);
    assert.equal(q.author, 'Ada Quartzmann');
    assert.equal(q.created, '2021-03-04T05:06:07.000Z');
    assert.equal(q.modified, '2022-08-09T10:11:12.000Z');
    const offsets = q.pageOffsets as number[];
    assert.equal(offsets.length, 6);
    assert.match((q.text as string).slice(offsets[2], offsets[3]), /quartz harmonic resonator/, 'page 3 begins and ends where its offsets say');
    const slides = docs.find((d) => d.url === `${web.url}${pptx.path}`)!;
    assert.equal(slides.type, 'pptx');
    const html = docs.find((d) => d.url === `${web.url}/`)!;
    assert.equal(html.type, undefined, 'an HTML page has no document fields');
  });

  it("answers a search with each hit's type, pages and page", async () => {
    const r = await run(['search', '--data', dataDir, '--json', '"quartz harmonic resonator"']);
    assert.equal(r.code, 0, r.stderr);
    const hits = (JSON.parse(r.stdout) as { hits: { url: string; type?: string; pages?: number; page?: number }[] }).hits;
    assert.deepEqual(
      hits.map((h) => [h.url, h.type, h.pages, h.page]),
      [[`${web.url}${pdf.path}`, 'pdf', 6, 3]],
    );
  });

  it('classifies a saved PDF against a topic, as the crawl would judge it', async () => {
    const file = join(dataDir, 'saved.pdf');
    writeFileSync(file, pdfBytes);
    const topic = join(dataDir, 'topic.txt');
    writeFileSync(topic, '20: quartz=crystals\n10: resonators?=crystals\n');
    const r = await run(['classify', file, '--topic', topic]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /title: Resonance in Quartz Crystals/);
    assert.match(r.stdout, /^RELEVANT/m);
  });
});
