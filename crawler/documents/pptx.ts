/**
 * PPTX → page: the slides in presentation order (ppt/presentation.xml's slide list, not the file
 * names), each slide's text with where it starts, slide titles (the title placeholder's text) as
 * headings, hyperlinks (on a run, or on a whole shape) with their text, the core properties.
 * Speaker notes are not read.
 */
import { finishPage, newParts, type PageSinks } from './page.ts';
import { mainPart, packageMeta, relationships, type Relationship } from './ooxml.ts';
import type { DocumentPage, ExtractOptions } from './types.ts';
import { Capture, skipping, walkXml, type XmlHandlers } from './xml.ts';
import type { ZipArchive } from './zip.ts';

export function extractPptx(zip: ZipArchive, options: ExtractOptions): DocumentPage {
  const part = mainPart(zip, 'ppt/presentation.xml');
  const rels = relationships(zip, part);
  const slides: string[] = [];
  walkXml(zip.text(part) ?? '', {
    open(name, a) {
      const r = name === 'p:sldId' ? rels.get(a['r:id'] ?? '') : undefined;
      if (r && !r.external && r.type.endsWith('/slide')) slides.push(r.target);
    },
  });
  const parts = newParts(options);
  const wanted = Math.min(slides.length, Math.max(0, options.maxPages));
  for (let i = 0; i < wanted && !parts.text.full; i++) readSlide(zip, slides[i]!, parts);
  const meta = { ...packageMeta(zip), pages: slides.length };
  return finishPage({ format: 'pptx', meta, paged: true, ...parts, pagesCut: slides.length - parts.text.pageCount }, options);
}

type Shape = { title: boolean; text: Capture; link?: string };

/** mc:Fallback is the copy of an mc:Choice for older readers: its text is read already. */
const SKIPPED = new Set(['mc:Fallback']);

function readSlide(zip: ZipArchive, part: string, sinks: PageSinks): void {
  const slide = new SlideWalk(sinks, relationships(zip, part));
  walkXml(zip.text(part) ?? '', skipping(SKIPPED, slide));
  sinks.text.endPage();
  if (slide.title !== undefined) sinks.headings.add(slide.title);
}

/**
 * The walk over one slide: its text, its title (the first title placeholder's text), and its links,
 * on a run or on a whole shape. A piece of text goes to the page, to every shape it is inside of and
 * to its run.
 */
class SlideWalk implements XmlHandlers {
  title: string | undefined;
  private readonly shapes: Shape[] = [];
  /** The run being read, with the link on it if any. */
  private run: { link?: string; text: Capture } | undefined;
  private inText = false;

  constructor(
    private readonly sinks: PageSinks,
    private readonly rels: ReadonlyMap<string, Relationship>,
  ) {}

  open(name: string, a: Readonly<Record<string, string>>): void {
    switch (name) {
      case 'p:sp':
        this.shapes.push({ title: false, text: new Capture() });
        break;
      case 'p:ph': {
        const sh = this.shapes.at(-1);
        if (sh && (a.type === 'title' || a.type === 'ctrTitle')) sh.title = true;
        break;
      }
      case 'a:r':
      case 'a:fld':
        this.run = { text: new Capture() };
        break;
      case 'a:hlinkClick':
        this.hyperlink(external(this.rels, a['r:id']));
        break;
      case 'a:t':
        this.inText = true;
        break;
      case 'a:br':
        this.emit('\n');
        break;
    }
  }

  text(t: string): void {
    if (this.inText) this.emit(t);
  }

  close(name: string): void {
    switch (name) {
      case 'a:t':
        this.inText = false;
        break;
      case 'a:r':
      case 'a:fld':
        if (this.run?.link) this.sinks.links.add(this.run.link, this.run.text.text);
        this.run = undefined;
        break;
      case 'a:p':
        this.emit('\n');
        break;
      case 'p:sp':
        this.endShape();
        break;
    }
  }

  private emit(s: string): void {
    this.sinks.text.push(s);
    for (const sh of this.shapes) sh.text.add(s);
    this.run?.text.add(s);
  }

  /** A link on the run being read, else on the shape. */
  private hyperlink(href: string | undefined): void {
    if (this.run) this.run.link = href;
    else {
      const sh = this.shapes.at(-1);
      if (sh) sh.link = href;
    }
  }

  /** A shape ends: the first title placeholder's text is the slide's title; a link on the shape takes all its text. */
  private endShape(): void {
    const sh = this.shapes.pop();
    if (sh?.title && this.title === undefined) this.title = sh.text.text;
    if (sh?.link) this.sinks.links.add(sh.link, sh.text.text);
  }
}

function external(rels: ReadonlyMap<string, Relationship>, id: string | undefined): string | undefined {
  const r = id ? rels.get(id) : undefined;
  return r?.external ? r.target : undefined;
}
