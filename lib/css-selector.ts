/**
 * Whether a CSS selector (or a comma-separated list) is one the parser can apply: cheerio's
 * css-select compiles it against an empty document, which throws for bad syntax and for what it
 * does not support (pseudo-elements). Used where the config is checked, so that a bad selector
 * stops Trawl at start rather than failing pages one by one. cheerio (~35 ms to load) is loaded
 * when there is a selector to check, not by every command that reads a config.
 */
import { createRequire } from 'node:module';
import type * as Cheerio from 'cheerio/slim';

let empty: Cheerio.CheerioAPI | undefined;

/** Why `selector` cannot be applied, or undefined when it can. */
export function selectorProblem(selector: string): string | undefined {
  if (!selector.trim()) return 'is empty';
  empty ??= (createRequire(import.meta.url)('cheerio/slim') as typeof Cheerio).load('');
  try {
    empty.root().find(selector);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
