/**
 * `make lint`'s second half: no line of the tracked sources over MAX_LINE characters. Biome formats
 * code to that width but leaves what it cannot wrap — a long string, a comment, a regular expression —
 * and measures CJK text by its display width, so a line the formatter accepts can still be one a
 * reader scrolls for. Counted in code points, as an editor counts columns.
 *
 * Usage: `node --import tsx scripts/line-length.ts` (exit 1 and the lines named when any is over).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The formatter's line width (biome.json `formatter.lineWidth`). */
export const MAX_LINE = 160;
const SOURCES = /\.(ts|js|mjs|cjs)$/;

/** The lines over `max` in `text`, as `line:length`. */
export function longLines(text: string, max = MAX_LINE): { line: number; length: number }[] {
  const found: { line: number; length: number }[] = [];
  text.split('\n').forEach((line, i) => {
    const length = [...line].length;
    if (length > max) found.push({ line: i + 1, length });
  });
  return found;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
    .split('\n')
    .filter((f) => SOURCES.test(f));
  const over = files.flatMap((f) => longLines(readFileSync(`${root}/${f}`, 'utf8')).map((l) => `${f}:${l.line}: ${l.length} characters`));
  if (over.length) {
    console.error(`${over.length} line(s) over ${MAX_LINE} characters (split the string or the comment):\n${over.join('\n')}`);
    process.exit(1);
  }
  console.log(`${files.length} files: no line over ${MAX_LINE} characters`);
}
