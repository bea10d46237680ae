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
import { finishPage, newParts, type LinkSink, type PageSinks } from './page.ts';
import { mainPart, packageMeta, relationshipOfType, relationships, type Relationship } from './ooxml.ts';
import type { DocumentPage, ExtractOptions } from './types.ts';
import { Capture, skipping, walkXml, type XmlHandlers } from './xml.ts';
import type { ZipArchive } from './zip.ts';

/** Heading levels that count (as in HTML: h1–h3); 0 is the Title style. */
const MAX_LEVEL = 3;

/** Word's heading levels: styles Heading1–Heading9, w:outlineLvl 0–8 (9 is body text). */
const WORD_HEADING_LEVELS = 9;

/**
 * A field's instruction is kept up to this many characters: a HYPERLINK instruction is a URL and a
 * few switches, and a field's instruction text is not otherwise bounded.
 */
const MAX_INSTRUCTION_CHARS = 2000;

/** Elements whose text is not the document's: deleted or moved-away runs (tracked changes), the fallback copy of a drawing. */
const SKIPPED = new Set(['w:del', 'w:moveFrom', 'mc:Fallback']);

type Paragraph = { level: number | undefined; text: Capture };
type Anchor = { href: string | undefined; text: Capture };
/** A complex field (w:fldChar begin … separate … end): its instruction, then its result text. */
type Field = { instr: string; link?: string; result?: Capture };

export function extractDocx(zip: ZipArchive, options: ExtractOptions): DocumentPage {
  const part = mainPart(zip, 'word/document.xml');
  const rels = relationships(zip, part);
  const parts = newParts(options);
  walkXml(zip.text(part) ?? '', skipping(SKIPPED, new DocumentBody(parts, rels, styleLevels(zip, rels))));
  return finishPage({ format: 'docx', meta: packageMeta(zip), paged: false, ...parts }, options);
}

/**
 * The walk over word/document.xml, deleted runs and fallback copies left out (`skipping`): what each
 * element adds to the text, the headings and the links. A piece of text goes to the page and to every
 * paragraph, hyperlink and field result it is inside of.
 */
class DocumentBody implements XmlHandlers {
  private readonly paragraphs: Paragraph[] = [];
  private readonly anchors: Anchor[] = [];
  private readonly fields: Field[] = [];
  private inText = false;
  private inInstr = false;
  /** Inside a run: a w:tab there is a tab character (elsewhere, a tab stop's definition). */
  private runs = 0;

  constructor(
    private readonly sinks: PageSinks,
    private readonly rels: ReadonlyMap<string, Relationship>,
    /** Style id → heading level (styleLevels). */
    private readonly levels: ReadonlyMap<string, number>,
  ) {}

  open(name: string, a: Readonly<Record<string, string>>): void {
    switch (name) {
      case 'w:r':
        this.runs++;
        break;
      case 'w:p':
        this.paragraphs.push({ level: undefined, text: new Capture() });
        break;
      case 'w:pStyle':
        this.paragraphLevel(this.levels.get(a['w:val'] ?? ''));
        break;
      case 'w:outlineLvl':
        this.paragraphLevel(outlineLevel(a['w:val']));
        break;
      case 'w:t':
        this.inText = true;
        break;
      case 'w:tab':
        if (this.runs) this.emit('\t');
        break;
      case 'w:br':
      case 'w:cr':
        this.emit('\n');
        break;
      case 'w:noBreakHyphen':
        this.emit('-');
        break;
      case 'w:hyperlink':
        this.anchors.push({ href: external(this.rels, a['r:id']), text: new Capture() });
        break;
      case 'w:fldSimple':
        this.anchors.push({ href: hyperlinkField(a['w:instr'] ?? ''), text: new Capture() });
        break;
      case 'w:fldChar':
        complexField(a['w:fldCharType'], this.fields, this.sinks.links);
        break;
      case 'w:instrText':
        this.inInstr = true;
        break;
    }
  }

  text(t: string): void {
    if (this.inText) this.emit(t);
    else if (this.inInstr) this.instruction(t);
  }

  close(name: string): void {
    switch (name) {
      case 'w:r':
        this.runs--;
        break;
      case 'w:t':
        this.inText = false;
        break;
      case 'w:instrText':
        this.inInstr = false;
        break;
      case 'w:p':
        this.endParagraph();
        break;
      case 'w:hyperlink':
      case 'w:fldSimple': {
        const anchor = this.anchors.pop();
        if (anchor) this.sinks.links.add(anchor.href, anchor.text.text);
        break;
      }
    }
  }

  private emit(s: string): void {
    this.sinks.text.push(s);
    for (const p of this.paragraphs) p.text.add(s);
    for (const a of this.anchors) a.text.add(s);
    for (const f of this.fields) f.result?.add(s);
  }

  /** The paragraph's heading level, from its style or its outline level: the first one given counts. */
  private paragraphLevel(level: number | undefined): void {
    const p = this.paragraphs.at(-1);
    if (p && p.level === undefined) p.level = level;
  }

  /** A paragraph ends a line, and is a heading when its level is one that counts. */
  private endParagraph(): void {
    const p = this.paragraphs.pop();
    this.sinks.text.push('\n');
    if (p && p.level !== undefined && p.level <= MAX_LEVEL) this.sinks.headings.add(p.text.text);
  }

  /** Instruction text of the innermost field (HYPERLINK "…"), bounded. */
  private instruction(t: string): void {
    const f = this.fields.at(-1);
    if (f && f.instr.length < MAX_INSTRUCTION_CHARS) f.instr += t;
  }
}

/** Style id → heading level (0 for Title), from the ids' usual names and from styles.xml. */
function styleLevels(zip: ZipArchive, rels: ReadonlyMap<string, Relationship>): Map<string, number> {
  const levels = new Map<string, number>([['Title', 0]]);
  for (let n = 1; n <= WORD_HEADING_LEVELS; n++) levels.set(`Heading${n}`, n);
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
  return Number.isInteger(n) && n >= 0 && n < WORD_HEADING_LEVELS ? n + 1 : undefined;
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
