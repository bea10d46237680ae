/**
 * A page's text as blocks, and which of them are the site's chrome rather than the page's content.
 *
 * The walk (collect.ts) hands each block element's text here as one line (whitespace squashed,
 * so that a line of the stored text is a block, and a block is known again by its text's hash).
 * A line is kept out of the body text (and so of snippets) when it is:
 *   - link-dense: at least half of its characters are anchor text (a menu, "Prev Up Home Next");
 *   - template: its hash is among the blocks its host repeats on many pages (crawler/template);
 *   - a short line between two such lines (or one and the page's edge): the title cell of a
 *     navigation table, "SQL Commands" between "Up" and "Home".
 * A page whose every line would go (a table of contents: its links are its content) keeps all but
 * its template lines. Links and anchor text are never affected: they are taken from the whole page.
 */
import { squash } from './whitespace.ts';

/** A line with at least this share of anchor text is navigation. */
export const LINK_DENSITY = 0.5;
/** A line shorter than this (in characters) between two dropped lines goes with them. */
export const SHORT_LINE = 40;
/** Lines counted by the template learner: the first and the last this many distinct ones (chrome sits at the edges). */
export const COUNTED_LINES = 128;

/** What a line is, in the order of how surely it is chrome (Template and above are dropped). */
const Kind = { Content: 0, Short: 1, Template: 2, Links: 3 } as const;

/** Collects a page's text pieces into lines, one per block, with the anchor text in each. */
export class LineBuilder {
  readonly lines: string[] = [];
  /** Per line: characters of anchor text (spaces not counted). */
  readonly linkChars: number[] = [];
  /** Per line: inside `<main>`. */
  readonly inMain: boolean[] = [];
  private parts: string[] = [];
  private anchor = 0;
  private main = false;

  add(text: string, inAnchor: boolean, inMain: boolean): void {
    this.parts.push(text);
    if (inAnchor) this.anchor += visibleLength(text);
    this.main = inMain;
  }

  /** A block boundary: the pieces since the last one become a line (unless blank). */
  end(): void {
    if (!this.parts.length) return;
    const line = squash(this.parts.length === 1 ? this.parts[0]! : this.parts.join(''));
    if (line) {
      this.lines.push(line);
      this.linkChars.push(this.anchor);
      this.inMain.push(this.main);
    }
    this.parts = [];
    this.anchor = 0;
  }
}

/** What a page's lines come to: the body text, and the hashes of its blocks for the template learner. */
export type Body = {
  readonly text: string;
  /** Distinct hashes of the lines that are not link-dense: the first and last COUNTED_LINES. */
  readonly blocks: Uint32Array;
};

/**
 * The body text of the lines the builder collected (only those in `<main>` when there is one),
 * without navigation, template lines (`template`: sorted hashes) and the short lines among them.
 */
export function bodyOf(b: LineBuilder, onlyMain: boolean, template: Uint32Array | undefined): Body {
  b.end();
  const lines: string[] = [];
  const links: number[] = [];
  for (let i = 0; i < b.lines.length; i++) {
    if (onlyMain && !b.inMain[i]) continue;
    lines.push(b.lines[i]!);
    links.push(b.linkChars[i]!);
  }
  const hashes = lines.map(lineHash);
  const kinds = new Uint8Array(lines.length);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    // (Template first: a page of links keeps its links, never its template.)
    if (template && isTemplate(template, hashes[i]!)) kinds[i] = Kind.Template;
    else if (links[i]! > 0 && links[i]! >= LINK_DENSITY * visibleLength(line)) kinds[i] = Kind.Links;
    else kinds[i] = line.length < SHORT_LINE ? Kind.Short : Kind.Content;
  }
  return { text: keptText(lines, kinds), blocks: counted(hashes, kinds) };
}

/**
 * A stored text (one line per block) without the lines `template` now names, and the short lines
 * left between them — how a page stored before its host's template was known is cleaned. Undefined
 * when nothing changes.
 */
export function withoutTemplate(text: string, template: Uint32Array): string | undefined {
  const lines = text.split('\n');
  const kinds = new Uint8Array(lines.length);
  let any = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (isTemplate(template, lineHash(line))) {
      kinds[i] = Kind.Template;
      any = true;
    } else kinds[i] = line.length < SHORT_LINE ? Kind.Short : Kind.Content;
  }
  return any ? keptText(lines, kinds) : undefined;
}

/** Whether a line (or a heading) of this text is one of the template's. */
export function inTemplate(template: Uint32Array | undefined, text: string): boolean {
  return template !== undefined && isTemplate(template, lineHash(text));
}

/** A block's hash: FNV-1a of its text, 30 bits (a small integer in V8: cheap map keys). */
export function lineHash(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return (h ^ (h >>> 15)) & 0x3fffffff;
}

/** Binary search of a sorted array of hashes. */
function isTemplate(sorted: Uint32Array, h: number): boolean {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const v = sorted[mid]!;
    if (v === h) return true;
    if (v < h) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** The lines kept, one per line of text (see the rules at the top). */
function keptText(lines: readonly string[], kinds: Uint8Array): string {
  const n = lines.length;
  const dropped = (i: number) => i < 0 || i >= n || kinds[i]! >= Kind.Template;
  const keep = new Uint8Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const k = kinds[i]!;
    // A short line goes with its neighbours when both went (a page's edge counts as gone, but
    // not both edges: a page of one short line keeps it).
    const alone = k === Kind.Short && dropped(i - 1) && dropped(i + 1) && n > 1;
    if (k < Kind.Template && !alone) {
      keep[i] = 1;
      kept++;
    }
  }
  // A page of links (a table of contents, an index) keeps them: they are its content.
  if (!kept) for (let i = 0; i < n; i++) keep[i] = kinds[i] === Kind.Template ? 0 : 1;
  const out: string[] = [];
  for (let i = 0; i < n; i++) if (keep[i]) out.push(lines[i]!);
  return out.join('\n');
}

/** The distinct hashes of the lines that are not link-dense, from the first and the last COUNTED_LINES. */
function counted(hashes: readonly number[], kinds: Uint8Array): Uint32Array {
  const seen = new Set<number>();
  for (let i = 0; i < hashes.length && seen.size < COUNTED_LINES; i++) if (kinds[i] !== Kind.Links) seen.add(hashes[i]!);
  const cap = seen.size + COUNTED_LINES;
  for (let i = hashes.length - 1; i >= 0 && seen.size < cap; i--) if (kinds[i] !== Kind.Links) seen.add(hashes[i]!);
  return Uint32Array.from(seen);
}

/** Characters that are not white space. */
function visibleLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 32 && c !== 0xa0) n++;
  }
  return n;
}
