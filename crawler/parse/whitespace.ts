/**
 * White space in a page's text, as JavaScript's `\s` and `trim()` mean it, read char by char: every
 * run of text of every page goes through here, and the regular expression (`replace(/\s+/g, ' ')`,
 * then `trim()`) was a sixth of the parse's time. Most lines need nothing or a few cuts (a line
 * break in the markup), so a line is copied in the stretches between runs that change.
 */

/** Whether `c` is white space for `\s` and `trim()` (WhiteSpace and LineTerminator in ECMAScript). */
export function isSpace(c: number): boolean {
  if (c > 32 && c < 0xa0) return false;
  return (
    c === 32 ||
    (c >= 9 && c <= 13) ||
    c === 0xa0 ||
    c === 0x1680 ||
    (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 ||
    c === 0x2029 ||
    c === 0x202f ||
    c === 0x205f ||
    c === 0x3000 ||
    c === 0xfeff
  );
}

/** `s.replace(/\s+/g, ' ').trim()`: each run of white space one space, none at either end. */
export function squash(s: string): string {
  const n = s.length;
  let start = 0;
  while (start < n && isSpace(s.charCodeAt(start))) start++;
  let end = n;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  let out = '';
  /** Where the stretch not yet copied begins. */
  let from = start;
  let i = start;
  while (i < end) {
    const c = s.charCodeAt(i);
    // (Most characters are printable ASCII: decided without a call.)
    if ((c > 32 && c < 0xa0) || !isSpace(c)) {
      i++;
      continue;
    }
    let j = i + 1;
    while (isSpace(s.charCodeAt(j))) j++; // (stops at `end` at the latest: s[end - 1] is not white space)
    if (c !== 32 || j > i + 1) {
      out += `${s.slice(from, i)} `;
      from = j;
    }
    i = j;
  }
  return from === 0 && end === n ? s : out + s.slice(from, end);
}

/** `s.trim().length`, without making the trimmed string. */
export function trimmedLength(s: string): number {
  let start = 0;
  let end = s.length;
  while (start < end && isSpace(s.charCodeAt(start))) start++;
  while (end > start && isSpace(s.charCodeAt(end - 1))) end--;
  return end - start;
}
