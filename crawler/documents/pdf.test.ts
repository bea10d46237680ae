import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { before, describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { encryptedPdf, linkHeavyPdf, manyPagesPdf, multiPagePdf, PDF_PAGES, spinningPdf, truncatedPdf, xmpPdf } from '../../testweb/documents.ts';
import { ANNOTATIONS_PER_OPEN, extractPdf, PAGES_PER_OPEN, reopenDue } from './pdf.ts';
import { DocumentRefusal, type DocumentPage } from './types.ts';

/** Links kept, as the crawl's default settings give them (limits.maxLinksPerPage). */
const maxLinks = DEFAULT_CONFIG.limits.maxLinksPerPage;

const URL = 'https://example.org/docs/quartz%20notes.pdf';
const refusal = (reason: string) => (e: unknown) => e instanceof DocumentRefusal && e.reason === reason;

describe('extractPdf', () => {
  let bytes: Buffer;
  let page: DocumentPage;
  before(async () => {
    bytes = await multiPagePdf();
    page = await extractPdf(bytes, { url: URL, maxLinks, maxPages: 100 });
  });

  it('extracts the text of every page, each page starting at its offset', () => {
    const offsets = page.document.pageOffsets!;
    assert.equal(offsets.length, PDF_PAGES.length);
    assert.equal(offsets[0], 0);
    const phrase = page.text.indexOf('the quartz harmonic resonator');
    assert.ok(phrase >= offsets[2]! && phrase < offsets[3]!, `page 3's phrase at ${phrase}, page 3 spans ${offsets[2]}–${offsets[3]}`);
    PDF_PAGES.forEach((lines, i) => {
      assert.ok(page.text.slice(offsets[i], offsets[i + 1]).startsWith(lines[0]!), `page ${i + 1} starts with its first line`);
    });
    assert.equal(page.document.pages, PDF_PAGES.length);
    assert.equal(page.document.pagesCut, undefined);
  });

  it('never loads @napi-rs/canvas (Skia: ~37 MB of RSS that text extraction has no use for)', () => {
    // The package is installed beside pdfjs-dist (its optional dependency): PDF.js would load it.
    const canvas = createRequire(import.meta.resolve('pdfjs-dist/legacy/build/pdf.mjs')).resolve('@napi-rs/canvas');
    assert.deepEqual(createRequire(import.meta.url).cache[canvas]?.exports, {}, 'an empty module in its place');
    assert.ok(!/skia/.test(readFileSync('/proc/self/maps', 'utf8')), 'no Skia library mapped into the process');
  });

  it('joins a word hyphenated at a line end', () => {
    assert.match(page.text, /many tonnes of information\s+about the past/);
  });

  it('takes the outline titles, depth first, as headings', () => {
    assert.deepEqual(page.headings, ['Introduction', 'Background', 'Resonators', 'Appendix']);
  });

  it('keeps http(s) link annotations with the text under them, relative ones resolved', () => {
    assert.deepEqual(page.links, [
      { url: 'https://example.org/crystal-archive', text: 'Read the crystal archive for more.', nofollow: false },
      { url: 'https://example.org/notes/resonator.html', text: 'Inside the quartz harmonic resonator', nofollow: false },
    ]);
  });

  it('reads the Info dictionary and the catalog language', () => {
    assert.equal(page.title, 'Resonance in Quartz Crystals');
    assert.equal(page.description, 'Piezoelectric resonators');
    assert.equal(page.lang, 'en-GB');
    assert.equal(page.noindex, false);
    assert.deepEqual(
      {
        author: page.document.author,
        subject: page.document.subject,
        keywords: page.document.keywords,
        created: page.document.created,
        modified: page.document.modified,
      },
      {
        author: 'Ada Quartzmann',
        subject: 'Piezoelectric resonators',
        keywords: 'quartz resonator crystal',
        created: '2021-03-04T05:06:07.000Z',
        modified: '2022-08-09T10:11:12.000Z',
      },
    );
  });

  it("leaves the caller's bytes whole (PDF.js detaches what it is given)", () => {
    assert.ok(bytes.length > 1000);
    assert.equal(bytes.subarray(0, 5).toString(), '%PDF-');
  });

  it('falls back to XMP metadata, and to the decoded file name for a title', async () => {
    const xmp = await extractPdf(await xmpPdf(), { url: URL, maxLinks, maxPages: 10 });
    assert.equal(xmp.title, 'Title From XMP');
    assert.equal(xmp.document.author, 'Xavier Metadata');
    assert.equal(xmp.document.created, '2020-01-02T03:04:05.000Z');
    const bare = await extractPdf(await manyPagesPdf(1), { url: URL, maxLinks, maxPages: 10 });
    assert.equal(bare.title, 'quartz notes.pdf');
  });

  it('extracts only the first maxPages pages of thousands, and counts the rest', async () => {
    const t0 = performance.now();
    const many = await extractPdf(await manyPagesPdf(2000), { url: URL, maxLinks, maxPages: 30 });
    assert.equal(many.document.pages, 2000);
    assert.equal(many.document.pagesCut, 1970);
    assert.equal(many.document.pageOffsets?.length, 30);
    assert.match(many.text, /page 30$/);
    assert.ok(performance.now() - t0 < 10_000);
  });

  it('reads a document longer than PAGES_PER_OPEN across its reopenings, page for page', async () => {
    const n = PAGES_PER_OPEN * 2 + 7;
    const long = await extractPdf(await manyPagesPdf(n), { url: URL, maxLinks, maxPages: n });
    const offsets = long.document.pageOffsets!;
    assert.equal(offsets.length, n);
    assert.equal(long.document.pagesCut, undefined);
    for (const i of [0, PAGES_PER_OPEN - 1, PAGES_PER_OPEN, PAGES_PER_OPEN * 2, n - 1])
      assert.equal(long.text.slice(offsets[i], offsets[i + 1]).trim(), `page ${i + 1}`);
  });

  it("opens the document again after PAGES_PER_OPEN pages, or sooner after ANNOTATIONS_PER_OPEN annotations (an index's links)", () => {
    assert.equal(reopenDue(PAGES_PER_OPEN - 1, 0), false);
    assert.equal(reopenDue(PAGES_PER_OPEN, 0), true);
    assert.equal(reopenDue(3, ANNOTATIONS_PER_OPEN - 1), false);
    assert.equal(reopenDue(3, ANNOTATIONS_PER_OPEN), true, 'a few pages of hundreds of links each');
  });

  it("reads pages of many links across reopenings: every page's text and its URI link", async () => {
    const perPage = Math.ceil(ANNOTATIONS_PER_OPEN / 2);
    const doc = await extractPdf(await linkHeavyPdf(5, perPage), { url: URL, maxLinks, maxPages: 10 });
    const offsets = doc.document.pageOffsets!;
    assert.equal(offsets.length, 5);
    for (let i = 0; i < 5; i++) assert.equal(doc.text.slice(offsets[i], offsets[i + 1]).trim(), `entry page ${i + 1}`);
    assert.deepEqual(
      doc.links.map((l) => [l.url, l.text]),
      [1, 2, 3, 4, 5].map((i) => [`https://example.org/entry-${i}`, `entry page ${i}`]),
    );
  });

  it('stops at maxTextChars and counts the pages it did not read', async () => {
    const cut = await extractPdf(bytes, { url: URL, maxLinks, maxPages: 100, maxTextChars: 60 });
    assert.equal(cut.document.pageOffsets?.length, 2);
    assert.equal(cut.document.pagesCut, PDF_PAGES.length - 2);
    assert.ok((cut.document.textCut ?? 0) > 0);
  });

  it('refuses a password-protected PDF as encrypted, a truncated one as damaged, 0 bytes as empty', async () => {
    await assert.rejects(extractPdf(await encryptedPdf(), { url: URL, maxLinks, maxPages: 10 }), refusal('encrypted'));
    await assert.rejects(extractPdf(await truncatedPdf(), { url: URL, maxLinks, maxPages: 10 }), refusal('damaged'));
    await assert.rejects(extractPdf(Buffer.from('%PDF-1.7\n1 0 obj garbage'), { url: URL, maxLinks, maxPages: 10 }), refusal('damaged'));
    await assert.rejects(extractPdf(new Uint8Array(0), { url: URL, maxLinks, maxPages: 10 }), refusal('empty'));
  });

  it('really spins on the spinning PDF (the caller’s worker pool must end it)', async () => {
    const spinning = await spinningPdf(3_000_000);
    assert.ok(spinning.length < 20_000, `small: ${spinning.length} bytes`);
    const t0 = performance.now();
    await extractPdf(spinning, { url: URL, maxLinks, maxPages: 10 });
    assert.ok(performance.now() - t0 > 1000, `took ${(performance.now() - t0).toFixed(0)} ms`);
  });
});
