/**
 * XLSX → page: the sheets in workbook order, their names as headings, each sheet's cells row by
 * row (tab between cells, a line per row) with where each sheet starts: shared and inline strings,
 * numbers and booleans as written, a formula's cached value (never its source). Hyperlinks on
 * cells, with the cell's text. At most maxCells cells in all; the rest are counted, and the sheets
 * after the one where the cap bit are not read (counted in pagesCut).
 */
import { finishPage, newParts } from './page.ts';
import { mainPart, packageMeta, relationshipOfType, relationships, type Relationship } from './ooxml.ts';
import { DOCUMENT_LIMITS, type DocumentPage, type ExtractOptions } from './types.ts';
import { Capture, walkXml } from './xml.ts';
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

function readSheet(zip: ZipArchive, part: string, strings: readonly string[], sinks: ReturnType<typeof newParts>, budget: { left: number; cut: number }): void {
  const xml = zip.text(part) ?? '';
  const { text, links } = sinks;
  // Hyperlinks come after the cells: note which cells carry one before the walk, to keep their text.
  const linked = new Set<string>();
  for (const m of xml.matchAll(/<(?:\w+:)?hyperlink\b[^>]*?\sref="([A-Z]+\d+)/g)) linked.add(m[1]!);
  const cellText = new Map<string, string>();
  const rels = relationships(zip, part);
  let cell: { ref: string; type: string; value: Capture; inline: boolean } | undefined;
  let inValue = false;
  let phonetic = 0;
  let rowCells = 0;
  walkXml(xml, {
    open(name, a) {
      switch (name) {
        case 'x:c':
          cell = { ref: a.r ?? '', type: a.t ?? 'n', value: new Capture(32_768), inline: false };
          break;
        case 'x:v':
          inValue = true;
          break;
        case 'x:is':
          if (cell) cell.inline = true;
          break;
        case 'x:t':
          if (cell?.inline) inValue = true;
          break;
        case 'x:rPh':
          phonetic++;
          break;
        case 'x:hyperlink': {
          const r = rels.get(a['r:id'] ?? '');
          if (r?.external) links.add(r.target, a.display ?? cellText.get(a.ref?.split(':')[0] ?? '') ?? '');
          break;
        }
      }
    },
    text(t) {
      if (inValue && cell && !phonetic) cell.value.add(t);
    },
    close(name) {
      switch (name) {
        case 'x:v':
        case 'x:t':
          inValue = false;
          break;
        case 'x:rPh':
          phonetic--;
          break;
        case 'x:c': {
          const value = cell ? cellValue(cell.type, cell.value.text, strings) : '';
          if (value && cell) {
            if (budget.left > 0) {
              budget.left--;
              text.push(rowCells++ ? `\t${value}` : value);
              if (linked.has(cell.ref)) cellText.set(cell.ref, value);
            } else budget.cut++;
          }
          cell = undefined;
          break;
        }
        case 'x:row':
          if (rowCells) text.push('\n');
          rowCells = 0;
          break;
      }
    },
  });
  text.endPage();
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
