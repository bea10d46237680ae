/**
 * OpenDocument (ODT, ODP, ODS) → page, from content.xml and meta.xml.
 *
 * One walk for the three: paragraphs and headings (text:p, text:h) as lines, spans inline,
 * text:s / text:tab / text:line-break as the spaces and breaks they stand for, links (text:a) with
 * their text. An ODT flows, its headings of outline level 1–3 are headings; an ODP is paged by
 * draw:page, each slide's title frame (else its name, unless a generated "pageN") a heading; an
 * ODS is paged by table:table, each sheet's name a heading, a cell per tab, a row per line. A
 * repeated row or cell (number-rows-repeated, number-columns-repeated, often a million empty ones)
 * counts once. Comments, speaker notes, tracked deletions and images' descriptions are not the
 * document's text.
 */
import { finishPage, MAX_CELL_CHARS, newParts, type DocumentMeta, type PageSinks } from './page.ts';
import { DOCUMENT_LIMITS, DocumentRefusal, type DocumentPage, type ExtractOptions } from './types.ts';
import { Capture, readFields, walkXml, type XmlHandlers } from './xml.ts';
import type { ZipArchive } from './zip.ts';

export type OdfFormat = 'odt' | 'odp' | 'ods';

/** Comments, speaker notes, tracked deletions, footnote numbers, images' alternative texts. */
const SKIPPED = new Set(['office:annotation', 'presentation:notes', 'text:tracked-changes', 'text:note-citation', 'svg:title', 'svg:desc']);
/** Heading levels that count (as in HTML: h1–h3); 0 is the Title style. */
const MAX_LEVEL = 3;
const GENERATED_NAME = /^(page|slide)\s*\d+$/i;
/** The element that makes a page of each paged format: a slide, a sheet. */
const PAGE_ELEMENT: Readonly<Record<OdfFormat, string | undefined>> = { odt: undefined, odp: 'draw:page', ods: 'table:table' };

export function extractOdf(zip: ZipArchive, format: OdfFormat, options: ExtractOptions): DocumentPage {
  const content = zip.text('content.xml');
  if (content === undefined) throw new DocumentRefusal('damaged', 'the OpenDocument file has no content.xml');
  const parts = newParts(options);
  // content.xml's automatic styles come before the body; the named ones they derive from are in styles.xml.
  const styles = new ParagraphStyles();
  styles.read(zip.text('styles.xml'));
  const walk = new ContentWalk(format, parts, styles, options);
  walkXml(content, walk);
  const meta = odfMeta(zip);
  const paged = format !== 'odt';
  const { pages, cellsCut } = walk;
  return finishPage(
    { format, meta: paged ? { ...meta, pages } : meta, paged, ...parts, pagesCut: paged ? pages - parts.text.pageCount : 0, cellsCut },
    options,
  );
}

/** Inside a page (slide or sheet) that is read: its name, and its title frame's text once one opened. */
type Page = { title?: Capture; readonly name: string };

/**
 * The walk over content.xml. A page (slide, sheet) past maxPages, or once the text or the cells are
 * spent, is skipped like the elements that are not the document's text (SKIPPED): nothing inside
 * it is read. A piece of text goes to the page's text (or to the cell it is in) and to every
 * heading, link and slide title it is inside of.
 */
class ContentWalk implements XmlHandlers {
  /** Pages seen, read or not. */
  pages = 0;
  /** Cells not read: past maxCells. */
  cellsCut = 0;
  private cellBudget: number;
  private readonly pageElement: string | undefined;
  /** Depth inside skipped pages and SKIPPED elements: nothing is read while above 0. */
  private skip = 0;
  private page: Page | undefined;
  /** Depth inside page elements (a table inside a sheet's cell is not a page of its own). */
  private pageDepth = 0;
  private cell: Capture | undefined;
  private rowCells = 0;
  /** Every capture open: the text goes to each. */
  private readonly captures: Capture[] = [];
  /** The open paragraphs' captures, innermost last: undefined for one that is not a heading. */
  private readonly headingCaptures: (Capture | undefined)[] = [];
  private readonly anchors: { href: string | undefined; text: Capture }[] = [];

