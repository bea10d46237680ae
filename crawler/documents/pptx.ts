/**
 * PPTX → page: the slides in presentation order (ppt/presentation.xml's slide list, not the file
 * names), each slide's text with where it starts, slide titles (the title placeholder's text) as
 * headings, hyperlinks (on a run, or on a whole shape) with their text, the core properties.
 * Speaker notes are not read.
 */
import { finishPage, newParts, type HeadingList, type LinkSink, type TextSink } from './page.ts';
import { mainPart, packageMeta, relationships, type Relationship } from './ooxml.ts';
import type { DocumentPage, ExtractOptions } from './types.ts';
import { Capture, walkXml } from './xml.ts';
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

function readSlide(zip: ZipArchive, part: string, sinks: { text: TextSink; headings: HeadingList; links: LinkSink }): void {
  const { text, headings, links } = sinks;
  const rels = relationships(zip, part);
  const shapes: Shape[] = [];
  /** The run being read, with the link on it if any. */
  let run: { link?: string; text: Capture } | undefined;
  let inText = false;
  let title: string | undefined;
  /** Inside mc:Fallback, the copy of an mc:Choice for older readers: its text is already read. */
  let fallback = 0;
  const emit = (s: string): void => {
    text.push(s);
    for (const sh of shapes) sh.text.add(s);
    run?.text.add(s);
  };
  walkXml(zip.text(part) ?? '', {
    open(name, a) {
      if (name === 'mc:Fallback') fallback++;
      if (fallback) return;
      switch (name) {
        case 'p:sp':
          shapes.push({ title: false, text: new Capture() });
          break;
        case 'p:ph': {
          const sh = shapes.at(-1);
          if (sh && (a.type === 'title' || a.type === 'ctrTitle')) sh.title = true;
          break;
        }
        case 'a:r':
        case 'a:fld':
          run = { text: new Capture() };
          break;
        case 'a:hlinkClick': {
          const href = external(rels, a['r:id']);
          if (run) run.link = href;
          else {
            const sh = shapes.at(-1);
            if (sh) sh.link = href;
          }
          break;
        }
        case 'a:t':
          inText = true;
          break;
        case 'a:br':
          emit('\n');
          break;
      }
    },
    text(t) {
      if (inText && !fallback) emit(t);
    },
    close(name) {
      if (name === 'mc:Fallback') fallback--;
      if (fallback) return;
      switch (name) {
        case 'a:t':
          inText = false;
          break;
        case 'a:r':
        case 'a:fld':
          if (run?.link) links.add(run.link, run.text.text);
          run = undefined;
          break;
        case 'a:p':
          emit('\n');
          break;
        case 'p:sp': {
          const sh = shapes.pop();
          if (sh?.title && title === undefined) title = sh.text.text;
          if (sh?.link) links.add(sh.link, sh.text.text);
          break;
        }
      }
    },
  });
  text.endPage();
  if (title !== undefined) headings.add(title);
}

function external(rels: ReadonlyMap<string, Relationship>, id: string | undefined): string | undefined {
  const r = id ? rels.get(id) : undefined;
  return r?.external ? r.target : undefined;
}
