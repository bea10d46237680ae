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
import { finishPage, newParts, type DocumentMeta } from './page.ts';
import { DOCUMENT_LIMITS, DocumentRefusal, type DocumentPage, type ExtractOptions } from './types.ts';
import { Capture, readFields, walkXml } from './xml.ts';
import type { ZipArchive } from './zip.ts';

export type OdfFormat = 'odt' | 'odp' | 'ods';

/** Comments, speaker notes, tracked deletions, footnote numbers, images' alternative texts. */
const SKIPPED = new Set(['office:annotation', 'presentation:notes', 'text:tracked-changes', 'text:note-citation', 'svg:title', 'svg:desc']);
const MAX_LEVEL = 3;
const GENERATED_NAME = /^(page|slide)\s*\d+$/i;

export function extractOdf(zip: ZipArchive, format: OdfFormat, options: ExtractOptions): DocumentPage {
  const content = zip.text('content.xml');
  if (content === undefined) throw new DocumentRefusal('damaged', 'the OpenDocument file has no content.xml');
  const parts = newParts(options);
  const { text, headings, links } = parts;
  const pageElement = format === 'odp' ? 'draw:page' : format === 'ods' ? 'table:table' : undefined;
  let cellBudget = options.maxCells ?? DOCUMENT_LIMITS.maxCells;
  let cellsCut = 0;
  let pages = 0;
  let skip = 0;
  /** Inside a page (slide or sheet) that is read; its title capture and name. */
  let page: { title?: Capture; name: string } | undefined;
  let pageDepth = 0;
  let cell: Capture | undefined;
  let rowCells = 0;
  const captures: Capture[] = [];
  const headingCaptures: (Capture | undefined)[] = [];
  const anchors: { href: string | undefined; text: Capture }[] = [];
  // content.xml's automatic styles come before the body; the named ones they derive from are in styles.xml.
  const styles = new ParagraphStyles();
  styles.read(zip.text('styles.xml'));

  const emit = (s: string): void => {
    if (cell) cell.add(s);
    else text.push(s);
    for (const c of captures) c.add(s);
  };

  walkXml(content, {
    open(name, a) {
      if (pageElement && name === pageElement && pageDepth++ === 0) {
        pages++;
        if (pages > options.maxPages || text.full || cellBudget <= 0) skip++;
        else page = { name: a['draw:name'] ?? a['table:name'] ?? '' };
      }
      if (SKIPPED.has(name)) skip++;
      if (skip) return;
      switch (name) {
        case 'style:style':
          if (a['style:family'] === 'paragraph' && a['style:name']) styles.add(a['style:name'], a['style:parent-style-name'], a['style:default-outline-level']);
          break;
        case 'text:p':
        case 'text:h': {
          const level = name === 'text:h' ? Number(a['text:outline-level'] ?? 1) : styles.level(a['text:style-name']);
          const h = level !== undefined && level <= MAX_LEVEL ? new Capture() : undefined;
          headingCaptures.push(h);
          if (h) captures.push(h);
          break;
        }
        case 'text:s':
          emit(' ');
          break;
        case 'text:tab':
          emit('\t');
          break;
        case 'text:line-break':
          emit('\n');
          break;
        case 'text:a': {
          const anchor = { href: a['xlink:href'], text: new Capture() };
          anchors.push(anchor);
          captures.push(anchor.text);
          break;
        }
        case 'draw:frame':
          if (page && format === 'odp' && a['presentation:class'] === 'title' && !page.title) {
            page.title = new Capture();
            captures.push(page.title);
          }
          break;
        case 'table:table-cell':
        case 'table:covered-table-cell':
          if (format === 'ods' && page) cell = new Capture(32_768);
          break;
      }
    },
    text(t) {
      if (!skip) emit(t);
    },
    close(name) {
      if (!skip) closeElement(name);
      if (SKIPPED.has(name)) skip--;
      if (pageElement && name === pageElement && --pageDepth === 0) {
        if (page) {
          text.endPage();
          const title = page.title?.text.trim() || (GENERATED_NAME.test(page.name) ? '' : page.name);
          headings.add(title);
        } else skip--;
        page = undefined;
      }
    },
  });

  function closeElement(name: string): void {
    switch (name) {
      case 'text:p':
      case 'text:h': {
        emit('\n');
        const h = headingCaptures.pop();
        if (h) {
          captures.splice(captures.indexOf(h), 1);
          headings.add(h.text);
        }
        break;
      }
      case 'text:a': {
        const anchor = anchors.pop();
        if (anchor) {
          captures.splice(captures.indexOf(anchor.text), 1);
          links.add(anchor.href, anchor.text.text);
        }
        break;
      }
      case 'draw:frame':
        if (page?.title) {
          const i = captures.indexOf(page.title);
          if (i >= 0) captures.splice(i, 1);
        }
        break;
      case 'table:table-cell':
      case 'table:covered-table-cell': {
        const value = cell?.text.replace(/\s+/g, ' ').trim();
        cell = undefined;
        if (!value) break;
        if (cellBudget > 0) {
          cellBudget--;
          text.push(rowCells++ ? `\t${value}` : value);
        } else cellsCut++;
        break;
      }
      case 'table:table-row':
        if (rowCells) text.push('\n');
        rowCells = 0;
        break;
    }
  }

  const meta = odfMeta(zip);
  const paged = format !== 'odt';
  return finishPage({ format, meta: paged ? { ...meta, pages } : meta, paged, ...parts, pagesCut: paged ? pages - text.pageCount : 0, cellsCut }, options);
}

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
    for (let s = style, steps = 0; s && steps < 8; s = this.parents.get(s), steps++) {
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