  constructor(
    private readonly format: OdfFormat,
    private readonly sinks: PageSinks,
    private readonly styles: ParagraphStyles,
    private readonly options: ExtractOptions,
  ) {
    this.pageElement = PAGE_ELEMENT[format];
    this.cellBudget = options.maxCells ?? DOCUMENT_LIMITS.maxCells;
  }

  open(name: string, a: Readonly<Record<string, string>>): void {
    if (name === this.pageElement && this.pageDepth++ === 0) this.startPage(a);
    if (SKIPPED.has(name)) this.skip++;
    if (!this.skip) this.openElement(name, a);
  }

  text(t: string): void {
    if (!this.skip) this.emit(t);
  }

  close(name: string): void {
    if (!this.skip) this.closeElement(name);
    if (SKIPPED.has(name)) this.skip--;
    if (name === this.pageElement && --this.pageDepth === 0) this.endPage();
  }

  private openElement(name: string, a: Readonly<Record<string, string>>): void {
    switch (name) {
      case 'style:style':
        if (a['style:family'] === 'paragraph' && a['style:name'])
          this.styles.add(a['style:name'], a['style:parent-style-name'], a['style:default-outline-level']);
        break;
      case 'text:p':
      case 'text:h':
        this.startParagraph(name === 'text:h' ? Number(a['text:outline-level'] ?? 1) : this.styles.level(a['text:style-name']));
        break;
      case 'text:s':
        this.emit(' ');
        break;
      case 'text:tab':
        this.emit('\t');
        break;
      case 'text:line-break':
        this.emit('\n');
        break;
      case 'text:a':
        this.startLink(a['xlink:href']);
        break;
      case 'draw:frame':
        if (a['presentation:class'] === 'title') this.startSlideTitle();
        break;
      case 'table:table-cell':
      case 'table:covered-table-cell':
        if (this.format === 'ods' && this.page) this.cell = new Capture(MAX_CELL_CHARS);
        break;
    }
  }

  private closeElement(name: string): void {
    switch (name) {
      case 'text:p':
      case 'text:h':
        this.endParagraph();
        break;
      case 'text:a':
        this.endLink();
        break;
      case 'draw:frame':
        if (this.page?.title) this.release(this.page.title);
        break;
      case 'table:table-cell':
      case 'table:covered-table-cell':
        this.endCell();
        break;
      case 'table:table-row':
        if (this.rowCells) this.sinks.text.push('\n');
        this.rowCells = 0;
        break;
    }
  }

  private emit(s: string): void {
    if (this.cell) this.cell.add(s);
    else this.sinks.text.push(s);
    for (const c of this.captures) c.add(s);
  }

  private capture(c: Capture): Capture {
    this.captures.push(c);
    return c;
  }

  private release(c: Capture): void {
    const i = this.captures.indexOf(c);
    if (i >= 0) this.captures.splice(i, 1);
  }

  /** A page element opens: read, or skipped when past maxPages or once the text or the cells are spent. */
  private startPage(a: Readonly<Record<string, string>>): void {
    this.pages++;
    if (this.pages > this.options.maxPages || this.sinks.text.full || this.cellBudget <= 0) this.skip++;
    else this.page = { name: a['draw:name'] ?? a['table:name'] ?? '' };
  }

  /** A page read ends its page of text, and its title is a heading: the title frame's text, else its name unless a generated one. */
  private endPage(): void {
    if (this.page) {
      this.sinks.text.endPage();
      this.sinks.headings.add(this.page.title?.text.trim() || (GENERATED_NAME.test(this.page.name) ? '' : this.page.name));
    } else this.skip--;
    this.page = undefined;
  }

  /** A paragraph of a heading level that counts is captured as a heading. */
  private startParagraph(level: number | undefined): void {
    this.headingCaptures.push(level !== undefined && level <= MAX_LEVEL ? this.capture(new Capture()) : undefined);
  }

