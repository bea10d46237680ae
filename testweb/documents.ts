/**
 * Documents for the tests, made at test time (never downloaded, never committed as binaries): PDFs
 * by pdf-lib (pdfs.ts), Office Open XML (here) and OpenDocument (odf-documents.ts) files as zips of
 * hand-written XML (zip.ts), hostile files (encrypted, truncated, spinning, zip bombs), and Markdown. Each good file holds known words, a
 * title, headings, one external link and metadata; DOCUMENT_FIXTURES describes them for a test web.
 */
import { odp, ods, odt } from './odf-documents.ts';
import { encryptedPdf, multiPagePdf, truncatedPdf } from './pdfs.ts';
import { deflatedZeros, XML, zipFile } from './zip.ts';

export * from './odf-documents.ts';
export * from './pdfs.ts';
export * from './zip.ts';

// ---------------------------------------------------------------------------------------------
// Office Open XML

const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
const R = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const A = 'http://schemas.openxmlformats.org/drawingml/2006/main';
const P = 'http://schemas.openxmlformats.org/presentationml/2006/main';
const S = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const PKG = 'http://schemas.openxmlformats.org/package/2006/relationships';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

type Rel = readonly [id: string, type: string, target: string, external?: boolean];
const relationship = ([id, type, target, ext]: Rel): string =>
  `<Relationship Id="${id}" Type="${type.includes('/') ? type : `${REL}/${type}`}" Target="${target}"${ext ? ' TargetMode="External"' : ''}/>`;
const rels = (list: readonly Rel[]): string => `${XML}<Relationships xmlns="${PKG}">${list.map(relationship).join('')}</Relationships>`;

const contentTypes = (main: string, mainType: string, more = ''): string =>
  `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  `<Default Extension="xml" ContentType="application/xml"/><Override PartName="/${main}" ContentType="${mainType}"/>` +
  `<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>${more}</Types>`;

const packageRels = (main: string): string =>
  rels([
    ['rId1', 'officeDocument', main],
    ['rId2', 'http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties', 'docProps/core.xml'],
    ['rId3', 'extended-properties', 'docProps/app.xml'],
  ]);

const coreXml = (title: string, creator: string, subject: string, keywords: string, lang = 'en-US'): string =>
  `${XML}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" ` +
  'xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">' +
  `<dc:title>${title}</dc:title><dc:subject>${subject}</dc:subject><dc:creator>${creator}</dc:creator><cp:keywords>${keywords}</cp:keywords>` +
  `<dc:language>${lang}</dc:language><dcterms:created xsi:type="dcterms:W3CDTF">2021-03-04T05:06:07Z</dcterms:created>` +
  '<dcterms:modified xsi:type="dcterms:W3CDTF">2022-08-09T10:11:12Z</dcterms:modified></cp:coreProperties>';

const appXml = (pages: number): string =>
  `${XML}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Pages>${pages}</Pages></Properties>`;

const para = (text: string, style?: string): string =>
  `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t xml:space="preserve">${text}</w:t></w:r></w:p>`;

/** A DOCX: Title and Heading1/2 paragraphs, a localized heading style, a table, a tab, a link. */
export function docx(): Buffer {
  const body = [
    para('Tidal Power Survey', 'Title'),
    para('Introduction', 'Heading1'),
    '<w:p><w:r><w:t>The estuary turbine array</w:t></w:r><w:r><w:tab/><w:t>spins twice daily.</w:t></w:r><w:r><w:br/><w:t>See the </w:t>' +
      '</w:r><w:hyperlink r:id="rId9"><w:r><w:t>tidal charts</w:t></w:r></w:hyperlink><w:r><w:t> for times.</w:t></w:r></w:p>',
    para('Gezeitenmessung', 'berschrift2'),
    `<w:tbl><w:tr><w:tc>${para('Cell alpha')}</w:tc><w:tc>${para('Cell beta')}</w:tc></w:tr></w:tbl>`,
    para('Closing remarks about barrage sluices.'),
  ].join('');
  const styles =
    `${XML}<w:styles xmlns:w="${W}"><w:style w:type="paragraph" w:styleId="berschrift2"><w:name w:val="heading 2"/>` +
    '</w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/></w:style></w:styles>';
  return zipFile([
    {
      name: '[Content_Types].xml',
      data: contentTypes('word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'),
    },
    { name: '_rels/.rels', data: packageRels('word/document.xml') },
    { name: 'word/document.xml', data: `${XML}<w:document xmlns:w="${W}" xmlns:r="${R}"><w:body>${body}</w:body></w:document>` },
    {
      name: 'word/_rels/document.xml.rels',
      data: rels([
        ['rId1', 'styles', 'styles.xml'],
        ['rId9', 'hyperlink', 'https://example.org/tides', true],
      ]),
    },
    { name: 'word/styles.xml', data: styles },
    { name: 'docProps/core.xml', data: coreXml('Tidal Power Survey', 'Maren Flux', 'Estuary energy', 'tide, turbine', 'en-GB') },
    { name: 'docProps/app.xml', data: appXml(3) },
  ]);
}

