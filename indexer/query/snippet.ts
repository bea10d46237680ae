/**
 * Snippets: the passage of a document that holds the most distinct query terms, with those terms
 * wrapped in <mark> and everything else HTML-escaped. The web page and the JSON API both use it.
 */
import { stem as defaultStem } from '../ingest/tokenize.ts';
import { locate, type Occurrences } from './locate.ts';

const WINDOW_TOKENS = 32;
/** Only the start of very long pages is scanned: snippets must stay cheap. */
const MAX_SCAN_CHARS = 200_000;
/**
 * A long page is read this far first: when a window there already holds as many distinct terms
 * as the query has words, no later one can hold more of them, and the rest is not read. (Reading
 * up to MAX_SCAN_CHARS of each result's text was half of a query's time on real documentation:
 * bench/README, 2026-11-28 night.)
 */
export const FIRST_SCAN_CHARS = 16_000;

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
  /** The query's words (hits.ts wordsOf): a passage near the start holding that many distinct terms is taken without reading on. */
  readonly enough?: number;
};

export function makeSnippet(text: string, terms: readonly string[], options: SnippetOptions = {}): string {
  return snippetOf(text, terms, options).html;
}

/**
 * The snippet, and where in `text` its first marked term is (a character offset: the page of a
 * PDF it is on); `at` is undefined when no term was found (the snippet is the description or the
 * start of the text). The window of WINDOW_TOKENS tokens with the most distinct terms, then the
 * most occurrences, in the text read from its start: as far as it was already located, then
 * FIRST_SCAN_CHARS, then MAX_SCAN_CHARS — further only while no window holds `enough` terms.
 */
export function snippetOf(text: string, terms: readonly string[], options: SnippetOptions = {}): { readonly html: string; readonly at?: number } {
  const { fallback = '', found, stem = defaultStem, enough = Infinity } = options;
  const all = Math.min(text.length, MAX_SCAN_CHARS);
  let o = found;
  let read = found ? Math.min(options.foundChars ?? Infinity, text.length) : 0;
  let best = o && bestWindow(o);
  for (const limit of [FIRST_SCAN_CHARS, MAX_SCAN_CHARS]) {
    if (best && (read >= all || best.distinct >= enough)) break;
    if (limit <= read) continue;
    const part = text.length > limit ? text.slice(0, limit) : text;
    o = locate(part, terms, true, stem);
    read = part.length;
    best = bestWindow(o);
  }
  if (!o!.at.length) return { html: escapeHtml(clip(fallback || text.slice(0, MAX_SCAN_CHARS), 240)) };
  return render(text, o!, best!.start);
}

/** The first window with the most distinct terms, then the most occurrences: its first token, and its count of distinct terms (-1: none). */
function bestWindow(o: Occurrences): { start: number; distinct: number } {
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

/** The window from token `start` of the occurrences `o` (located in `text`, or a start of it), its terms marked, the rest escaped. */
function render(text: string, o: Occurrences, start: number): { readonly html: string; readonly at?: number } {
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
  if (to < text.length) html += ' …';
  return { html: html.replace(/\s+/g, ' '), ...(at !== undefined ? { at } : {}) };
}

function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, cut > max / 2 ? cut : max)} …`;
}