  private endParagraph(): void {
    this.emit('\n');
    const h = this.headingCaptures.pop();
    if (h) {
      this.release(h);
      this.sinks.headings.add(h.text);
    }
  }

  private startLink(href: string | undefined): void {
    this.anchors.push({ href, text: this.capture(new Capture()) });
  }

  private endLink(): void {
    const anchor = this.anchors.pop();
    if (anchor) {
      this.release(anchor.text);
      this.sinks.links.add(anchor.href, anchor.text.text);
    }
  }

  /** A slide's first title frame: its text is the slide's heading. */
  private startSlideTitle(): void {
    if (this.page && this.format === 'odp' && !this.page.title) this.page.title = this.capture(new Capture());
  }

  /** A cell's text, squashed, is the row's next cell while maxCells allows; an empty cell is no cell. */
  private endCell(): void {
    const value = this.cell?.text.replace(/\s+/g, ' ').trim();
    this.cell = undefined;
    if (!value) return;
    if (this.cellBudget > 0) {
      this.cellBudget--;
      this.sinks.text.push(this.rowCells++ ? `\t${value}` : value);
    } else this.cellsCut++;
  }
}

/** A style's parents are followed at most this far: a file whose styles derive from each other in a loop still ends. */
const MAX_STYLE_ANCESTORS = 8;

/**
 * Paragraph styles that make a text:p a heading: LibreOffice writes a heading that starts a new
 * page as a text:p whose automatic style derives from "Heading 1" (Heading_20_1), not as a text:h.
 */
class ParagraphStyles {
  private readonly parents = new Map<string, string>();
  private readonly levels = new Map<string, number>();

  add(name: string, parent: string | undefined, outlineLevel: string | undefined): void {
    if (parent) this.parents.set(name, parent);
    const level = Number(outlineLevel);
    if (Number.isInteger(level) && level > 0) this.levels.set(name, level);
  }

  read(xml: string | undefined): void {
    if (!xml) return;
    walkXml(xml, {
      open: (name, a) => {
        if (name === 'style:style' && a['style:family'] === 'paragraph' && a['style:name'])
          this.add(a['style:name'], a['style:parent-style-name'], a['style:default-outline-level']);
      },
    });
  }

  /** The heading level of a paragraph style (0 for Title), following its parents a few steps. */
  level(style: string | undefined): number | undefined {
    for (let s = style, steps = 0; s && steps < MAX_STYLE_ANCESTORS; s = this.parents.get(s), steps++) {
      const known = this.levels.get(s);
      if (known !== undefined) return known;
      const m = /^(?:Heading_20_(\d)|(Title))$/.exec(s);
      if (m) return m[2] ? 0 : Number(m[1]);
    }
    return undefined;
  }
}

const META_FIELDS = new Set([
  'dc:title',
  'dc:description',
  'dc:subject',
  'meta:keyword',
  'dc:creator',
  'meta:initial-creator',
  'meta:creation-date',
  'dc:date',
  'dc:language',
]);

function odfMeta(zip: ZipArchive): DocumentMeta {
  const xml = zip.text('meta.xml');
  if (!xml) return {};
  let pages: number | undefined;
  const f = readFields(xml, META_FIELDS, new Set(['meta:keyword']), (name, a) => {
    if (name === 'meta:document-statistic' && a['meta:page-count']) pages = Number(a['meta:page-count']);
  });
  return {
    title: f.get('dc:title'),
    subject: f.get('dc:subject') ?? f.get('dc:description'),
    keywords: f.get('meta:keyword'),
    author: f.get('dc:creator') ?? f.get('meta:initial-creator'),
    created: f.get('meta:creation-date'),
    modified: f.get('dc:date'),
    lang: f.get('dc:language'),
    ...(pages !== undefined && Number.isSafeInteger(pages) && pages > 0 ? { pages } : {}),
  };
}