const shape = (text: string, title = false, link?: string): string =>
  `<p:sp><p:nvSpPr><p:cNvPr id="2" name="s"/><p:cNvSpPr/><p:nvPr>${title ? '<p:ph type="title"/>' : ''}</p:nvPr></p:nvSpPr>` +
  `<p:txBody><a:p><a:r><a:rPr lang="en-US">${link ? `<a:hlinkClick r:id="${link}"/>` : ''}</a:rPr><a:t>${text}</a:t></a:r></a:p></p:txBody></p:sp>`;
const slide = (...shapes: string[]): string =>
  `${XML}<p:sld xmlns:a="${A}" xmlns:r="${R}" xmlns:p="${P}"><p:cSld><p:spTree>${shapes.join('')}</p:spTree></p:cSld></p:sld>`;

/** A PPTX of three slides whose presentation order (2, 1, 3) is not their file order. */
export function pptx(): Buffer {
  return zipFile([
    {
      name: '[Content_Types].xml',
      data: contentTypes('ppt/presentation.xml', 'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml'),
    },
    { name: '_rels/.rels', data: packageRels('ppt/presentation.xml') },
    {
      name: 'ppt/presentation.xml',
      data:
        `${XML}<p:presentation xmlns:a="${A}" xmlns:r="${R}" xmlns:p="${P}"><p:sldIdLst><p:sldId id="256" r:id="rId3"/>` +
        '<p:sldId id="257" r:id="rId2"/><p:sldId id="258" r:id="rId4"/></p:sldIdLst></p:presentation>',
    },
    {
      name: 'ppt/_rels/presentation.xml.rels',
      data: rels([
        ['rId2', 'slide', 'slides/slide1.xml'],
        ['rId3', 'slide', 'slides/slide2.xml'],
        ['rId4', 'slide', '/ppt/slides/slide3.xml'],
      ]),
    },
    { name: 'ppt/slides/slide2.xml', data: slide(shape('Orbital Mechanics', true), shape('Kepler ellipse perihelion')) },
    {
      name: 'ppt/slides/slide1.xml',
      data: slide(shape('Transfer Windows', true), shape('the hohmann transfer burn'), shape('mission planner', false, 'rId7')),
    },
    { name: 'ppt/slides/_rels/slide1.xml.rels', data: rels([['rId7', 'hyperlink', 'https://example.org/orbits', true]]) },
    // A link on a whole shape, and a drawing given twice (mc:Choice, and mc:Fallback for older readers).
    {
      name: 'ppt/slides/slide3.xml',
      data: slide(
        shape('Questions', true),
        shape('aerobraking apoapsis').replace('<p:cNvPr id="2" name="s"/>', '<p:cNvPr id="2" name="s"><a:hlinkClick r:id="rId1"/></p:cNvPr>'),
        '<mc:AlternateContent xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006">' +
          `<mc:Choice Requires="x">${shape('chosen words')}</mc:Choice><mc:Fallback>${shape('chosen words')}</mc:Fallback></mc:AlternateContent>`,
      ),
    },
    { name: 'ppt/slides/_rels/slide3.xml.rels', data: rels([['rId1', 'hyperlink', 'https://example.org/questions', true]]) },
    { name: 'docProps/core.xml', data: coreXml('Orbits for Beginners', 'Yuri Apsis', 'Spaceflight basics', 'orbit, rocket') },
  ]);
}

const cell = (ref: string, inner: string, t?: string): string => `<c r="${ref}"${t ? ` t="${t}"` : ''}>${inner}</c>`;

