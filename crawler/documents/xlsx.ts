/**
 * XLSX → page: the sheets in workbook order, their names as headings, each sheet's cells row by
 * row (tab between cells, a line per row) with where each sheet starts: shared and inline strings,
 * numbers and booleans as written, a formula's cached value (never its source). Hyperlinks on
 * cells, with the cell's text. At most maxCells cells in all; the rest are counted, and the sheets
 * after the one where the cap bit are not read (counted in pagesCut).
 */
import { finishPage, MAX_CELL_CHARS, newParts, type PageSinks } from './page.ts';
import { mainPart, packageMeta, relationshipOfType, relationships, type Relationship } from './ooxml.ts';
import { DOCUMENT_LIMITS, type DocumentPage, type ExtractOptions } from './types.ts';
import { Capture, walkXml, type XmlHandlers } from './xml.ts';
import type { ZipArchive } from './zip.ts';

type Sheet = { readonly name: string; readonly part: string };

export function extractXlsx(zip: ZipArchive, options: ExtractOptions): DocumentPage {
  const part = mainPart(zip, 'xl/workbook.xml');
  const rels = relationships(zip, part);
  const sheets: Sheet[] = [];
  walkXml(zip.text(part) ?? '', {
    open(name, a) {
      const r = name === 'x:sheet' ? rels.get(a['r:id'] ?? '') : undefined;
      if (r && !r.external) sheets.push({ name: a.name ?? '', part: r.target });
    },
  });
  const strings = sharedStrings(zip, rels);
  const parts = newParts(options);
  const budget = { left: options.maxCells ?? DOCUMENT_LIMITS.maxCells, cut: 0 };
  const wanted = Math.min(sheets.length, Math.max(0, options.maxPages));
  for (let i = 0; i < wanted && budget.left > 0 && !parts.text.full; i++) {
    parts.headings.add(sheets[i]!.name);
    readSheet(zip, sheets[i]!.part, strings, parts, budget);
  }
  const meta = { ...packageMeta(zip), pages: sheets.length };
  return finishPage({ format: 'xlsx', meta, paged: true, ...parts, pagesCut: sheets.length - parts.text.pageCount, cellsCut: budget.cut }, options);
}

/** The shared string table: each x:si's text, phonetic readings (x:rPh) left out. */
function sharedStrings(zip: ZipArchive, rels: ReadonlyMap<string, Relationship>): string[] {
  const strings: string[] = [];
  const xml = zip.text(relationshipOfType(rels, 'sharedStrings')?.target ?? 'xl/sharedStrings.xml');
  if (!xml) return strings;
  let current: string[] | undefined;
  let inText = false;
  let phonetic = 0;
  walkXml(xml, {
    open(name) {
      if (name === 'x:si') current = [];
      else if (name === 'x:rPh') phonetic++;
      else if (name === 'x:t') inText = true;
    },
    text(t) {
      if (inText && !phonetic) current?.push(t);
    },
    close(name) {
      if (name === 'x:si') {
        strings.push(current?.join('') ?? '');
        current = undefined;
      } else if (name === 'x:rPh') phonetic--;
      else if (name === 'x:t') inText = false;
    },
  });
  return strings;
}

/** The cells left to read over all sheets (maxCells), and those past it, counted. */
type CellBudget = { left: number; cut: number };

function readSheet(zip: ZipArchive, part: string, strings: readonly string[], sinks: PageSinks, budget: CellBudget): void {
  const xml = zip.text(part) ?? '';
  // Hyperlinks come after the cells: note which cells carry one before the walk, to keep their text.
  const linked = new Set<string>();
  for (const m of xml.matchAll(/<(?:\w+:)?hyperlink\b[^>]*?\sref="([A-Z]+\d+)/g)) linked.add(m[1]!);
  walkXml(xml, new SheetWalk(sinks, strings, budget, linked, relationships(zip, part)));
  sinks.text.endPage();
}

type Cell = { readonly ref: string; readonly type: string; readonly value: Capture; inline: boolean };

/**
 * The walk over one sheet: its cells row by row (a tab between cells, a line per row) while the
 * budget lasts, then its hyperlinks, each with the text of the cell it is on.
 */
class SheetWalk implements XmlHandlers {
  private cell: Cell | undefined;
  private inValue = false;
  /** Inside phonetic readings (x:rPh): not the cell's text. */
  private phonetic = 0;
  private rowCells = 0;
  /** The text of the cells that carry a hyperlink, by reference (A1). */
  private readonly cellText = new Map<string, string>();

  constructor(
    private readonly sinks: PageSinks,
    private readonly strings: readonly string[],
    private readonly budget: CellBudget,
    /** The references of the cells that carry a hyperlink. */
    private readonly linked: ReadonlySet<string>,
    private readonly rels: ReadonlyMap<string, Relationship>,
  ) {}

  open(name: string, a: Readonly<Record<string, string>>): void {
    switch (name) {
      case 'x:c':
        this.cell = { ref: a.r ?? '', type: a.t ?? 'n', value: new Capture(MAX_CELL_CHARS), inline: false };
        break;
      case 'x:v':
        this.inValue = true;
        break;
      case 'x:is':
        if (this.cell) this.cell.inline = true;
        break;
      case 'x:t':
        if (this.cell?.inline) this.inValue = true;
        break;
      case 'x:rPh':
        this.phonetic++;
        break;
      case 'x:hyperlink':
        this.hyperlink(a);
        break;
    }
  }

  text(t: string): void {
    if (this.inValue && this.cell && !this.phonetic) this.cell.value.add(t);
  }

  close(name: string): void {
    switch (name) {
      case 'x:v':
      case 'x:t':
        this.inValue = false;
        break;
      case 'x:rPh':
        this.phonetic--;
        break;
      case 'x:c':
        this.endCell();
        break;
      case 'x:row':
        if (this.rowCells) this.sinks.text.push('\n');
        this.rowCells = 0;
        break;
    }
  }

  /** A cell's value is the row's next cell while the budget lasts; an empty cell is no cell. */
  private endCell(): void {
    const cell = this.cell;
    const value = cell ? cellValue(cell.type, cell.value.text, this.strings) : '';
    if (value && cell) {
      if (this.budget.left > 0) {
        this.budget.left--;
        this.sinks.text.push(this.rowCells++ ? `\t${value}` : value);
        if (this.linked.has(cell.ref)) this.cellText.set(cell.ref, value);
      } else this.budget.cut++;
    }
    this.cell = undefined;
  }

  /** An external hyperlink, with its display text, else the text of the (first) cell it is on. */
  private hyperlink(a: Readonly<Record<string, string>>): void {
    const r = this.rels.get(a['r:id'] ?? '');
    if (r?.external) this.sinks.links.add(r.target, a.display ?? this.cellText.get(a.ref?.split(':')[0] ?? '') ?? '');
  }
}

/** A cell's text by its type: s (shared string index), b (boolean), inlineStr, str, e, n. */
function cellValue(type: string, raw: string, strings: readonly string[]): string {
  switch (type) {
    case 's':
      return strings[Number(raw)] ?? '';
    case 'b':
      return raw.trim() === '' ? '' : raw.trim() === '1' ? 'TRUE' : 'FALSE';
    default:
      return raw.trim();
  }
}
