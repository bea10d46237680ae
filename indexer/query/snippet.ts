/**
 * Snippets: the passage of a document that holds the most distinct query terms, with those terms
 * wrapped in <mark> and everything else HTML-escaped. The web page and the JSON API both use it.
 */
import { stem as defaultStem } from '../ingest/tokenize.ts';
import { locate, type Occurrences, sparseLocator } from './locate.ts';
import { BODY_CHARS } from './proximity.ts';

const WINDOW_TOKENS = 32;
/** Only the start of very long pages is scanned: snippets must stay cheap. */
const MAX_SCAN_CHARS = 200_000;
/**
 * A long page is read this far token by token first: what phrase evidence reads of it
 * (proximity.ts BODY_CHARS) and what a query reads of most pages (query/documents.ts START_CHARS).
 * When a window there already holds as many distinct terms as the query has words, no later one can
 * hold more of them, and the rest is not read; else the rest is searched by the terms' characters
 * (farWindow). (Reading up to MAX_SCAN_CHARS of each result's text token by token was half of a
 * query's time on real documentation: bench/README, 2026-11-28 night.)
 */
export const FIRST_SCAN_CHARS = BODY_CHARS;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** How a snippet is made; all optional. */
export type SnippetOptions = {
  /** Shown when no term occurs (a page's description); else the start of the text. */
  readonly fallback?: string;
  /** The terms' occurrences in the text's first `foundChars` characters (all of it: undefined), if already located. */
  readonly found?: Occurrences;
  readonly foundChars?: number;
  /** The stemmer of the text's language. */
  readonly stem?: (word: string) => string;
  /**
   * The query's words the text may hold (hits.ts): a passage near the start holding that many
   * distinct terms is taken without reading on; 0: it holds none, the text is not read on.
   */
  readonly enough?: number;
  /** `text` is only the page's start (QueryDocuments.start): snippetOfStart answers undefined when the passage may be further on. */
  readonly textCut?: boolean;
};

/** A snippet, and where in the text its first marked term is (see snippetOf). */
export type Snippet = { readonly html: string; readonly at?: number };

export function makeSnippet(text: string, terms: readonly string[], options: SnippetOptions = {}): string {
  return snippetOf(text, terms, options).html;
}

/**
 * The snippet, and where in `text` its first marked term is (a character offset: the page of a
 * PDF it is on); `at` is undefined when no term was found (the snippet is the description or the
 * start of the text). The window of WINDOW_TOKENS tokens with the most distinct terms, then the
 * most occurrences, in the text read from its start: as far as it was already located (else its
 * first FIRST_SCAN_CHARS), then — only while no window there holds `enough` terms — on up to
 * MAX_SCAN_CHARS by the terms' characters alone (farWindow), a later window taken only if it
 * holds more.
 */
export function snippetOf(text: string, terms: readonly string[], options: Omit<SnippetOptions, 'textCut'> = {}): Snippet {
  return snippetOfStart(text, terms, options)!;
}

/** snippetOf, but undefined when `text` is cut (options.textCut) before where the snippet may be: the whole text is needed. */
export function snippetOfStart(text: string, terms: readonly string[], options: SnippetOptions = {}): Snippet | undefined {
  const { fallback = '', found, stem = defaultStem, enough = Infinity } = options;
  const all = Math.min(text.length, MAX_SCAN_CHARS);
  const read = found ? Math.min(options.foundChars ?? Infinity, text.length) : Math.min(text.length, FIRST_SCAN_CHARS);
  let o = found ?? locate(text.slice(0, read), terms, true, stem);
  let best = bestWindow(o);
  // (enough 0: the text holds no term, its start is shown.)
  const readOn = enough > 0 && best.distinct < enough;
  if (readOn && options.textCut) return undefined;
  if (read < all && readOn) {
    const far = farWindow(text, terms, read, all, stem);
    if (!far) {
      // (Words outside ASCII on: the rest is read token by token, as the start was.)
      o = locate(text.slice(0, all), terms, true, stem);
      best = bestWindow(o);
    } else if (far.distinct > best.distinct || (far.distinct === best.distinct && far.hits > best.hits)) {
      return farSnippet(text, terms, far.at, stem);
    }
  }
  if (!o.at.length) return { html: escapeHtml(clip(fallback || text.slice(0, MAX_SCAN_CHARS), 240)) };
  return render(text, o, best.start, options.textCut);
}

/**
 * A window's span in characters past the part of a page located token by token (farWindow): about
 * WINDOW_TOKENS tokens of documentation (5–6 characters a token with its space, on rustdoc's and
 * PostgreSQL's pages).
 */
const WINDOW_CHARS = WINDOW_TOKENS * 6;

/**
 * The best window of text[from, to) by the terms' occurrences alone (locate.ts sparseLocator): where
 * its first occurrence starts, its distinct terms and occurrences, as bestWindow counts them; or
 * undefined when that part has words outside ASCII.
 */