/** An XLSX of two sheets: shared and inline strings, numbers, a boolean, a cached formula, a link. */
export function xlsx(): Buffer {
  const sheet1 =
    `${XML}<worksheet xmlns="${S}" xmlns:r="${R}"><sheetData>` +
    `<row r="1">${cell('A1', '<v>0</v>', 's')}${cell('B1', '<v>1</v>', 's')}</row>` +
    `<row r="2">${cell('A2', '<is><t>lithium carbonate</t></is>', 'inlineStr')}${cell('B2', '<v>1250.5</v>')}</row>` +
    `<row r="3">${cell('A3', '<v>2</v>', 's')}${cell('B3', '<f>SUM(B2:B2)*2</f><v>2501</v>')}${cell('C3', '<v>1</v>', 'b')}</row>` +
    '</sheetData><hyperlinks><hyperlink ref="A3" r:id="rId1"/></hyperlinks></worksheet>';
  const sheet2 =
    `${XML}<worksheet xmlns="${S}"><sheetData>` +
    `<row r="1">${cell('A1', '<v>3</v>', 's')}${cell('B1', '<f>"cob"&amp;"alt"</f><v>cobalt</v>', 'str')}</row>` +
    '</sheetData></worksheet>';
  const strings = ['Commodity', 'Price', 'Total tonnage', 'nickel laterite ore'];
  const sharedString = (s: string, i: number): string =>
    i === 3 ? '<si><r><t>nickel </t></r><r><t>laterite ore</t></r><rPh><t>ignored phonetic</t></rPh></si>' : `<si><t>${s}</t></si>`;
  return zipFile([
    { name: '[Content_Types].xml', data: contentTypes('xl/workbook.xml', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml') },
    { name: '_rels/.rels', data: packageRels('xl/workbook.xml') },
    {
      name: 'xl/workbook.xml',
      data:
        `${XML}<workbook xmlns="${S}" xmlns:r="${R}"><sheets><sheet name="Metals" sheetId="1" r:id="rId1"/>` +
        '<sheet name="Ores" sheetId="2" r:id="rId2"/></sheets></workbook>',
    },
    {
      name: 'xl/_rels/workbook.xml.rels',
      data: rels([
        ['rId1', 'worksheet', 'worksheets/sheet1.xml'],
        ['rId2', 'worksheet', 'worksheets/sheet2.xml'],
        ['rId3', 'sharedStrings', 'sharedStrings.xml'],
      ]),
    },
    {
      name: 'xl/sharedStrings.xml',
      data: `${XML}<sst xmlns="${S}">${strings.map(sharedString).join('')}</sst>`,
    },
    { name: 'xl/worksheets/sheet1.xml', data: sheet1 },
    { name: 'xl/worksheets/_rels/sheet1.xml.rels', data: rels([['rId1', 'hyperlink', 'https://example.org/metals', true]]) },
    { name: 'xl/worksheets/sheet2.xml', data: sheet2 },
    { name: 'docProps/core.xml', data: coreXml('Battery Metals', 'Ingrid Ore', 'Commodity prices', 'lithium, nickel') },
  ]);
}

/** A DOCX whose document.xml truly inflates to about 2 GiB of zeros (refused before any inflating). */
export function zipBombDocx(): Buffer {
  const mib = 2047;
  return zipFile([
    {
      name: '[Content_Types].xml',
      data: contentTypes('word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'),
    },
    { name: '_rels/.rels', data: packageRels('word/document.xml') },
    // The CRC is not computed (2 GiB of work); a reader never gets that far.
    { name: 'word/document.xml', data: '', deflated: deflatedZeros(mib), declaredSize: mib * 1024 * 1024 },
  ]);
}

/** A DOCX whose document.xml declares 1 KB and inflates to 100 MiB. */
export function lyingDocx(): Buffer {
  return zipFile([
    {
      name: '[Content_Types].xml',
      data: contentTypes('word/document.xml', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml'),
    },
    { name: '_rels/.rels', data: packageRels('word/document.xml') },
    { name: 'word/document.xml', data: '', deflated: deflatedZeros(100), declaredSize: 1024 },
  ]);
}

// ---------------------------------------------------------------------------------------------
// Markdown

export function markdown(): Buffer {
  return Buffer.from(
    '# Sourdough Basics\n\nA *levain* feeds on rye flour; the crumb shows the **fermentation**.\n\n## Hydration\n\n' +
      `See [the baker's table](https://example.org/bread) and [notes](../notes/starter.md).\n\n\`\`\`\nautolyse 30 min\n\`\`\`\n`,
    'utf8',
  );
}

// ---------------------------------------------------------------------------------------------

export type DocumentFixture = {
  readonly bytes: () => Promise<Buffer>;
  readonly contentType: string;
  /** Where a test web would serve it (the file name is the title's fallback). */
  readonly path: string;
  /** Words the extracted text must hold (absent for files that are refused). */
  readonly knownText?: readonly string[];
  readonly title?: string;
  /** The external link it holds. */
  readonly link?: { readonly url: string; readonly text: string };
  /** Why the extractor refuses it. */
  readonly refusal?: 'encrypted' | 'zip-bomb' | 'damaged' | 'empty';
};

const OOXML = 'application/vnd.openxmlformats-officedocument';
const ODF = 'application/vnd.oasis.opendocument';
const sync = (f: () => Buffer) => async () => f();

export const DOCUMENT_FIXTURES: Readonly<Record<string, DocumentFixture>> = {
  pdf: {
    bytes: multiPagePdf,
    contentType: 'application/pdf',
    path: '/docs/quartz.pdf',
    knownText: ['the quartz harmonic resonator', 'Polar lights'],
    title: 'Resonance in Quartz Crystals',
    link: { url: 'https://example.org/crystal-archive', text: 'Read the crystal archive for more.' },
  },
  docx: {
    bytes: sync(docx),
    contentType: `${OOXML}.wordprocessingml.document`,
    path: '/docs/tides.docx',
    knownText: ['The estuary turbine array', 'Cell alpha'],
    title: 'Tidal Power Survey',
    link: { url: 'https://example.org/tides', text: 'tidal charts' },
  },
  pptx: {
    bytes: sync(pptx),
    contentType: `${OOXML}.presentationml.presentation`,
    path: '/docs/orbits.pptx',
    knownText: ['the hohmann transfer burn', 'Kepler ellipse'],
    title: 'Orbits for Beginners',
    link: { url: 'https://example.org/orbits', text: 'mission planner' },
  },
  xlsx: {
    bytes: sync(xlsx),
    contentType: `${OOXML}.spreadsheetml.sheet`,
    path: '/docs/metals.xlsx',
    knownText: ['lithium carbonate', 'nickel laterite ore'],
    title: 'Battery Metals',
    link: { url: 'https://example.org/metals', text: 'Total tonnage' },
  },
  odt: {
    bytes: sync(odt),
    contentType: `${ODF}.text`,
    path: '/docs/glaciers.odt',
    knownText: ['moraine sediment flows', 'ablation zone'],
    title: 'Glaciers Explained',
    link: { url: 'https://example.org/glaciers', text: 'glacier survey' },
  },
  odp: {
    bytes: sync(odp),
    contentType: `${ODF}.presentation`,
    path: '/docs/reefs.odp',
    knownText: ['zooxanthellae symbiosis', 'thermal stress'],
    title: 'Reef Ecology',
    link: { url: 'https://example.org/reefs', text: 'reef watch' },
  },
  ods: {
    bytes: sync(ods),
    contentType: `${ODF}.spreadsheet`,
    path: '/docs/rain.ods',
    knownText: ['monsoon trough', 'anemometer mast'],
    title: 'Weather Records',
    link: { url: 'https://example.org/rain', text: 'rain gauge' },
  },
  markdown: {
    bytes: sync(markdown),
    contentType: 'text/markdown; charset=utf-8',
    path: '/docs/sourdough.md',
    knownText: ['levain feeds on rye flour'],
    title: 'Sourdough Basics',
    link: { url: 'https://example.org/bread', text: "the baker's table" },
  },
  encrypted: { bytes: encryptedPdf, contentType: 'application/pdf', path: '/docs/secret.pdf', refusal: 'encrypted' },
  truncated: { bytes: truncatedPdf, contentType: 'application/pdf', path: '/docs/cut.pdf', refusal: 'damaged' },
  empty: { bytes: async () => Buffer.alloc(0), contentType: 'application/pdf', path: '/docs/empty.pdf', refusal: 'empty' },
  zipBomb: { bytes: sync(zipBombDocx), contentType: `${OOXML}.wordprocessingml.document`, path: '/docs/bomb.docx', refusal: 'zip-bomb' },
  lyingZip: { bytes: sync(lyingDocx), contentType: `${OOXML}.wordprocessingml.document`, path: '/docs/liar.docx', refusal: 'zip-bomb' },
};
