/**
 * PDFs for the tests, made at test time by pdf-lib (testweb/documents.ts gathers them with the
 * other documents): a multi-page PDF with an outline and links, one of many pages, one heavy with
 * link annotations, one with XMP metadata, and hostile ones (encrypted, truncated, spinning).
 */
import { deflateSync } from 'node:zlib';
import { PDFDocument, PDFHexString, PDFName, PDFRawStream, PDFString, StandardFonts, type PDFPage, type PDFRef } from 'pdf-lib';

const FONT = StandardFonts.Helvetica;

/** The multi-page PDF's words, page by page (page 3 holds "the quartz harmonic resonator"). */
export const PDF_PAGES: readonly (readonly string[])[] = [
  ['Chapter one: aurora', 'Polar lights over the tundra.'],
  ['Chapter two: basalt', 'Columnar joints cool slowly.'],
  ['Chapter three: quartz', 'Inside the quartz harmonic resonator', 'Read the crystal archive for more.'],
  ['Chapter four: dolmen', 'A capstone weighs many tonnes of infor-', 'mation about the past.'],
  ['Chapter five: ember', 'Smouldering peat fires.'],
  ['Chapter six: fjord', 'Glacial valleys drowned by the sea.'],
];

/** Six pages of known words, an outline, URI links, Info metadata, /Lang. */
export async function multiPagePdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(FONT);
  const pages = PDF_PAGES.map((lines) => {
    const page = doc.addPage([600, 800]);
    lines.forEach((line, i) => {
      page.drawText(line, { x: 50, y: 740 - i * 30, size: i === 0 ? 18 : 12, font });
    });
    return page;
  });
  const ctx = doc.context;
  const link = (rect: number[], uri: string): PDFRef =>
    ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: rect, Border: [0, 0, 0], A: { Type: 'Action', S: 'URI', URI: PDFString.of(uri) } }));
  // Over "Read the crystal archive for more." (page 3, third line), a relative link, a mailto link.
  pages[2]!.node.set(
    PDFName.of('Annots'),
    ctx.obj([
      link([48, 676, 250, 692], 'https://example.org/crystal-archive'),
      link([48, 706, 300, 722], '/notes/resonator.html'),
      link([0, 0, 10, 10], 'mailto:someone@example.org'),
    ]),
  );
  addOutline(doc, pages, [
    ['Introduction', 0, [['Background', 1]]],
    ['Resonators', 2],
    ['Appendix', 4],
  ]);
  doc.setTitle('Resonance in Quartz Crystals');
  doc.setAuthor('Ada Quartzmann');
  doc.setSubject('Piezoelectric resonators');
  doc.setKeywords(['quartz', 'resonator', 'crystal']);
  doc.setCreationDate(new Date('2021-03-04T05:06:07Z'));
  doc.setModificationDate(new Date('2022-08-09T10:11:12Z'));
  doc.setLanguage('en-GB');
  return Buffer.from(await doc.save());
}

type OutlineEntry = readonly [title: string, page: number, children?: readonly OutlineEntry[]];

/** An outline (bookmarks) tree: pdf-lib has no API for it, so its dictionaries are written directly. */
function addOutline(doc: PDFDocument, pages: readonly PDFPage[], entries: readonly OutlineEntry[]): void {
  const ctx = doc.context;
  const level = (parent: PDFRef, list: readonly OutlineEntry[]): { First: PDFRef; Last: PDFRef } => {
    const refs = list.map(() => ctx.nextRef());
    list.forEach(([title, page, children], i) => {
      const dict: Record<string, unknown> = { Title: PDFHexString.fromText(title), Parent: parent, Dest: [pages[page]!.ref, 'XYZ', null, null, null] };
      if (i > 0) dict.Prev = refs[i - 1];
      if (i < refs.length - 1) dict.Next = refs[i + 1];
      if (children?.length) Object.assign(dict, level(refs[i]!, children), { Count: children.length });
      ctx.assign(refs[i]!, ctx.obj(dict as never));
    });
    return { First: refs[0]!, Last: refs.at(-1)! };
  };
  const root = ctx.nextRef();
  ctx.assign(root, ctx.obj({ Type: 'Outlines', ...level(root, entries), Count: entries.length }));
  doc.catalog.set(PDFName.of('Outlines'), root);
}

