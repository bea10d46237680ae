/**
 * HTML → what the index needs: title, headings, meta description, readable body text without
 * navigation, scripts or boilerplate, and every link with its anchor text (links are taken from the
 * whole page, navigation included).
 *
 * htmlparser2 parses (rather than parse5: about three times faster on real documentation, and
 * forgiving of broken markup), and its events are read as they come (stream.ts) by one set of rules
 * (collect.ts): no tree is built. Only a host whose extract.exclude selectors need the whole page
 * (siblings, children, text: selectors.ts) has its pages parsed into a cheerio DOM and walked
 * (tree.ts) — the same rules, the same page.
 */
import { fallbackTitle, PageCollector } from './collect.ts';
import { streamingTest } from './selectors.ts';
import { walkStream } from './stream.ts';
import { walkTree } from './tree.ts';
import { FIELD_CAPS, type Extraction, type ParsedPage } from './types.ts';

export { FIELD_CAPS, type Extraction, type Link, type ParsedPage, type SpaSigns } from './types.ts';

/**
 * A page of HTML. `robotsToken`: the user agent's product token, lowercased (`<meta name="TOKEN">`
 * counts like robots); `maxLinks`: links kept (limits.maxLinksPerPage), the rest counted as cut.
 */
export function parseHtml(html: string, pageUrl: string, robotsToken: string, maxLinks: number, extraction: Extraction = {}): ParsedPage {
  return parseHtmlAs(parsedAs(extraction.exclude), html, pageUrl, robotsToken, maxLinks, extraction);
}

/**
 * parseHtml by the path given: 'tree' always works (cheerio's DOM); 'stream' only when the host's
 * selectors stream (parsedAs). The tests and bench/parse-paths.ts run both and compare.
 */
export function parseHtmlAs(
  path: 'stream' | 'tree',
  html: string,
  pageUrl: string,
  robotsToken: string,
  maxLinks: number,
  extraction: Extraction = {},
): ParsedPage {
  const c = new PageCollector(robotsToken, maxLinks);
  const { exclude } = extraction;
  if (path === 'tree') walkTree(html, exclude, c);
  else {
    const test = exclude ? streamingTest(exclude) : undefined;
    if (exclude && !test) throw new Error(`extract.exclude "${exclude}" needs the tree (parse/selectors.ts)`);
    walkStream(html, c, test);
  }
  return c.page(pageUrl, extraction);
}

/** How a page of a host with these extract.exclude selectors is parsed: as a stream, or into a tree (selectors.ts says which need one). */
export function parsedAs(exclude: string | undefined): 'stream' | 'tree' {
  return exclude && !streamingTest(exclude) ? 'tree' : 'stream';
}

/** Plain text pages: the text is the content, the file name the title. */
export function parsePlainText(text: string, pageUrl: string): ParsedPage {
  return {
    url: pageUrl,
    title: fallbackTitle(pageUrl).slice(0, FIELD_CAPS.title),
    untitled: true,
    description: '',
    headings: [],
    text: text.replace(/\r\n?/g, '\n').trim(),
    links: [],
    noindex: false,
    nofollow: false,
  };
}
