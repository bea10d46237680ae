/**
 * Topic definitions (after Combine's topic filter): what a focused crawl is about, as weighted
 * terms, each filing a page under one or more classes. One term a line:
 *
 *   WEIGHT: TERMS=CLASS[,CLASS…]
 *
 *   10: numismatics=coins                 a word
 *   8: roman coins=coins,history          a phrase: its words, adjacent and in order
 *   6: denarius @and silver=coins         a conjunction: every part somewhere on the page
 *   4: coins?=coins                       a regular expression (any of \ ^ $ . | ? * + ( ) [ ] { })
 *   -20: casino                           a negative weight lowers the score (classes optional)
 *   # a comment; blank lines are ignored
 *
 * Matching ignores case: words and phrases are lowercased, regular expressions are matched
 * case-insensitively, always on whole words. Class names are lowercased too (they are facets and
 * `topic:` filters). Any mistake is a TopicError naming the line and what is wrong.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** One part of a term: a sequence of words (a word or a phrase), or a regular expression. */
export type TermPart = { readonly kind: 'words'; readonly words: readonly string[] } | { readonly kind: 'regex'; readonly source: string; readonly re: RegExp };

export type Term = {
  /** The term as written (for reports). */
  readonly text: string;
  /** Its line in the file (1-based). */
  readonly line: number;
  readonly weight: number;
  /** Lowercase; empty only for negative weights. */
  readonly classes: readonly string[];
  /** One part, or several for an `@and` conjunction. */
  readonly parts: readonly TermPart[];
};

export type Topic = { readonly name: string; readonly terms: readonly Term[]; readonly classes: readonly string[] };

/** A topic definition that cannot be used; `line` is 1-based (0: the file as a whole). */
export class TopicError extends Error {
  readonly code = 'ERR_TOPIC';
  constructor(
    readonly file: string,
    readonly line: number,
    readonly problem: string,
  ) {
    super(line ? `${file} line ${line}: ${problem}` : `${file}: ${problem}`);
  }
}

const REGEX_CHARS = /[\\^$.|?*+()[\]{}]/;
/** What a class name may be (also what a classifier module may return). */
export const CLASS_NAME = /^[\p{L}\p{N}][\p{L}\p{N}._-]*$/u;
/** A word, for matching: a run of letters and digits (as match.ts tokenizes pages). */
const WORD = /[\p{L}\p{N}]+/gu;
const FORMAT = 'expected WEIGHT: TERMS=CLASS[,CLASS…], e.g. "10: roman coins=coins,history"';
const MAX_TERMS = 10_000;
const MAX_LINE = 2000;

/** Reads and parses a topic file; a missing or unreadable file is a TopicError too. */
export function loadTopicFile(path: string): Topic {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    throw new TopicError(path, 0, `cannot read the topic file (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  return parseTopic(text, path);
}

export function parseTopic(text: string, file = 'topic'): Topic {
  const terms: Term[] = [];
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n?|\n/);
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    if (terms.length >= MAX_TERMS) throw new TopicError(file, i + 1, `too many terms (at most ${MAX_TERMS})`);
    terms.push(parseLine(line, i + 1, file));
  });
  if (!terms.some((t) => t.weight > 0)) throw new TopicError(file, 0, `no term with a positive weight: nothing could make a page relevant (${FORMAT})`);
  const classes = [...new Set(terms.flatMap((t) => t.classes))].sort();
  return { name: basename(file).replace(/\.[^.]*$/, ''), terms, classes };
}

function parseLine(line: string, n: number, file: string): Term {
  const fail = (problem: string): never => {
    throw new TopicError(file, n, problem);
  };
  if (line.length > MAX_LINE) fail(`the line is too long (${line.length} characters; at most ${MAX_LINE})`);
  const colon = line.indexOf(':');
  if (colon < 0) fail(`no ":" after the weight; ${FORMAT}`);
  const weightText = line.slice(0, colon).trim();
  if (!/^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(weightText)) fail(`the weight "${weightText}" is not a number; ${FORMAT}`);
  const weight = Number(weightText);
  if (weight === 0) fail('a weight of 0 has no effect: give a positive weight, or a negative one to exclude');
  const rest = line.slice(colon + 1);
  // Classes never hold "=", a regular expression may: the last "=" ends the terms.
  const eq = rest.lastIndexOf('=');
  const termsText = (eq < 0 ? rest : rest.slice(0, eq)).trim();
  const classesText = eq < 0 ? '' : rest.slice(eq + 1).trim();
  if (!termsText) fail(`no terms between ":" and "="; ${FORMAT}`);
  const classes = classesText ? classesText.split(',').map((c) => c.trim().toLowerCase()) : [];
  if (!classes.length && weight > 0) fail(`no class after "=": a term with a positive weight files pages under at least one class; ${FORMAT}`);
  for (const c of classes) {
    if (!c) fail('an empty class name (two commas in a row, or a comma at the end)');
    if (!CLASS_NAME.test(c)) fail(`the class "${c}" is not a name: letters and digits, then also ".", "_" or "-" (no spaces)`);
  }
  const partTexts = termsText.split(/(?:^|\s)@and(?=\s|$)/i).map((p) => p.trim());
  // "a @and b" and Combine's "@and a @and b" are both accepted.
  if (partTexts[0] === '' && partTexts.length > 1) partTexts.shift();
  if (partTexts.some((p) => !p)) fail('an @and with nothing on one side: write "a @and b"');
  const parts = partTexts.map((p) => parsePart(p, fail));
  return { text: termsText, line: n, weight, classes: [...new Set(classes)], parts };
}

function parsePart(text: string, fail: (problem: string) => never): TermPart {
  if (/@and/i.test(text)) fail(`"${text}": @and needs spaces around it ("a @and b")`);
  if (!REGEX_CHARS.test(text)) {
    const words = text.toLowerCase().match(WORD) ?? [];
    if (!words.length) fail(`"${text}" has no letters or digits to match`);
    return { kind: 'words', words };
  }
  let re: RegExp;
  try {
    // Whole words only: no letter or digit just before or after the match.
    re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${text})(?![\\p{L}\\p{N}])`, 'giu');
  } catch (e) {
    return fail(
      `"${text}" is not a valid regular expression (JavaScript syntax, Unicode mode): ${(e as Error).message.replace(/^Invalid regular expression: /, '')}`,
    );
  }
  re.lastIndex = 0;
  if (re.test('') || re.test(' ')) fail(`the regular expression "${text}" matches an empty string: it would match everywhere`);
  re.lastIndex = 0;
  return { kind: 'regex', source: text, re };
}
