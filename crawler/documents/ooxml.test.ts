import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DEFAULT_CONFIG } from '../../config/defaults.ts';
import { docx, pptx, xlsx, zipFile } from '../../testweb/documents.ts';
import { extractDocx } from './docx.ts';
import { extractPptx } from './pptx.ts';
import { extractXlsx } from './xlsx.ts';
import { ZipArchive } from './zip.ts';

/** Links kept, as the crawl's default settings give them (limits.maxLinksPerPage). */
const maxLinks = DEFAULT_CONFIG.limits.maxLinksPerPage;

const options = { url: 'https://example.org/docs/file.docx', maxLinks, maxPages: 100 };
const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const MC = 'http://schemas.openxmlformats.org/markup-compatibility/2006';

/** A DOCX of just word/document.xml (and its relationships): what the extractor needs. */
function bareDocx(body: string, prefix = 'w', rels = ''): ZipArchive {
  const xml = `<${prefix}:document xmlns:${prefix}="${W}" xmlns:r="${R}" xmlns:mc="${MC}"><${prefix}:body>${body}</${prefix}:body></${prefix}:document>`;
  const relsXml = `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`;
  return ZipArchive.open(
    zipFile([
      { name: 'word/document.xml', data: xml },
      { name: 'word/_rels/document.xml.rels', data: relsXml },
    ]),
  );
}

describe('extractDocx', () => {
  const page = extractDocx(ZipArchive.open(docx()), options);

  it('reads paragraphs as lines, table cells included, tabs as spaces, breaks as line ends', () => {
    assert.equal(
      page.text,
      'Tidal Power Survey\nIntroduction\nThe estuary turbine array spins twice daily.\nSee the tidal charts for times.\n' +
        'Gezeitenmessung\nCell alpha\nCell beta\nClosing remarks about barrage sluices.',
    );
    assert.equal(page.document.pageOffsets, undefined);
  });

  it('takes Title and heading paragraphs as headings, a localized style by its name in styles.xml', () => {
    assert.deepEqual(page.headings, ['Tidal Power Survey', 'Introduction', 'Gezeitenmessung']);
  });

  it('keeps hyperlinks with their text', () => {
    assert.deepEqual(page.links, [{ url: 'https://example.org/tides', text: 'tidal charts', nofollow: false }]);
  });

  it('reads the core properties and the declared page count', () => {
    assert.equal(page.title, 'Tidal Power Survey');
    assert.equal(page.description, 'Estuary energy');
    assert.equal(page.lang, 'en-GB');
    assert.equal(page.keywords, 'tide, turbine');
    assert.deepEqual(page.document, {
      format: 'docx',
      author: 'Maren Flux',
      subject: 'Estuary energy',
      keywords: 'tide, turbine',
      created: '2021-03-04T05:06:07.000Z',
      modified: '2022-08-09T10:11:12.000Z',
      pages: 3,
    });
  });

  it('reads any prefix bound to the WordprocessingML namespace', () => {
    const p = extractDocx(
      bareDocx('<ns0:p><ns0:pPr><ns0:pStyle ns0:val="Heading2"/></ns0:pPr><ns0:r><ns0:t>Odd prefix</ns0:t></ns0:r></ns0:p>', 'ns0'),
      options,
    );
    assert.equal(p.text, 'Odd prefix');
    assert.deepEqual(p.headings, ['Odd prefix']);
  });

  it('leaves out deleted runs and fallback copies; reads HYPERLINK fields and outline levels', () => {
    const body = [
      '<w:p><w:r><w:t>kept</w:t></w:r><w:del><w:r><w:delText>deleted</w:delText></w:r></w:del></w:p>',
      '<w:p><mc:AlternateContent><mc:Choice><w:r><w:t>box text</w:t></w:r></mc:Choice>' +
        '<mc:Fallback><w:r><w:t>box text</w:t></w:r></mc:Fallback></mc:AlternateContent></w:p>',
      '<w:p><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText> HYPERLINK "https://example.org/field" </w:instrText></w:r>' +
        '<w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>field link</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r></w:p>',
      '<w:p><w:fldSimple w:instr="HYPERLINK &quot;https://example.org/simple&quot;"><w:r><w:t>simple link</w:t></w:r></w:fldSimple></w:p>',
      '<w:p><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:r><w:t>Outlined</w:t></w:r></w:p>',
      '<w:p><w:pPr><w:pStyle w:val="Heading7"/></w:pPr><w:r><w:t>Too deep</w:t></w:r></w:p>',
      '<w:p><w:hyperlink w:anchor="inside"><w:r><w:t xml:space="preserve">internal </w:t></w:r></w:hyperlink>' +
        '<w:hyperlink r:id="rId1"><w:r><w:t>relative</w:t></w:r></w:hyperlink></w:p>',
    ].join('');
    const p = extractDocx(bareDocx(body, 'w', `<Relationship Id="rId1" Type="${R}/hyperlink" Target="../other/page.html" TargetMode="External"/>`), options);
    assert.equal(p.text, 'kept\nbox text\nfield link\nsimple link\nOutlined\nToo deep\ninternal relative');
    assert.deepEqual(p.headings, ['Outlined']);
    assert.deepEqual(
      p.links.map((l) => [l.url, l.text]),
      [
        ['https://example.org/field', 'field link'],
        ['https://example.org/simple', 'simple link'],
        ['https://example.org/other/page.html', 'relative'],
      ],
    );
    assert.equal(p.title, 'Outlined', 'no metadata: the first heading');
  });

  it('keeps at most maxLinks links and counts the rest; cuts the text at maxTextChars', () => {
    const body = Array.from(
      { length: 5 },
      (_, i) => `<w:p><w:fldSimple w:instr="HYPERLINK https://example.org/${i}"><w:r><w:t>link ${i}</w:t></w:r></w:fldSimple></w:p>`,
    ).join('');
    const p = extractDocx(bareDocx(body), { ...options, maxLinks: 2, maxTextChars: 13 });
    assert.deepEqual(
      p.links.map((l) => l.url),
      ['https://example.org/0', 'https://example.org/1'],
    );
    assert.equal(p.linksCut, 3);
    assert.equal(p.text, 'link 0\nlink 1');
    assert.ok((p.document.textCut ?? 0) > 0);
  });
});

