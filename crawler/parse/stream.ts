/**
 * The page walked as a stream: htmlparser2's events go straight to the collector, and no tree is
 * built — the events are the DOM walk's visits in the same order (an element opens, its content
 * comes, it closes). What the DOM would have given is rebuilt where it differs:
 *   - a run of text is one DOM text node: htmlparser2 reports text in pieces (at entities), which
 *     the DOM joins until anything else comes (a tag, a comment, a doctype), so the pieces are held
 *     until then;
 *   - a subtree the walk leaves unwalked (a `<title>`, void elements) is counted through, its text
 *     kept where the rules want all the text under an element (`<title>`, `<noscript>`);
 *   - a close without its open (a tag cut off by the end of the page, which htmlparser2 still
 *     closes) is ignored at the top.
 * The host's extract.exclude selectors are tested as each element opens (selectors.ts).
 */
import { Parser } from 'htmlparser2';
import { Enter, topFrame, type Frame, type PageCollector } from './collect.ts';
import type { ElementTest, StreamElement } from './selectors.ts';

/** As tree.ts's cheerio parses: HTML mode, entities decoded. */
const PARSER_OPTIONS = { xmlMode: false, decodeEntities: true } as const;

export function walkStream(html: string, c: PageCollector, exclude: ElementTest | undefined): void {
  // The frames of the open elements, reused by depth: no object per element.
  const frames: Frame[] = [topFrame()];
  let depth = 0;
  /** Depth inside a subtree left unwalked (0: walking). */
  let skipped = 0;
  /** The text of the `<title>` being skipped, while one is. */
  let title: string | undefined;
  /** The text of the outermost `<noscript>` being read, and its depth. (An inner one's text is part of it: the test that reads it finds in the outer whatever it finds in the inner.) */
  let noscript: string | undefined;
  let noscriptDepth = -1;
  /** The pieces of the current run of text, joined. */
  let run: string | undefined;
  /** The open element, for the selectors (only when there are any). */
  let element: StreamElement | null = null;

  const endRun = () => {
    if (run === undefined) return;
    const t = run;
    run = undefined;
    if (noscript !== undefined) noscript += t;
    if (skipped) {
      if (title !== undefined) title += t;
    } else c.text(frames[depth]!, t);
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        endRun();
        if (skipped) {
          skipped++;
          return;
        }
        const open: StreamElement | undefined = exclude
          ? { type: name === 'script' || name === 'style' ? name : 'tag', name, attribs, parent: element }
          : undefined;
        const frame = (frames[depth + 1] ??= topFrame());
        const enter = c.open(name, attribs, open !== undefined && exclude!(open), frames[depth]!, frame);
        if (enter === Enter.Skip || enter === Enter.SkipTitle) {
          skipped = 1;
          if (enter === Enter.SkipTitle) title = '';
          return;
        }
        depth++;
        if (open) element = open;
        if (enter === Enter.WalkNoscript && noscript === undefined) {
          noscript = '';
          noscriptDepth = depth;
        }
      },
      ontext(t) {
        run = run === undefined ? t : run + t;
      },
      onclosetag() {
        endRun();
        if (skipped) {
          if (--skipped === 0 && title !== undefined) {
            c.title(title);
            title = undefined;
          }
          return;
        }
        if (depth === 0) return;
        c.close(frames[depth]!);
        if (depth === noscriptDepth) {
          c.noscript(noscript!);
          noscript = undefined;
          noscriptDepth = -1;
        }
        depth--;
        if (element) element = element.parent;
      },
      oncomment: endRun,
      oncdatastart: endRun,
      onprocessinginstruction: endRun,
      onend: endRun,
    },
    PARSER_OPTIONS,
  );
  parser.end(html);
}
