/**
 * A thin wrapper around robots-parser (not a fork): the robots.txt text is rewritten line by line
 * into what robots-parser reads right, and the URL asked about is put in the same canonical form,
 * for what RFC 9309 asks and robots-parser 3.x does not do (checked against google/robotstxt's
 * tests: google-vectors.test.ts):
 * - a `User-agent:` value names the agent of its leading product token (`FOO BAR`, `Foo/2.1` → `foo`:
 *   only the leading [A-Za-z_-] characters count; RFC 9309 §2.2.1);
 * - a rule's path is percent-encoded as UTF-8 and its escapes made canonical the way the crawler's
 *   URL normalizer does (escaped unreserved characters decoded, the others uppercased), so
 *   `/foo/bar/%62%61%7A` matches `/foo/bar/baz` and `/ツ` matches `/%E3%83%84` (RFC 9309 §2.2.2,
 *   RFC 3986 §6.2.2);
 * - (as Google does) a `user-agent`, `allow` or `disallow` line missing its colon still counts.
 */
import robotsParserModule from 'robots-parser';

import { canonicalEscapes } from '../urls/normalize.ts';

// robots-parser is CommonJS: at run time the default import is the function its types call `.default`.
const robotsParser = robotsParserModule as unknown as typeof robotsParserModule.default;

/** A parsed robots.txt. */
export interface RobotsTxt {
  /** Whether `productToken` may fetch `url` (a URL of another host than the robots.txt's: true). */
  isAllowed(url: string, productToken: string): boolean;
  /** The Crawl-delay of the group `productToken` obeys, in seconds. */
  crawlDelay(productToken: string): number | undefined;
  readonly sitemaps: readonly string[];
}

/** Parses `body`, the robots.txt at `robotsUrl` (e.g. `https://example.org/robots.txt`). */
export function parseRobotsTxt(robotsUrl: string, body: string): RobotsTxt {
  const robot = robotsParser(
    robotsUrl,
    body
      .split(/\r\n|\r|\n/)
      .map(rewriteLine)
      .join('\n'),
  );
  return {
    // robots-parser answers undefined for a URL of another host.
    isAllowed: (url, token) => robot.isAllowed(canonicalUrl(url), token) !== false,
    crawlDelay: (token) => robot.getCrawlDelay(token),
    sitemaps: robot.getSitemaps(),
  };
}

/** `name: value` or (a Google leniency, for the names below only) `name value`; a comment ends the line. */
const LINE = /^\s*([A-Za-z-]+)\s*(?::|\s)\s*(.*?)\s*$/;
const PRODUCT_TOKEN = /^[A-Za-z_-]+/;

function rewriteLine(line: string): string {
  const hash = line.indexOf('#');
  const m = LINE.exec(hash < 0 ? line : line.slice(0, hash));
  if (!m) return line;
  const name = (m[1] ?? '').toLowerCase();
  const value = m[2] ?? '';
  if (name === 'user-agent') {
    // `*` stays; a value without a token (`ツ`) is left for robots-parser, and names no agent Trawl is.
    const token = value.startsWith('*') ? '*' : PRODUCT_TOKEN.exec(value)?.[0];
    return `user-agent: ${token ?? value}`;
  }
  if (name === 'allow' || name === 'disallow') return `${name}: ${canonicalEscapes(encodeNonAscii(value))}`;
  return line;
}

/** Non-ASCII characters as percent-encoded UTF-8, as WHATWG URL parsing escapes a path (a lone surrogate as U+FFFD). */
function encodeNonAscii(s: string): string {
  return s.replace(/[^\x00-\x7f]+/gu, (chars) => [...Buffer.from(chars, 'utf8')].map((b) => `%${b.toString(16).toUpperCase()}`).join(''));
}

/** `url` with canonical percent-escapes (as the crawler's normalizer writes them), for a URL not from it. */
function canonicalUrl(url: string): string {
  // (The crawl's URLs are the normalizer's already: without an escape there is nothing to do.)
  if (!url.includes('%')) return url;
  try {
    const u = new URL(url);
    u.pathname = canonicalEscapes(u.pathname);
    u.search = canonicalEscapes(u.search);
    return u.href;
  } catch {
    return url;
  }
}