describe('extractPptx', () => {
  const page = extractPptx(ZipArchive.open(pptx()), options);

  it('reads the slides in presentation order, each starting at its offset, titles as headings', () => {
    assert.deepEqual(page.headings, ['Orbital Mechanics', 'Transfer Windows', 'Questions']);
    const offsets = page.document.pageOffsets!;
    assert.equal(offsets.length, 3);
    const burn = page.text.indexOf('the hohmann transfer burn');
    assert.ok(burn >= offsets[1]! && burn < offsets[2]!);
    assert.ok(page.text.startsWith('Orbital Mechanics\nKepler ellipse perihelion\n'));
    assert.equal(page.document.pages, 3);
    assert.equal(page.text.match(/chosen words/g)?.length, 1, 'a fallback copy is not read twice');
  });

  it('keeps a run’s or a shape’s hyperlink with its text, and reads the core properties', () => {
    assert.deepEqual(page.links, [
      { url: 'https://example.org/orbits', text: 'mission planner', nofollow: false },
      { url: 'https://example.org/questions', text: 'aerobraking apoapsis', nofollow: false },
    ]);
    assert.equal(page.title, 'Orbits for Beginners');
    assert.equal(page.document.author, 'Yuri Apsis');
  });

  it('reads only maxPages slides and counts the rest', () => {
    const cut = extractPptx(ZipArchive.open(pptx()), { ...options, maxPages: 2 });
    assert.deepEqual(cut.headings, ['Orbital Mechanics', 'Transfer Windows']);
    assert.equal(cut.document.pageOffsets?.length, 2);
    assert.equal(cut.document.pagesCut, 1);
    assert.equal(cut.document.pages, 3);
    assert.doesNotMatch(cut.text, /aerobraking/);
  });
});

describe('extractXlsx', () => {
  const page = extractXlsx(ZipArchive.open(xlsx()), options);

  it('reads the sheets in order, row by row: shared, inline and rich strings, numbers, booleans, cached formula values', () => {
    assert.deepEqual(page.headings, ['Metals', 'Ores']);
    assert.equal(page.text, 'Commodity Price\nlithium carbonate 1250.5\nTotal tonnage 2501 TRUE\nnickel laterite ore cobalt');
    assert.doesNotMatch(page.text, /SUM|phonetic/);
    assert.deepEqual(page.document.pageOffsets, [0, page.text.indexOf('nickel')]);
    assert.equal(page.document.pages, 2);
  });

  it('keeps a cell’s hyperlink with the cell’s text', () => {
    assert.deepEqual(page.links, [{ url: 'https://example.org/metals', text: 'Total tonnage', nofollow: false }]);
    assert.equal(page.title, 'Battery Metals');
  });

  it('extracts at most maxCells cells, counts the rest, and does not read the sheets after', () => {
    const cut = extractXlsx(ZipArchive.open(xlsx()), { ...options, maxCells: 3 });
    assert.equal(cut.text, 'Commodity Price\nlithium carbonate');
    assert.equal(cut.document.cellsCut, 4);
    assert.equal(cut.document.pagesCut, 1);
    assert.deepEqual(cut.headings, ['Metals']);
  });
});
