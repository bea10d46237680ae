/** What the HTML parser makes of a page, and what a page's host tells it beyond the markup. */
import type { DocumentFacts, PageContent } from '../../model/index.ts';

/**
 * What is kept of a page's fields, an HTML page's and a document's alike (documents/page.ts): its
 * title, its description (and keywords), its headings and each heading, each link's anchor text.
 * What is stored and indexed is cut here, and nowhere else.
 */
export const FIELD_CAPS = { title: 1000, description: 5000, headings: 1000, heading: 500, anchor: 300 } as const;

export type Link = { readonly url: string; readonly text: string; readonly nofollow: boolean };

export type ParsedPage = PageContent & {
  readonly links: readonly Link[];
  /** The page names no title of its own: `title` is its first heading, or its URL's last segment. */
  readonly untitled?: true;
  /** `<meta name="robots" content="noindex">` (or none): do not put this page in the index. */
  readonly noindex: boolean;
  /** `<meta name="robots" content="nofollow">` (or none): do not follow this page's links. */
  readonly nofollow: boolean;
  readonly canonical?: string;
  /** `<meta http-equiv="refresh" content="N; url=…">` with N ≤ 10 s: the page forwards there (absolute). */
  readonly refresh?: string;
  readonly lang?: string;
  /** `<meta name="keywords">`: not indexed (search engines learned to ignore it), read by a topic filter. */
  readonly keywords?: string;
  /** Links the page had beyond the cap (limits.maxLinksPerPage): counted, not kept. Absent when none were cut. */
  readonly linksCut?: number;
  /** A document that is not an HTML page (crawler/documents): its format and facts. */
  readonly document?: DocumentFacts;
  /** Signs that the page is built by its scripts (crawler/render/detect.ts reads them); absent without scripts. */
  readonly spa?: SpaSigns;
  /** The hashes of its text blocks, for the host's template learner (blocks.ts); absent for documents. */
  readonly blocks?: Uint32Array;
  /** The SimHash of its text (lib/simhash.ts), when it has enough words for one. */
  readonly simhash?: string;
};

/** What a page's host tells the parser beyond the markup: blocks to leave out of the text. */
export type Extraction = {
  /** CSS selectors (a list, comma-separated): the text of matching elements is not body text (config extract.exclude). */
  readonly exclude?: string;
  /** Sorted hashes of the host's template blocks (crawler/template): not body text either. */
  readonly template?: Uint32Array;
};

/** What the walk saw of a page's scripts and app shell: the renderer's detector decides from it. */
export type SpaSigns = {
  /** `<script>` elements, inline or not. */
  readonly scripts: number;
  /** The first app root (`#root`, `#app`, `#__next`, `[ng-app]`, …), as a selector, and the characters of text inside it. */
  readonly appRoot?: string;
  readonly appRootText: number;
  /** A `<noscript>` that asks for JavaScript. */
  readonly noscriptAsksJs: boolean;
  /** Elements that act as links without being `<a href>`: onclick, router and click-binding attributes. */
  readonly clickables: number;
};
