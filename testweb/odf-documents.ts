/** OpenDocument files for the tests (ODT, ODP, ODS), as zips of hand-written XML; described for a test web in documents.ts. */
import { XML, zipFile } from './zip.ts';

const ODF_NS =
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ' +
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ' +
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" ' +
  'xmlns:xlink="http://www.w3.org/1999/xlink" xmlns:dc="http://purl.org/dc/elements/1.1/" ' +
  'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0"';

function odf(kind: 'text' | 'presentation' | 'spreadsheet', body: string, meta: string, automaticStyles = ''): Buffer {
  const mime = `application/vnd.oasis.opendocument.${kind}`;
  return zipFile([
    { name: 'mimetype', data: mime, store: true },
    {
      name: 'META-INF/manifest.xml',
      data:
        `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">` +
        `<manifest:file-entry manifest:full-path="/" manifest:media-type="${mime}"/><manifest:file-entry manifest:full-path="content.xml" ` +
        'manifest:media-type="text/xml"/><manifest:file-entry manifest:full-path="meta.xml" manifest:media-type="text/xml"/></manifest:manifest>',
    },
    {
      name: 'content.xml',
      data:
        `${XML}<office:document-content ${ODF_NS} office:version="1.3"><office:automatic-styles>${automaticStyles}</office:automatic-styles>` +
        `<office:body><office:${kind}>${body}</office:${kind}></office:body></office:document-content>`,
    },
    { name: 'meta.xml', data: `${XML}<office:document-meta ${ODF_NS} office:version="1.3"><office:meta>${meta}</office:meta></office:document-meta>` },
  ]);
}

const odfMeta = (title: string, creator: string, subject: string, keywords: readonly string[], pages?: number): string =>
  `<dc:title>${title}</dc:title><dc:subject>${subject}</dc:subject><dc:description>About ${subject}</dc:description>` +
  `${keywords.map((k) => `<meta:keyword>${k}</meta:keyword>`).join('')}<meta:initial-creator>${creator}</meta:initial-creator>` +
  '<meta:creation-date>2021-03-04T05:06:07</meta:creation-date><dc:date>2022-08-09T10:11:12.5</dc:date>' +
  `<dc:language>fr-CA</dc:language>${pages ? `<meta:document-statistic meta:page-count="${pages}"/>` : ''}`;

/**
 * An ODT: headings by outline level (and one as LibreOffice writes a heading that starts a page: a
 * text:p whose automatic style derives from Heading 2), spans, spaces, tabs, line breaks, a list, a
 * table, a link.
 */
export function odt(): Buffer {
  const styles = '<style:style style:name="P1" style:family="paragraph" style:parent-style-name="Heading_20_2"/>';
  const body =
    '<text:p text:style-name="P1">Glacier Dynamics</text:p><text:p>The <text:span>moraine</text:span>' +
    '<text:s text:c="3"/>sediment<text:tab/>flows<text:line-break/>down the valley. ' +
    'Read the <text:a xlink:href="https://example.org/glaciers">glacier survey</text:a> now.</text:p>' +
    '<text:h text:outline-level="2">Crevasse fields</text:h><text:list><text:list-item><text:p>serac collapse</text:p></text:list-item>' +
    '</text:list><table:table table:name="T1"><table:table-row><table:table-cell><text:p>ablation zone</text:p></table:table-cell>' +
    '<table:table-cell table:number-columns-repeated="4"/></table:table-row></table:table><text:h text:outline-level="5">Too deep a heading</text:h>';
  return odf('text', body, odfMeta('Glaciers Explained', 'Nives Firn', 'Ice flow', ['glacier', 'ice'], 4), styles);
}

/** An ODP of two slides, each with a title frame; a link on the second. */
export function odp(): Buffer {
  const frame = (cls: string, text: string): string =>
    `<draw:frame presentation:class="${cls}"><draw:text-box><text:p>${text}</text:p></draw:text-box></draw:frame>`;
  const body =
    `<draw:page draw:name="page1">${frame('title', 'Coral Reefs')}${frame('outline', 'zooxanthellae symbiosis')}` +
    '<presentation:notes><draw:frame><draw:text-box><text:p>speaker notes only</text:p></draw:text-box></draw:frame>' +
    `</presentation:notes></draw:page><draw:page draw:name="Bleaching">${frame('title', 'Bleaching Events')}` +
    `${frame('outline', 'thermal stress <text:a xlink:href="https://example.org/reefs">reef watch</text:a>')}</draw:page>`;
  return odf('presentation', body, odfMeta('Reef Ecology', 'Marina Polyp', 'Coral biology', ['coral']));
}

/** An ODS of two sheets, with repeated rows and columns that must not be exploded. */
export function ods(): Buffer {
  const row = (...cells: string[]): string => `<table:table-row>${cells.join('')}</table:table-row>`;
  const text = (s: string, attrs = ''): string => `<table:table-cell office:value-type="string"${attrs}><text:p>${s}</text:p></table:table-cell>`;
  const number = '<table:table-cell office:value-type="float" office:value="312.5"><text:p>312.5</text:p></table:table-cell>';
  const linked = text('<text:a xlink:href="https://example.org/rain">rain gauge</text:a>');
  const body =
    `<table:table table:name="Rainfall">${row(text('monsoon trough'), number, '<table:table-cell table:number-columns-repeated="16380"/>')}` +
    `${row(linked, text('isohyet', ' table:number-columns-repeated="3"'))}` +
    '<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="16384"/></table:table-row></table:table>' +
    `<table:table table:name="Stations">${row(text('anemometer mast'))}</table:table>`;
  return odf('spreadsheet', body, odfMeta('Weather Records', 'Nimbus Stratus', 'Precipitation', ['rain']));
}
