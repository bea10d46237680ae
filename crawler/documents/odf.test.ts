import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { odp, ods, odt } from '../../testweb/documents.ts';
import { extractOdf } from './odf.ts';
import { ZipArchive } from './zip.ts';

/** Links kept, as the crawl's default settings give them (limits.maxLinksPerPage). */
const maxLinks = DEFAULT_CONFIG.limits.maxLinksPerPage;

const options = { url: 'https://example.org/docs/file.odt', maxLinks, maxPages: 100 };

describe('extractOdf', () => {
  it('reads an ODT: paragraphs, spans, spaces, tabs, line breaks, lists, tables, links, headings of levels 1–3 (by element or by style)', () => {
    const page = extractOdf(ZipArchive.open(odt()), 'odt', options);
    assert.equal(
      page.text,
      'Glacier Dynamics\nThe moraine sediment flows\ndown the valley. Read the glacier survey now.\n' +
        'Crevasse fields\nserac collapse\nablation zone\nToo deep a heading',
    );
    assert.deepEqual(page.headings, ['Glacier Dynamics', 'Crevasse fields']);
    assert.deepEqual(page.links, [{ url: 'https://example.org/glaciers', text: 'glacier survey', nofollow: false }]);
    assert.equal(page.document.pageOffsets, undefined);
  });

  it('reads meta.xml: title, subject, keywords, creator, dates, language, page count', () => {
    const page = extractOdf(ZipArchive.open(odt()), 'odt', options);
    assert.equal(page.title, 'Glaciers Explained');
    assert.equal(page.description, 'Ice flow');
    assert.equal(page.lang, 'fr-CA');
    assert.deepEqual(page.document, {
      format: 'odt',
      author: 'Nives Firn',
      subject: 'Ice flow',
      keywords: 'glacier, ice',
      created: '2021-03-04T05:06:07.000Z',
      modified: '2022-08-09T10:11:12.500Z',
      pages: 4,
    });
  });

  it('reads an ODP slide by slide, titles as headings, speaker notes left out', () => {
    const page = extractOdf(ZipArchive.open(odp()), 'odp', options);
    assert.deepEqual(page.headings, ['Coral Reefs', 'Bleaching Events']);
    assert.equal(page.text, 'Coral Reefs\nzooxanthellae symbiosis\nBleaching Events\nthermal stress reef watch');
    assert.deepEqual(page.document.pageOffsets, [0, page.text.indexOf('Bleaching')]);
    assert.equal(page.document.pages, 2);
    assert.deepEqual(page.links, [{ url: 'https://example.org/reefs', text: 'reef watch', nofollow: false }]);
    const cut = extractOdf(ZipArchive.open(odp()), 'odp', { ...options, maxPages: 1 });
    assert.equal(cut.text, 'Coral Reefs\nzooxanthellae symbiosis');
    assert.equal(cut.document.pagesCut, 1);
  });

  it('reads an ODS sheet by sheet, a row per line, without exploding repeated rows and cells', () => {
    const page = extractOdf(ZipArchive.open(ods()), 'ods', options);
    assert.deepEqual(page.headings, ['Rainfall', 'Stations']);
    assert.equal(page.text, 'monsoon trough\t312.5\nrain gauge\tisohyet\nanemometer mast'.replace(/\t/g, ' '));
    assert.deepEqual(page.document.pageOffsets, [0, page.text.indexOf('anemometer')]);
    assert.deepEqual(page.links, [{ url: 'https://example.org/rain', text: 'rain gauge', nofollow: false }]);
    const cut = extractOdf(ZipArchive.open(ods()), 'ods', { ...options, maxCells: 2 });
    assert.equal(cut.text, 'monsoon trough 312.5');
    assert.equal(cut.document.cellsCut, 2);
    assert.equal(cut.document.pagesCut, 1);
  });
});
