/**
 * A host's extract.exclude selectors, matched while the page streams by (stream.ts): an element is
 * tested when it opens, when all that is known of it is its name, its attributes and its
 * ancestors. So a selector list streams when every selector in it looks at nothing else — type,
 * `#id`, `.class`, attributes, descendant and child combinators, and `:not()`, `:is()`, `:where()`
 * of the same. One that looks at siblings (`+`, `~`, `:first-child`), children (`:has()`,
 * `:empty`), text (`:contains()`) or positions (`:eq()`) needs the whole tree: its host's pages
 * are parsed into a DOM (tree.ts).
 *
 * Matching is css-select's — the engine cheerio's `$(selectors)` runs — over the stream's elements,
 * with cheerio's options, so an element is excluded on either path exactly when the other excludes it.
 */
import { compile } from 'css-select';
import { parse, type Selector } from 'css-what';

/** An open element, as the stream knows it. */
export type StreamElement = {
  readonly type: 'tag' | 'script' | 'style';
  readonly name: string;
  readonly attribs: Record<string, string>;
  readonly parent: StreamElement | null;
};

export type ElementTest = (element: StreamElement) => boolean;

/** Pseudo-classes made only of other selectors: they stream when those do. */
const STREAMING_PSEUDOS = new Set(['not', 'is', 'matches', 'where']);
/** Selector lists remembered (a handful of hosts have any: a bound for the hostile case). */
const MAX_REMEMBERED = 256;
const remembered = new Map<string, ElementTest | null>();

/** The test of `selectors` (a comma-separated list) for the stream, or undefined when it needs the tree. */
export function streamingTest(selectors: string): ElementTest | undefined {
  let test = remembered.get(selectors);
  if (test === undefined) {
    test = streams(selectors) ? compile<StreamElement, StreamElement>(selectors, { xmlMode: false, adapter: STREAM_ADAPTER }) : null;
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(selectors, test);
  }
  return test ?? undefined;
}

function streams(selectors: string): boolean {
  try {
    return allStream(parse(selectors));
  } catch {
    // (Not a selector css-what reads: the tree path gives cheerio's own answer — an error.)
    return false;
  }
}

function allStream(list: Selector[][]): boolean {
  return list.every((sequence) => sequence.length > 0 && !isCombinator(sequence[0]!) && sequence.every(tokenStreams));
}

function tokenStreams(t: Selector): boolean {
  switch (t.type) {
    case 'tag':
    case 'universal':
    case 'attribute':
      return t.namespace === null || t.namespace === undefined;
    case 'descendant':
    case 'child':
      return true;
    case 'pseudo':
      return STREAMING_PSEUDOS.has(t.name) && Array.isArray(t.data) && allStream(t.data);
    default:
      return false;
  }
}

function isCombinator(t: Selector): boolean {
  return (
    t.type === 'descendant' || t.type === 'child' || t.type === 'sibling' || t.type === 'adjacent' || t.type === 'parent' || t.type === 'column-combinator'
  );
}

function needsTree(): never {
  throw new Error('this selector needs the whole page (parse/selectors.ts lets only selectors of ancestors stream)');
}

/** css-select's view of the stream's elements: themselves and their ancestors, nothing else. */
const STREAM_ADAPTER = {
  isTag: (node: StreamElement): node is StreamElement => node.type === 'tag' || node.type === 'script' || node.type === 'style',
  getName: (e: StreamElement) => e.name,
  getParent: (e: StreamElement) => e.parent,
  getAttributeValue: (e: StreamElement, name: string): string | undefined => e.attribs[name],
  hasAttrib: (e: StreamElement, name: string) => Object.hasOwn(e.attribs, name) && e.attribs[name] != null,
  getChildren: needsTree,
  getSiblings: needsTree,
  getText: needsTree,
  existsOne: needsTree,
  findAll: needsTree,
  findOne: needsTree,
  removeSubsets: needsTree,
};
