/**
 * Snippets: the passage of a document that holds the most distinct query terms, with those terms
 * wrapped in <mark> and everything else HTML-escaped. The web page and the JSON API both use it.
 */
import { stem as defaultStem } from '../ingest/tokenize.ts';
import { locate, type Occurrences } from './locate.ts';

const WINDOW_TOKENS = 32;
/** Only the start of very long pages is scanned: snippets must stay cheap. */
const MAX_SCAN_CHARS = 200_000;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * `found`: the terms' occurrences in `text`, if already located (in all of it: the snippet may be
 * anywhere); `stem`: the stemmer of the text's language.
 */
export function makeSnippet(text: string, terms: readonly string[], fallback = '', found?: Occurrences, stem: (word: string) => string = defaultStem): string {
  return snippetOf(text, terms, fallback, found, stem).html;
}

/**
 * The snippet, and where in `text` its first marked term is (a character offset: the page of a
 * PDF it is on); `at` is undefined when no term was found (the snippet is the description or the
 * start of the text).
 */
export function snippetOf(text: string, terms: readonly string[], fallback = '', found?: Occurrences, stem: (word: string) => string = defaultStem): { readonly html: string; readonly at?: number } {
  const body = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  const o = found ?? locate(body, terms, true, stem);
  if (!o.at.length) return { html: escapeHtml(clip(fallback || body, 240)) };

  // The window of WINDOW_TOKENS tokens with the most distinct terms, then the most occurrences:
  // the first such window ends at an occurrence, so only windows ending at one are tried.
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
  // Centre the window a little: begin a few tokens before the first occurrence in it.
  let first = 0;
  while (o.at[first]! < best.start) first++;
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
    html += escapeHtml(body.slice(cursor, o.starts[i])) + '<mark>' + escapeHtml(body.slice(o.starts[i], o.ends[i])) + '</mark>';
    cursor = o.ends[i]!;
  }
  html += escapeHtml(body.slice(cursor, to));
  if (to < text.length) html += ' …';
  return { html: html.replace(/\s+/g, ' '), ...(at !== undefined ? { at } : {}) };
}

function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, cut > max / 2 ? cut : max)} …`;
}
