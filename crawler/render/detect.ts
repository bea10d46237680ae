/**
 * Does this page need a browser? Read from what the plain-HTTP parse saw (parse/html.ts SpaSigns):
 * an app root with nothing in it, a page of scripts with almost no text, a <noscript> asking for
 * JavaScript, elements that act as links without being links. Pure and cheap: it runs on every page
 * of an `auto` crawl, so a site of plain HTML costs nothing more than this test.
 */
import type { ParsedPage } from '../parse/html.ts';

/** An app root holding less text than this is empty: the app has not run. */
const EMPTY_ROOT_CHARS = 40;
/** A page with scripts, less text than this and at most a link is a shell (a short page of its own has a sentence or two). */
const SHELL_TEXT_CHARS = 100;
/** A page this long has its content: whatever its scripts add, it is readable without them. */
const ENOUGH_TEXT_CHARS = 1500;

/** Why the page needs a browser, or undefined when its HTML is the page. */
export function needsBrowser(page: Pick<ParsedPage, 'text' | 'links' | 'spa' | 'refresh'>): string | undefined {
  const s = page.spa;
  if (!s || s.scripts === 0) return undefined;
  // A page that forwards by <meta http-equiv="refresh"> is a redirect, followed as one (outcome.ts),
  // whatever script repeats it (rustdoc's ~10,000 "Redirecting…" stubs call location.replace too).
  if (page.refresh) return undefined;
  const text = page.text.length;
  if (text >= ENOUGH_TEXT_CHARS) return undefined;
  if (s.appRoot && s.appRootText < EMPTY_ROOT_CHARS) return `empty app root ${s.appRoot}`;
  if (s.noscriptAsksJs && text < ENOUGH_TEXT_CHARS / 2) return 'a <noscript> asks for JavaScript';
  if (text < SHELL_TEXT_CHARS && page.links.length < 2) return `${text} characters of text and ${s.scripts} script${s.scripts === 1 ? '' : 's'}`;
  if (s.clickables >= 5 && page.links.length * 2 < s.clickables) return `${s.clickables} elements act as links through scripts, ${page.links.length} are links`;
  return undefined;
}
