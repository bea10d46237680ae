import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { DOCUMENT_FIXTURES, xlsx, zipFile } from '../../testweb/documents.ts';
import { extractDocument } from './extract.ts';
import { sniffFormat } from './sniff.ts';
import { DocumentRefusal, type DocumentFormat } from './types.ts';

/** Links kept, as the crawl's default settings give them (limits.maxLinksPerPage). */
const maxLinks = DEFAULT_CONFIG.limits.maxLinksPerPage;

const refusal = (reason: string) => (e: unknown) => e instanceof DocumentRefusal && e.reason === reason;

describe('extractDocument', () => {
  for (const [name, fixture] of Object.entries(DOCUMENT_FIXTURES)) {
    it(`${name}: ${fixture.refusal ? `is refused as ${fixture.refusal}` : 'holds its known text, title and link'}`, async () => {
      const bytes = await fixture.bytes();
      const url = `https://example.org${fixture.path}`;
      const format = (await sniffFormat(fixture.contentType, bytes, url)) as DocumentFormat;
      const run = extractDocument(bytes, format, { url, maxLinks, maxPages: 100, contentType: fixture.contentType });
      if (fixture.refusal) return void (await assert.rejects(run, refusal(fixture.refusal)));
      const page = await run;
      assert.equal(page.document.format, format);
      for (const words of fixture.knownText ?? []) assert.ok(page.text.includes(words), `"${words}" in ${page.text}`);
      assert.equal(page.title, fixture.title);
      assert.deepEqual(page.links[0], { ...fixture.link, nofollow: false });
      assert.equal(page.noindex, false);
    });
  }

  it('reads a zip by what it holds: a spreadsheet said to be a DOCX is read as a spreadsheet', async () => {
    const page = await extractDocument(xlsx(), 'docx', { url: 'https://example.org/a.docx', maxLinks, maxPages: 10 });
    assert.equal(page.document.format, 'xlsx');
  });

  it('refuses a zip of no supported format as unsupported, an empty body as empty', async () => {
    await assert.rejects(
      extractDocument(zipFile([{ name: 'a.txt', data: 'x' }]), 'docx', { url: 'https://example.org/a.docx', maxLinks, maxPages: 10 }),
      refusal('unsupported'),
    );
    await assert.rejects(extractDocument(new Uint8Array(0), 'odt', { url: 'https://example.org/a.odt', maxLinks, maxPages: 10 }), refusal('empty'));
    await assert.rejects(extractDocument(Buffer.from('plain text'), 'ods', { url: 'https://example.org/a.ods', maxLinks, maxPages: 10 }), refusal('damaged'));
  });

  it('applies the zip limits given in the options', async () => {
    const docx = await DOCUMENT_FIXTURES.docx!.bytes();
    await assert.rejects(extractDocument(docx, 'docx', { url: 'https://example.org/a.docx', maxLinks, maxPages: 10, maxZipEntries: 3 }), refusal('zip-bomb'));
    await assert.rejects(extractDocument(docx, 'docx', { url: 'https://example.org/a.docx', maxLinks, maxPages: 10, maxZipBytes: 1000 }), refusal('zip-bomb'));
  });
});
