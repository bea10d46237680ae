import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseSettingsOf } from '../../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { encryptedPdf, multiPagePdf } from '../../testweb/documents.ts';
import { extract, type Extracted, type ParseJob } from './extract.ts';
import { ParsePool } from './pool.ts';
import { RoutedParser } from './route.ts';

/** What the config's defaults give every parse job (appliance/wiring.ts). */
const SETTINGS = parseSettingsOf(DEFAULT_CONFIG);

/**
 * The page pool's extractor in these tests: the crawler's extraction, then a mark of the thread
 * that finished the page and of whether it had a body to parse — as the orchestrator's extractor
 * adds its analysis there.
 */
function markingModule(): URL {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-route-'));
  const file = join(dir, 'marking.ts');
  const extractTs = fileURLToPath(new URL('./extract.ts', import.meta.url));
  writeFileSync(
    file,
    `import { threadId } from 'node:worker_threads';
import { extract as crawlerExtract } from ${JSON.stringify(extractTs)};
export async function extract(job) {
  const e = await crawlerExtract(job);
  return e.kind === 'page' ? { ...e, analysis: { thread: threadId, bodyBytes: job.body.byteLength } } : e;
}
`,
  );
  return pathToFileURL(file);
}

const job = (url: string, body: Uint8Array, contentType: string): ParseJob => ({ body, contentType, url, ...SETTINGS });

describe('RoutedParser', () => {
  const parsers: RoutedParser[] = [];
  after(async () => {
    await Promise.all(parsers.map((p) => p.close()));
  });
  const routed = () => {
    const module = markingModule();
    const pages = new ParsePool(1, { extractor: { module, extract: (j) => extract(j) as Extracted }, inline: false });
    const documents = new ParsePool(1, { inline: false, name: 'document', jobsPerWorker: 1 });
    const parser = new RoutedParser(pages, documents);
    parsers.push(parser);
    return parser;
  };

  it('extracts a document in a document worker and finishes its page in a page worker, without its body', async () => {
    const parser = routed();
    const pdf = await multiPagePdf();
    const e = await parser.parse(job('http://e.org/quartz.pdf', pdf, 'application/pdf'));
    assert.equal(e.kind, 'page');
    assert.ok(e.kind === 'page' && e.page.text.includes('the quartz harmonic resonator'), 'the PDF was read');
    const analysis = (e as { analysis?: { thread: number; bodyBytes: number } }).analysis;
    assert.ok(analysis, "the page pool's extractor finished the document's page");
    assert.ok(analysis.thread > 0, 'in a worker thread');
    assert.equal(analysis.bodyBytes, 0, "the PDF's bytes are not sent again");
    const html = await parser.parse(job('http://e.org/p', Buffer.from('<title>P</title><p>plain page</p>'), 'text/html'));
    const pageThread = (html as { analysis?: { thread: number } }).analysis?.thread;
    assert.equal(pageThread, analysis.thread, 'the same page worker that parses HTML pages');
  });

  it('hands a refused document back as it is: the page workers never see it', async () => {
    const parser = routed();
    const e = await parser.parse(job('http://e.org/locked.pdf', await encryptedPdf(), 'application/pdf'));
    assert.deepEqual([e.kind, e.kind === 'refused' && e.reason], ['refused', 'encrypted']);
    assert.equal((parser.pages as ParsePool).parsed.inWorkers, 0);
  });
});
