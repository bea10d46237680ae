// Integration: a crawl of a site that mixes HTML pages with documents of every format Trawl reads
// and with hostile ones — encrypted, truncated, empty, too large, a zip bomb, one that makes PDF.js
// spin, thousands of pages — through the appliance, as in production (document workers with their
// limits). What is searchable, and what each failure's record says.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import type { Crawler } from '../crawler/index.ts';
import { serveHandler, type HandlerServer } from '../testweb/index.ts';
import { DOCUMENT_FIXTURES, encryptedPdf, manyPagesPdf, spinningPdf, truncatedPdf, xmpPdf, zipBombDocx } from '../testweb/documents.ts';
import { Appliance } from './appliance.ts';

type Served = { body: Buffer; type: string; etag?: string; length?: number };

/** The site: an index linking every file, the files, and a plain page or two. */
async function site(): Promise<{
  files: Map<string, Served>;
  hits: { path: string; status: number; bytes: number }[];
  handler: (req: IncomingMessage, res: ServerResponse) => void;
}> {
  const files = new Map<string, Served>();
  for (const f of Object.values(DOCUMENT_FIXTURES))
    files.set(f.path, { body: await f.bytes(), type: f.contentType, ...(f.path === '/docs/quartz.pdf' ? { etag: '"quartz-1"' } : {}) });
  // (Other PDFs than quartz.pdf: the same content under two URLs is stored once.)
  files.set('/docs/octet', { body: await xmpPdf(), type: 'application/octet-stream' });
  files.set('/docs/served-as-html', { body: await manyPagesPdf(2), type: 'text/html; charset=utf-8' });
  files.set('/docs/locked.pdf', { body: await encryptedPdf(), type: 'application/pdf' });
  files.set('/docs/cut.pdf', { body: await truncatedPdf(), type: 'application/pdf' });
  files.set('/docs/empty.pdf', { body: Buffer.alloc(0), type: 'application/pdf' });
  files.set('/docs/thick.pdf', { body: await manyPagesPdf(3000), type: 'application/pdf' });
  files.set('/docs/bomb.docx', { body: zipBombDocx(), type: DOCUMENT_FIXTURES.docx!.contentType });
  files.set('/docs/spin.pdf', { body: await spinningPdf(), type: 'application/pdf' });
  // Says it is 9 MB (over documents.maxBytes): not a byte of it should be read.
  files.set('/docs/huge.pdf', { body: Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.alloc(9_000_000, 0x20)]), type: 'application/pdf', length: 9_000_009 });
  files.set('/notes/resonator.html', { body: Buffer.from('<title>Resonator notes</title><p>Notes on resonators.</p>'), type: 'text/html' });
  files.set('/plain.html', { body: Buffer.from('<title>Plain page</title><p>An ordinary page about limestone caves.</p>'), type: 'text/html' });
  const links = [...files.keys()]
    .filter((p) => p !== '/notes/resonator.html')
    .map((p) => `<a href="${p}">${p}</a>`)
    .join(' ');
  files.set('/', { body: Buffer.from(`<title>Library</title><body>${links}</body>`), type: 'text/html' });
  const hits: { path: string; status: number; bytes: number }[] = [];
  const handler = (req: IncomingMessage, res: ServerResponse) => {
    const f = files.get(req.url ?? '');
    if (!f) {
      hits.push({ path: req.url ?? '', status: 404, bytes: 0 });
      res.writeHead(404).end();
      return;
    }
    if (f.etag && req.headers['if-none-match'] === f.etag) {
      hits.push({ path: req.url!, status: 304, bytes: 0 });
      res.writeHead(304, { etag: f.etag }).end();
      return;
    }
    hits.push({ path: req.url!, status: 200, bytes: f.body.length });
    res.writeHead(200, { 'content-type': f.type, 'content-length': String(f.length ?? f.body.length), ...(f.etag ? { etag: f.etag } : {}) });
    // (A body shorter than its Content-Length: the client stops reading before, or gives up.)
    res.end(f.length ? f.body.subarray(0, 64 * 1024) : f.body);
  };
  return { files, hits, handler };
}

