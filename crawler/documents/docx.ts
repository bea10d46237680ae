/**
 * DOCX → page: word/document.xml's paragraphs as lines (table cells and text boxes included),
 * Title and Heading 1–3 paragraphs as headings, hyperlinks (w:hyperlink, and HYPERLINK fields) with
 * their text, the core properties and the declared page count.
 *
 * Headings are known by their style: its id (Heading1, Title) or, for localized ids such as
 * "berschrift1", its name in styles.xml ("heading 1"), or an outline level on the style or the
 * paragraph. mammoth converts DOCX to HTML well, but brings its own zip reader (JSZip, which inflates
 * without a bound) and builds a document tree; this is one streaming walk over the bounded reader.
 */
import { finishPage, newParts, type LinkSink } from './page.ts';
import { mainPart, packageMeta, relationshipOfType, relationships, type Relationship } from './ooxml.ts';
import type { DocumentPage, ExtractOptions } from './types.ts';
import { Capture, walkXml } from './xml.ts';
import type { ZipArchive } from './zip.ts';

/** Heading levels that count (as in HTML: h1–h3); 0 is the Title style. */
const MAX_LEVEL = 3;

/** Elements whose text is not the document's: deleted or moved-away runs (tracked changes), the fallback copy of a drawing. */
const SKIPPED = new Set(['w:del', 'w:moveFrom', 'mc:Fallback']);

type Paragraph = { level: number | undefined; text: Capture };
/** A complex field (w:fldChar begin … separate … end): its instruction, then its result text. */
type Field = { instr: string; link?: string; result?: Capture };

export function extractDocx(zip: ZipArchive, options: ExtractOptions): DocumentPage {
  const part = mainPart(zip, 'word/document.xml');
  const rels = relationships(zip, part);
  const levels = styleLevels(zip, rels);
  const parts = newParts(options);
  const { text, headings, links } = parts;
  const paragraphs: Paragraph[] = [];
  const anchors: { href: string | undefined; text: Capture }[] = [];
  const fields: Field[] = [];
  let inText = false;
  let inInstr = false;
  /** Inside a run: a w:tab there is a tab character (elsewhere, a tab stop's definition). */
  let runs = 0;
  /** Depth inside elements whose text is not the document's (deleted runs, fallback copies). */
  let skip = 0;

  const emit = (s: string): void => {
    text.push(s);
    for (const p of paragraphs) p.text.add(s);
    for (const a of anchors) a.text.add(s);
    for (const f of fields) f.result?.add(s);
  };

  walkXml(zip.text(part) ?? '', {
    open(name, a) {
      if (SKIPPED.has(name)) skip++;
      if (skip) return;
      switch (name) {
        case 'w:r':
          runs++;
          break;
        case 'w:p':
          paragraphs.push({ level: undefined, text: new Capture() });
          break;
        case 'w:pStyle': {
          const p = paragraphs.at(-1);
          if (p && p.level === undefined) p.level = levels.get(a['w:val'] ?? '');
          break;
        }
        case 'w:outlineLvl': {
          const p = paragraphs.at(-1);
          if (p && p.level === undefined) p.level = outlineLevel(a['w:val']);
          break;
        }
        case 'w:t':
          inText = true;
          break;
        case 'w:tab':
          if (runs) emit('\t');
          break;
        case 'w:br':
        case 'w:cr':
          emit('\n');
          break;
        case 'w:noBreakHyphen':
          emit('-');
          break;
        case 'w:hyperlink':
          anchors.push({ href: external(rels, a['r:id']), text: new Capture() });
          break;
        case 'w:fldSimple':
          anchors.push({ href: hyperlinkField(a['w:instr'] ?? ''), text: new Capture() });
          break;
        case 'w:fldChar':
          complexField(a['w:fldCharType'], fields, links);
          break;
        case 'w:instrText':
          inInstr = true;
          break;
      }
    },
    text(t) {
      if (skip) return;
      if (inText) emit(t);
      else if (inInstr) {
        const f = fields.at(-1);
        if (f && f.instr.length < 2000) f.instr += t;
      }
    },
    close(name) {
      if (SKIPPED.has(name)) {
        skip--;
        return;
      }
      if (skip) return;
      switch (name) {
        case 'w:r':
          runs--;
          break;
        case 'w:t':
          inText = false;
          break;
        case 'w:instrText':
          inInstr = false;
          break;
        case 'w:p': {
          const p = paragraphs.pop();
          text.push('\n');
          if (p && p.level !== undefined && p.level <= MAX_LEVEL) headings.add(p.text.text);
          break;
        }
        case 'w:hyperlink':
        case 'w:fldSimple': {
          const anchor = anchors.pop();
          if (anchor) links.add(anchor.href, anchor.text.text);
          break;
        }
      }
    },
  });
  return finishPage({ format: 'docx', meta: packageMeta(zip), paged: false, ...parts }, options);
}

/** Style id → heading level (0 for Title), from the ids' usual names and from styles.xml. */
function styleLevels(zip: ZipArchive, rels: ReadonlyMap<string, Relationship>): Map<string, number> {
  const levels = new Map<string, number>([['Title', 0]]);
  for (let n = 1; n <= 9; n++) levels.set(`Heading${n}`, n);
  const stylesPart = relationshipOfType(rels, 'styles')?.target ?? 'word/styles.xml';
  const xml = zip.text(stylesPart);
  if (!xml) return levels;
  let id: string | undefined;
  walkXml(xml, {
    open(name, a) {
      if (name === 'w:style') id = a['w:type'] === 'paragraph' ? a['w:styleId'] : undefined;
      else if (id && name === 'w:name') {
        const m = /^(?:heading\s*(\d)|(title))$/i.exec((a['w:val'] ?? '').trim());
        if (m) levels.set(id, m[2] ? 0 : Number(m[1]));
      } else if (id && name === 'w:outlineLvl' && !levels.has(id)) {
        const level = outlineLevel(a['w:val']);
        if (level !== undefined) levels.set(id, level);
      }
    },
    close(name) {
      if (name === 'w:style') id = undefined;
    },
  });
  return levels;
}

/** w:outlineLvl counts from 0 (level 1); 9 is body text. */
function outlineLevel(val: string | undefined): number | undefined {
  const n = Number(val);
  return Number.isInteger(n) && n >= 0 && n < 9 ? n + 1 : undefined;
}

function external(rels: ReadonlyMap<string, Relationship>, id: string | undefined): string | undefined {
  const r = id ? rels.get(id) : undefined;
  return r?.external && r.type.endsWith('/hyperlink') ? r.target : undefined;
}

/** `HYPERLINK "https://…" \o "tip"` → the URL; a link inside the document (`\l`) is none. */
function hyperlinkField(instr: string): string | undefined {
  const m = /^\s*HYPERLINK\s+(?!\\l)"?([^"\s]+)"?/i.exec(instr);
  return m?.[1];
}

/** A complex field's begin, separate and end: a HYPERLINK field's result text is its anchor. */
function complexField(type: string | undefined, fields: Field[], links: LinkSink): void {
  if (type === 'begin') fields.push({ instr: '' });
  else if (type === 'separate') {
    const f = fields.at(-1);
    if (f && !f.result) {
      f.link = hyperlinkField(f.instr);
      f.result = new Capture();
    }
  } else if (type === 'end') {
    const f = fields.pop();
    if (f?.link && f.result) links.add(f.link, f.result.text);
  }
}