function farWindow(
  text: string,
  terms: readonly string[],
  from: number,
  to: number,
  stem: (word: string) => string,
): { at: number; distinct: number; hits: number } | undefined {
  const o = sparseOf(terms, stem)(text, from, to);
  if (!o) return undefined;
  const inWindow = new Map<string, number>();
  let best = { at: 0, distinct: -1, hits: 0 };
  for (let k = 0, out = 0; k < o.starts.length; k++) {
    inWindow.set(o.terms[k]!, (inWindow.get(o.terms[k]!) ?? 0) + 1);
    for (; o.starts[out]! <= o.starts[k]! - WINDOW_CHARS; out++) {
      const n = inWindow.get(o.terms[out]!)! - 1;
      if (n) inWindow.set(o.terms[out]!, n);
      else inWindow.delete(o.terms[out]!);
    }
    const hits = k - out + 1;
    if (inWindow.size > best.distinct || (inWindow.size === best.distinct && hits > best.hits)) best = { at: o.starts[out]!, distinct: inWindow.size, hits };
  }
  return best;
}

/** The snippet of the passage around character `at` (a farWindow's), located token by token there. */
function farSnippet(text: string, terms: readonly string[], at: number, stem: (word: string) => string): Snippet {
  // From a word's start a little before it to well past the window.
  let from = Math.max(0, at - WINDOW_CHARS);
  while (from > 0 && isAsciiAlnum(text.charCodeAt(from - 1))) from--;
  const local = locate(text.slice(from, at + 3 * WINDOW_CHARS), terms, true, stem);
  const shifted: Occurrences = { ...local, starts: local.starts.map((x) => x + from), ends: local.ends.map((x) => x + from) };
  return render(text, shifted, bestWindow(local).start);
}

function isAsciiAlnum(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** The last query's sparse locator (the hits of one query share their terms and, mostly, their stemmer). */
let lastSparse: { terms: readonly string[]; stem: (word: string) => string; find: ReturnType<typeof sparseLocator> } | undefined;
function sparseOf(terms: readonly string[], stem: (word: string) => string): ReturnType<typeof sparseLocator> {
  if (lastSparse?.stem !== stem || lastSparse.terms.length !== terms.length || lastSparse.terms.some((t, i) => t !== terms[i])) {
    lastSparse = { terms: [...terms], stem, find: sparseLocator(terms, stem) };
  }
  return lastSparse.find;
}

/** The first window with the most distinct terms, then the most occurrences: its first token, and its count of distinct terms (-1: none). */
function bestWindow(o: Occurrences): { start: number; distinct: number; hits: number } {
  // (The first such window ends at an occurrence, so only windows ending at one are tried.)
  const inWindow = new Map<string, number>();
  let best = { start: 0, distinct: -1, hits: 0 };
  for (let k = 0, out = 0; k < o.at.length; k++) {
    inWindow.set(o.terms[k]!, (inWindow.get(o.terms[k]!) ?? 0) + 1);
    for (; o.at[out]! <= o.at[k]! - WINDOW_TOKENS; out++) {
      const n = inWindow.get(o.terms[out]!)! - 1;
      if (n) inWindow.set(o.terms[out]!, n);
      else inWindow.delete(o.terms[out]!);
    }
    const hits = k - out + 1;
    if (inWindow.size > best.distinct || (inWindow.size === best.distinct && hits > best.hits)) {
      best = { start: Math.max(0, o.at[k]! - WINDOW_TOKENS + 1), distinct: inWindow.size, hits };
    }
  }
  return best;
}

/**
 * The window from token `start` of the occurrences `o` (located in `text`, or a start of it), its
 * terms marked, the rest escaped (`goesOn`: the page goes on past `text`).
 */
function render(text: string, o: Occurrences, start: number, goesOn = false): Snippet {
  // Centre the window a little: begin a few tokens before the first occurrence in it.
  let first = 0;
  while (o.at[first]! < start) first++;
  const startTok = Math.max(0, Math.min(o.at[first]! - 6, o.tokens - WINDOW_TOKENS));
  const endTok = Math.min(o.tokens - 1, startTok + WINDOW_TOKENS - 1);
  const from = o.starts[startTok]!;
  const to = o.ends[endTok]!;

  let html = from > 0 ? '… ' : '';
  let cursor = from;
  let at: number | undefined;
  for (let k = 0; k < o.at.length; k++) {
    const i = o.at[k]!;
    if (i < startTok || i > endTok) continue;
    at ??= o.starts[i]!;
    html += `${escapeHtml(text.slice(cursor, o.starts[i]))}<mark>${escapeHtml(text.slice(o.starts[i], o.ends[i]))}</mark>`;
    cursor = o.ends[i]!;
  }
  html += escapeHtml(text.slice(cursor, to));
  if (to < text.length || goesOn) html += ' …';
  return { html: html.replace(/\s+/g, ' '), ...(at !== undefined ? { at } : {}) };
}

/** The start of `s`, its white space flattened, cut at a word after at most `max` characters (… when cut). */
function clip(s: string, max: number): string {
  // (Only as much of it is flattened as may be shown: it may be a page of 200,000 characters.)
  let flat = '';
  for (let read = 4 * max; ; read *= 4) {
    flat = s.slice(0, read).replace(/\s+/g, ' ').trimStart();
    if (read >= s.length) flat = flat.trimEnd();
    else if (flat.length <= max + 1) continue;
    break;
  }
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, cut > max / 2 ? cut : max)} …`;
}
