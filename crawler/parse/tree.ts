/**
 * The page walked as a tree: cheerio (htmlparser2 and its DOM) parses it, the host's extract.exclude
 * selectors mark their elements (css-select walks the tree once for the whole list), then one
 * depth-first walk feeds the collector. Only for a host whose selectors the stream cannot match
 * (selectors.ts: those that look at siblings, children or text); every other page is walked as a
 * stream (stream.ts), which builds no tree and gives the same page.
 */
import * as cheerio from 'cheerio/slim';
import { Enter, topFrame, type Frame, type PageCollector } from './collect.ts';
import { textOf, type DomNode } from './dom.ts';

/** As stream.ts parses: htmlparser2, HTML mode, entities decoded. */
const LOAD_OPTIONS = { xml: { xmlMode: false, decodeEntities: true } } as const;

type Step = { readonly node: DomNode; readonly parent: Frame } | { readonly node: undefined; readonly leave: Frame };

export function walkTree(html: string, exclude: string | undefined, c: PageCollector): void {
  const $ = cheerio.load(html, LOAD_OPTIONS);
  const excluded = new Set<unknown>(exclude ? $(exclude).toArray() : []);
  const top = topFrame();
  // Iterative depth-first walk (deep documents must not overflow the stack).
  const stack: Step[] = [];
  const enqueue = (children: DomNode[] | undefined, parent: Frame) => {
    for (let i = (children?.length ?? 0) - 1; i >= 0; i--) stack.push({ node: children![i]!, parent });
  };
  enqueue($.root()[0]!.children as unknown as DomNode[], top);
  while (stack.length) {
    const step = stack.pop()!;
    if (step.node === undefined) {
      c.close(step.leave);
      continue;
    }
    const { node, parent } = step;
    if (node.type === 'text') {
      c.text(parent, node.data ?? '');
      continue;
    }
    // (Comments, CDATA and doctypes are not the page's.)
    if (node.type !== 'tag' && node.type !== 'script' && node.type !== 'style') continue;
    const frame = topFrame();
    const enter = c.open(node.name!, node.attribs ?? {}, excluded.has(node), parent, frame);
    if (enter === Enter.Skip) continue;
    if (enter === Enter.SkipTitle) {
      c.title(textOf(node));
      continue;
    }
    if (enter === Enter.WalkNoscript) c.noscript(textOf(node));
    stack.push({ node: undefined, leave: frame });
    enqueue(node.children, frame);
  }
}