/** `n` small pages ("page N" on each). */
export async function manyPagesPdf(n: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(FONT);
  for (let i = 1; i <= n; i++) doc.addPage([200, 100]).drawText(`page ${i}`, { x: 10, y: 50, size: 10, font });
  return Buffer.from(await doc.save());
}

/**
 * `n` pages like an index's: each says "entry page I" and holds `links` link annotations to page 1
 * (internal, as an index's are) and one URI link, to https://example.org/entry-I, over its text.
 */
export async function linkHeavyPdf(n: number, links: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(FONT);
  const pages = Array.from({ length: n }, (_, i) => {
    const page = doc.addPage([300, 200]);
    page.drawText(`entry page ${i + 1}`, { x: 10, y: 150, size: 12, font });
    return page;
  });
  const ctx = doc.context;
  const first = pages[0]!.ref;
  pages.forEach((page, i) => {
    const internal = Array.from({ length: links }, (_, k) =>
      ctx.register(ctx.obj({ Type: 'Annot', Subtype: 'Link', Rect: [k % 280, 10, (k % 280) + 5, 15], Border: [0, 0, 0], Dest: [first, PDFName.of('Fit')] })),
    );
    const uri = ctx.register(
      ctx.obj({
        Type: 'Annot',
        Subtype: 'Link',
        Rect: [8, 146, 120, 164],
        Border: [0, 0, 0],
        A: { Type: 'Action', S: 'URI', URI: PDFString.of(`https://example.org/entry-${i + 1}`) },
      }),
    );
    page.node.set(PDFName.of('Annots'), ctx.obj([...internal, uri]));
  });
  return Buffer.from(await doc.save());
}

/** A PDF without Info metadata whose title, author and language are in its XMP stream. */
export async function xmpPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create({ updateMetadata: false });
  doc.addPage([200, 100]).drawText('xmp only', { x: 10, y: 50, size: 10, font: await doc.embedFont(FONT) });
  const xmp =
    '<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>' +
    '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">' +
    '<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"><dc:title><rdf:Alt>' +
    '<rdf:li xml:lang="x-default">Title From XMP</rdf:li></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li>Xavier Metadata</rdf:li>' +
    '</rdf:Seq></dc:creator><xmp:CreateDate>2020-01-02T03:04:05Z</xmp:CreateDate></rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>';
  const stream = doc.context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' });
  doc.catalog.set(PDFName.of('Metadata'), doc.context.register(stream));
  return Buffer.from(await doc.save());
}

/** A PDF whose trailer has an /Encrypt dictionary that needs a user password (bogus /O and /U). */
export async function encryptedPdf(): Promise<Buffer> {
  const doc = await PDFDocument.create();
  doc.addPage([200, 100]).drawText('secret', { x: 10, y: 50, size: 10, font: await doc.embedFont(FONT) });
  const ctx = doc.context;
  ctx.trailerInfo.Encrypt = ctx.register(
    ctx.obj({ Filter: 'Standard', V: 2, R: 3, Length: 128, P: -3904, O: PDFHexString.of('11'.repeat(32)), U: PDFHexString.of('22'.repeat(32)) }),
  );
  ctx.trailerInfo.ID = ctx.obj([PDFHexString.of('ab'.repeat(16)), PDFHexString.of('ab'.repeat(16))]);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The multi-page PDF cut at 60%: its cross-reference stream and catalog are gone. */
export async function truncatedPdf(): Promise<Buffer> {
  const whole = await multiPagePdf();
  return whole.subarray(0, Math.floor(whole.length * 0.6));
}

/**
 * A small PDF (32 KB) whose one page is a Flate stream of `ops` "q Q" operator pairs (4 bytes each):
 * PDF.js's text extraction parses every one of them. Measured on the 2-core machine: the default
 * 8 million take about 5.8 s, 3 million about 2 s.
 */
export async function spinningPdf(ops = 8_000_000): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const page = doc.addPage([200, 100]);
  const content = deflateSync(Buffer.from(`BT ET ${'q Q '.repeat(ops)}`), { level: 9 });
  const stream = PDFRawStream.of(doc.context.obj({ Filter: 'FlateDecode', Length: content.length }), content);
  page.node.set(PDFName.of('Contents'), doc.context.register(stream));
  return Buffer.from(await doc.save());
}
