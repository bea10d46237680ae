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
  new Parser(new StreamWalk(c, exclude), PARSER_OPTIONS).end(html);
}

/** htmlparser2's handler: the walk's state between its events, and what each event does. */
class StreamWalk {
  // The frames of the open elements, reused by depth: no object per element.
  private readonly frames: Frame[] = [topFrame()];
  private depth = 0;
  /** Depth inside a subtree left unwalked (0: walking). */
  private skipped = 0;
  /** The text of the `<title>` being skipped, while one is. */
  private titleText: string | undefined;
  /**
   * The text of the outermost `<noscript>` being read, and its depth. (An inner one's text is part
   * of it: the test that reads it finds in the outer whatever it finds in the inner.)
   */
  private noscript: string | undefined;
  private noscriptDepth = -1;
  /** The pieces of the current run of text, joined. */
  private run: string | undefined;
  /** The open element, for the selectors (only when there are any). */
  private element: StreamElement | null = null;

  constructor(
    private readonly c: PageCollector,
    private readonly exclude: ElementTest | undefined,
  ) {}

  onopentag(name: string, attribs: Record<string, string>): void {
    this.endRun();
    if (this.skipped) {
      this.skipped++;
      return;
    }
    const { exclude, frames, depth } = this;
    const open: StreamElement | undefined = exclude
      ? { type: name === 'script' || name === 'style' ? name : 'tag', name, attribs, parent: this.element }
      : undefined;
    const frame = (frames[depth + 1] ??= topFrame());
    const enter = this.c.open(name, attribs, open !== undefined && exclude!(open), frames[depth]!, frame);
    if (enter === Enter.Skip || enter === Enter.SkipTitle) {
      this.skipped = 1;
      if (enter === Enter.SkipTitle) this.titleText = '';
      return;
    }
    this.depth++;
    if (open) this.element = open;
    if (enter === Enter.WalkNoscript && this.noscript === undefined) {
      this.noscript = '';
      this.noscriptDepth = this.depth;
    }
  }

  ontext(t: string): void {
    this.run = this.run === undefined ? t : this.run + t;
  }

  onclosetag(): void {
    this.endRun();
    if (this.skipped) {
      if (--this.skipped === 0 && this.titleText !== undefined) {
        this.c.title(this.titleText);
        this.titleText = undefined;
      }
      return;
    }
    if (this.depth === 0) return;
    this.c.close(this.frames[this.depth]!);
    if (this.depth === this.noscriptDepth) {
      this.c.noscript(this.noscript!);
      this.noscript = undefined;
      this.noscriptDepth = -1;
    }
    this.depth--;
    if (this.element) this.element = this.element.parent;
  }

  oncomment(): void {
    this.endRun();
  }

  oncdatastart(): void {
    this.endRun();
  }

  onprocessinginstruction(): void {
    this.endRun();
  }

  onend(): void {
    this.endRun();
  }

  /** Anything but text ends a run of text (one DOM text node): it goes to the title, the noscript's text, the collector. */
  private endRun(): void {
    if (this.run === undefined) return;
    const t = this.run;
    this.run = undefined;
    if (this.noscript !== undefined) this.noscript += t;
    if (this.skipped) {
      if (this.titleText !== undefined) this.titleText += t;
    } else this.c.text(this.frames[this.depth]!, t);
  }
}
