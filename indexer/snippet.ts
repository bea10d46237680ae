/**
 * Snippets: the passage of a document that holds the most distinct query terms, with those terms
 * wrapped in <mark> and everything else HTML-escaped. The web page and the JSON API both use it.
 */
import { stemmerFor, tokenizeWithOffsets, type PositionedToken } from './tokenize.ts';

const WINDOW_TOKENS = 32;
/** Only the start of very long pages is scanned: snippets must stay cheap. */
const MAX_SCAN_CHARS = 200_000;

export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** `tokens`: the text's tokens, if already made (all of them: the snippet may be anywhere). */
export function makeSnippet(text: string, terms: readonly string[], fallback = '', tokens?: readonly PositionedToken[]): string {
  const body = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  tokens ??= tokenizeWithOffsets(body, stemmerFor(terms));
  const wanted = new Set(terms);
  if (!tokens.length || !wanted.size) return escapeHtml(clip(fallback || body, 240));

  // Slide a window of WINDOW_TOKENS tokens; keep the one with the most distinct terms, then most hits.
  const inWindow = new Map<string, number>();
  let best = { start: 0, distinct: -1, hits: 0 };
  let hits = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!.term;
    if (wanted.has(t)) {
      inWindow.set(t, (inWindow.get(t) ?? 0) + 1);
      hits++;
    }
    const out = i - WINDOW_TOKENS;
    if (out >= 0 && wanted.has(tokens[out]!.term)) {
      const o = tokens[out]!.term;
      const n = inWindow.get(o)! - 1;
      if (n) inWindow.set(o, n);
      else inWindow.delete(o);
      hits--;
    }
    if (inWindow.size > best.distinct || (inWindow.size === best.distinct && hits > best.hits)) {
      best = { start: Math.max(0, i - WINDOW_TOKENS + 1), distinct: inWindow.size, hits };
    }
  }
  if (best.distinct === 0) return escapeHtml(clip(fallback || body, 240));
  // Centre the window a little: begin a few tokens before the first hit in it.
  let first = best.start;
  while (first < tokens.length && !wanted.has(tokens[first]!.term)) first++;
  const startTok = Math.max(0, Math.min(first - 6, tokens.length - WINDOW_TOKENS));
  const endTok = Math.min(tokens.length - 1, startTok + WINDOW_TOKENS - 1);
  const from = tokens[startTok]!.start;
  const to = tokens[endTok]!.end;

  let html = from > 0 ? '… ' : '';
  let cursor = from;
  for (let i = startTok; i <= endTok; i++) {
    const tok = tokens[i]!;
    if (!wanted.has(tok.term)) continue;
    html += escapeHtml(body.slice(cursor, tok.start)) + '<mark>' + escapeHtml(body.slice(tok.start, tok.end)) + '</mark>';
    cursor = tok.end;
  }
  html += escapeHtml(body.slice(cursor, to));
  if (to < text.length) html += ' …';
  return html.replace(/\s+/g, ' ');
}

function clip(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.lastIndexOf(' ', max);
  return `${flat.slice(0, cut > max / 2 ? cut : max)} …`;
}