describe('a crawl of documents, good and hostile', () => {
  let web: HandlerServer;
  let app: Appliance;
  let crawler: Crawler;
  let hits: { path: string; status: number; bytes: number }[];
  const url = (path: string) => `${web.url}${path}`;
  const record = async (path: string) => app.explain(url(path));

  before(async () => {
    const s = await site();
    hits = s.hits;
    web = await serveHandler(s.handler);
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-documents-'));
    const documents = { maxPages: 100, timeoutMs: 3000, maxBytes: 3 * 1024 * 1024, types: ['pdf', 'docx', 'pptx', 'xlsx', 'odt', 'odp', 'text', 'markdown'] };
    app = await Appliance.open(
      loadConfig({ overrides: { dataDir, seeds: [`${web.url}/`], perHost: { delayMs: 0, maxConnections: 4 }, concurrency: 4, parseWorkers: 0, documents } }),
      { lockFor: 'test' },
    );
    ({ crawler } = await app.createCrawler());
    await crawler.run();
    // (The anchor field of pages crawled before the links to them is refreshed after the crawl.)
    await app.refreshAnchors();
  });
  after(async () => {
    await app?.close();
    await web?.close();
  });

  const search = async (q: string) => (await app.index.search(q)).hits;

  it('makes every supported format searchable by its text, with its title and type', async () => {
    for (const [name, f] of Object.entries(DOCUMENT_FIXTURES)) {
      if (!f.knownText || name === 'ods') continue;
      for (const words of f.knownText) {
        const found = (await search(`"${words}"`)).filter((h) => h.url === url(f.path));
        assert.equal(found.length, 1, `${name}: "${words}"`);
        if (f.title) assert.equal(found[0]!.title, f.title, name);
        assert.equal(found[0]!.type, name === 'markdown' ? 'markdown' : name, name);
      }
    }
  });

  it("finds a PDF's phrase on its page, and counts its pages", async () => {
    const [hit] = (await search('"quartz harmonic resonator"')).filter((h) => h.url === url('/docs/quartz.pdf'));
    assert.deepEqual([hit?.type, hit?.pages, hit?.page], ['pdf', 6, 3]);
    const [basalt] = (await search('columnar joints')).filter((h) => h.url === url('/docs/quartz.pdf'));
    assert.equal(basalt?.page, 2);
    const doc = await app.store.documents.get((await app.store.urls.record(url('/docs/quartz.pdf')))!.id);
    assert.equal(doc?.document?.author, 'Ada Quartzmann');
    assert.equal(doc?.document?.created, '2021-03-04T05:06:07.000Z');
    assert.equal(doc?.document?.pageOffsets?.length, 6);
    assert.equal(doc?.lang, 'en-GB');
    assert.ok(doc?.headings.includes('Resonators'), 'outline titles are headings');
  });

  it('reads a PDF by its bytes, whatever the server called it', async () => {
    for (const [path, words] of [
      ['/docs/octet', '"xmp only"'],
      ['/docs/served-as-html', '"page 2"'],
    ] as const) {
      const r = await record(path);
      assert.ok(r.known && r.state === 'indexed', `${path}: ${JSON.stringify(r)}`);
      assert.ok(
        (await search(words)).some((h) => h.url === url(path) && h.type === 'pdf'),
        path,
      );
    }
    assert.equal((await search('"xmp only"'))[0]?.title, 'Title From XMP');
  });

  it('follows the links inside documents, with their anchor text', async () => {
    const notes = await record('/notes/resonator.html');
    assert.ok(notes.known && notes.state === 'indexed', 'a relative link of the PDF was followed');
    assert.ok(
      (await search('harmonic')).some((h) => h.url === url('/notes/resonator.html')),
      "found by the anchor text of the PDF's link to it",
    );
  });

  it('records why each hostile file was not indexed', async () => {
    const expect = async (path: string, state: string, reason: RegExp, error?: string) => {
      const r = await record(path);
      assert.ok(r.known, path);
      assert.equal(r.state, state, `${path}: ${JSON.stringify(r)}`);
      assert.match(r.reason ?? '', reason, path);
      if (error) assert.equal(r.error, error, path);
      assert.equal(r.indexed, false, path);
    };
    await expect('/docs/locked.pdf', 'excluded', /^encrypted: /);
    await expect('/docs/cut.pdf', 'dead', /^damaged: /, 'unparsable');
    await expect('/docs/empty.pdf', 'excluded', /^empty: /);
    await expect('/docs/bomb.docx', 'excluded', /^zip-bomb: /);
    await expect('/docs/spin.pdf', 'dead', /^timeout: extraction took longer than 3 s/, 'unparsable');
    await expect('/docs/huge.pdf', 'excluded', /^too-large: larger than documents\.maxBytes \(3 MB\)/);
    await expect(DOCUMENT_FIXTURES.ods!.path, 'excluded', /not in documents\.types/);
    assert.ok(
      hits.filter((h) => h.path === '/docs/huge.pdf').every((h) => h.bytes > 0),
      'it was asked for',
    );
  });

  it('extracts a long document up to documents.maxPages, and counts the rest', async () => {
    const doc = await app.store.documents.get((await app.store.urls.record(url('/docs/thick.pdf')))!.id);
    assert.deepEqual([doc?.document?.pages, doc?.document?.pageOffsets?.length, doc?.document?.pagesCut], [3000, 100, 2900]);
  });

  it('crawls the HTML pages as usual, and counts documents by type', async () => {
    assert.equal((await search('limestone caves'))[0]?.url, url('/plain.html'));
    const byType = new Map((await app.status()).index.byType?.map((t) => [t.type, t.count]));
    assert.equal(byType.get('pdf'), 4, 'quartz, octet, served-as-html, thick');
    assert.equal(byType.get('html'), 3);
    for (const t of ['docx', 'pptx', 'xlsx', 'odt', 'odp', 'markdown']) assert.equal(byType.get(t), 1, t);
  });

  it('narrows a search to a type, or a kind of document', async () => {
    assert.deepEqual(new Set((await search('type:slides')).map((h) => h.type)), new Set(['pptx', 'odp']));
    assert.deepEqual(new Set((await search('type:pdf')).map((h) => h.type)), new Set(['pdf']));
    assert.ok((await app.index.search('quartz')).facets.type.some((f) => f.value === 'pdf'));
  });

  it('asks for a held document conditionally on a recrawl: a 304 downloads nothing and changes nothing', async () => {
    const before = hits.length;
    const done = once(crawler, 'done');
    await app.recrawl({ url: url('/docs/quartz.pdf') });
    await done;
    assert.deepEqual(
      hits
        .slice(before)
        .filter((h) => h.path === '/docs/quartz.pdf')
        .map((h) => [h.status, h.bytes]),
      [[304, 0]],
    );
    const r = await record('/docs/quartz.pdf');
    assert.ok(r.known && r.state === 'not-modified' && r.indexed);
  });
});

