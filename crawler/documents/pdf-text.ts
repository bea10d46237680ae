/**
 * A PDF page's text items (PDF.js getTextContent) → the page's text, and the text under a link.
 *
 * PDF.js already puts spaces between words it sees apart and marks line ends (`hasEOL`); what it
 * leaves is two items that touch nothing in between — a table's cells, a column's lines, a word
 * after a change of font — which are kept apart here by their geometry. Words hyphenated at a line
 * end are joined again, as pdftotext does ("infor-" + "mation" → "information"), so that they can
 * be found; a real hyphen that falls at a line end is lost with it, the lesser harm.
 */

/** The fields of a PDF.js TextItem this module reads. */
export type PdfTextItem = {
  readonly str: string;
  readonly hasEOL: boolean;
  /** [a, b, c, d, e, f]: e, f the origin; |d| (or |b| in rotated text) about the font size. */
  readonly transform: readonly number[];
  readonly width: number;
  readonly height: number;
};

/** Same line when baselines differ by less than this share of the font size. */
const SAME_LINE = 0.5;
/** A word gap when the next item starts this share of the font size after the previous one ends. */
const WORD_GAP = 0.15;

export function joinTextItems(items: readonly PdfTextItem[]): string {
  const out: string[] = [];
  let prev: PdfTextItem | undefined;
  let endsInSpace = true;
  for (const item of items) {
    const { str } = item;
    if (str && prev && !endsInSpace && !/^\s/.test(str)) out.push(separator(prev, item));
    if (str) {
      out.push(str);
      endsInSpace = /\s$/.test(str);
      prev = item;
    }
    if (item.hasEOL) {
      out.push('\n');
      endsInSpace = true;
    }
  }
  return dehyphenate(out.join(''));
}

/** What goes between two items that nothing separates: a newline, a space, or nothing (same word). */
function separator(a: PdfTextItem, b: PdfTextItem): string {
  const size = Math.max(fontSize(a), fontSize(b), 1);
  const [, , , , ax = 0, ay = 0] = a.transform;
  const [, , , , bx = 0, by = 0] = b.transform;
  if (Math.abs(by - ay) > size * SAME_LINE) return '\n';
  const gap = bx - (ax + a.width);
  // Far apart, or backwards (the next column, a new line at the same height): a space.
  return gap > size * WORD_GAP || gap < -size ? ' ' : '';
}

function fontSize(item: PdfTextItem): number {
  const [a = 0, b = 0, c = 0, d = 0] = item.transform;
  return Math.max(Math.hypot(a, b), Math.hypot(c, d), Math.abs(item.height));
}

/** "infor-\nmation" → "information\n"… keeps the line break after the joined word. */
function dehyphenate(text: string): string {
  return text.replace(/(\p{L})[-\u00ad]\n(\p{Ll}[\p{L}\p{M}]*)([^\S\n]?)/gu, (_m, before: string, rest: string) => `${before}${rest}\n`);
}

/**
 * Slack, in font sizes, left of and below a link's rectangle: an item whose origin lies that little
 * outside it still counts as under it (a link's rectangle is rarely drawn exactly around its text).
 */
const RECT_SLACK = 0.3;

/**
 * The text of the items whose origin lies inside `rect` ([x1, y1, x2, y2], any order): a link's
 * anchor text when PDF.js gives none (it computes `overlaidText` itself for most link annotations).
 */
export function textInRect(items: readonly PdfTextItem[], rect: readonly number[]): string {
  const [x1 = 0, y1 = 0, x2 = 0, y2 = 0] = rect;
  const [left, right, bottom, top] = [Math.min(x1, x2), Math.max(x1, x2), Math.min(y1, y2), Math.max(y1, y2)];
  const inside = items.filter((it) => {
    const [, , , , x = 0, y = 0] = it.transform;
    const slack = fontSize(it) * RECT_SLACK;
    return it.str && x >= left - slack && x <= right && y >= bottom - slack && y <= top;
  });
  return inside.map((it) => it.str).join(' ');
}