describe('a focused crawl of documents', () => {
  it('judges a document by its text like a page: on topic indexed, off topic recorded', async () => {
    const s = await site();
    const web = await serveHandler(s.handler);
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-documents-focus-'));
    const topicFile = join(dataDir, 'topic.txt');
    writeFileSync(topicFile, '20: quartz=crystals\n10: resonators?=crystals\n');
    const app = await Appliance.open(
      loadConfig({
        overrides: {
          dataDir,
          seeds: [`${web.url}/`],
          perHost: { delayMs: 0, maxConnections: 4 },
          parseWorkers: 0,
          focus: { topicFile, cutoff: 20 },
          documents: { types: ['pdf', 'docx'], timeoutMs: 1500, maxPages: 50, maxBytes: 3 * 1024 * 1024 },
        },
      }),
      { lockFor: 'test' },
    );
    try {
      await app.loadFocus();
      await (await app.createCrawler()).crawler.run();
      const quartz = await app.explain(`${web.url}/docs/quartz.pdf`);
      assert.ok(quartz.known && quartz.state === 'indexed' && quartz.relevant === true, JSON.stringify(quartz));
      const tides = await app.explain(`${web.url}${DOCUMENT_FIXTURES.docx!.path}`);
      assert.ok(tides.known && tides.state === 'excluded' && /^off topic/.test(tides.reason ?? ''), JSON.stringify(tides));
    } finally {
      await app.close();
      await web.close();
    }
  });
});
