/**
 * The classifier interface of a focused crawl: a page in, a score, a decision and classes out.
 * The built-in one scores against a topic file (scorers.ts); a user's own module can take its
 * place (`focus.classifier`), and gets the topic, the cutoff and the scoring options to use or ignore.
 *
 * A user module exports (as default, or as `createClassifier`) either a function of the context
 * that returns a classifier (or a promise of one), or a classifier object: `{ classify(page) }`,
 * returning `{ score, relevant?, classes?, matches? }` or a promise of it. `relevant` left out
 * means `score >= cutoff`; `classes` may be names or `{ name, score }`.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { scorePage, type ClassScore, type ScoringOptions, type TermMatch, type TopicPage } from './scorers.ts';
import { CLASS_NAME, type Topic } from './topic.ts';

export type ClassifyInput = TopicPage & { readonly url: string };

export type Classification = {
  readonly score: number;
  readonly relevant: boolean;
  readonly classes: readonly ClassScore[];
  readonly matches: readonly TermMatch[];
};

export interface Classifier {
  /** For reports: "topic coins (plain scorer)", a module's path. */
  readonly name: string;
  classify(page: ClassifyInput): Classification | Promise<Classification>;
}

/** What a user module is given. */
export type ClassifierContext = { readonly topic?: Topic; readonly cutoff: number; readonly scoring: ScoringOptions };

/** A classifier module that cannot be loaded or used; the CLI exits with code 2. */
export class ClassifierError extends Error {
  readonly code = 'ERR_CLASSIFIER';
}

/** The built-in classifier: a topic's score against a cutoff. */
export class TopicClassifier implements Classifier {
  readonly name: string;
  constructor(
    private readonly topic: Topic,
    private readonly cutoff: number,
    private readonly scoring: ScoringOptions,
  ) {
    this.name = `topic ${topic.name} (${scoring.scorer} scorer${scoring.normalize ? ', normalized' : ''}, cutoff ${cutoff})`;
  }

  classify(page: ClassifyInput): Classification {
    const s = scorePage(this.topic, page, this.scoring);
    return { score: s.score, relevant: s.score >= this.cutoff, classes: s.classes, matches: s.matches };
  }
}

/**
 * A user's module: JavaScript as it is; TypeScript (.ts, .mts, .cts) through tsx, which the
 * compiled CLI does not otherwise load (it runs no TypeScript of its own).
 */
async function importModule(file: string): Promise<unknown> {
  if (!/\.[cm]?ts$/.test(file)) return import(pathToFileURL(file).href);
  const { tsImport } = await import('tsx/esm/api');
  return tsImport(pathToFileURL(file).href, import.meta.url);
}

/** Loads a user's classifier module; what it returns is checked on every page (checked()). */
export async function loadClassifierModule(path: string, context: ClassifierContext): Promise<Classifier> {
  const file = resolve(path);
  let mod: Record<string, unknown>;
  try {
    mod = (await importModule(file)) as Record<string, unknown>;
  } catch (e) {
    throw new ClassifierError(`cannot load the classifier module ${path}: ${(e as Error).message}`);
  }
  // (A TypeScript module outside an ES-module package is compiled as CommonJS: its exports are then
  // the namespace's default.)
  const inner = mod.default as Record<string, unknown> | undefined;
  if (inner && typeof inner === 'object' && typeof inner.classify !== 'function' && ('default' in inner || 'createClassifier' in inner)) mod = inner;
  let made = mod.default ?? mod.createClassifier;
  try {
    if (typeof made === 'function') made = await (made as (c: ClassifierContext) => unknown)(context);
  } catch (e) {
    throw new ClassifierError(`the classifier module ${path} failed to start: ${(e as Error).message}`);
  }
  const classify = (made as { classify?: unknown } | null)?.classify;
  if (typeof classify !== 'function') {
    throw new ClassifierError(
      `the classifier module ${path} must export (as default, or as createClassifier) an object with a classify(page) method, or a function returning one`,
    );
  }
  const impl = made as { classify(page: ClassifyInput): unknown };
  return {
    name: `module ${path}`,
    classify: async (page) => checked(await impl.classify(page), context.cutoff, path),
  };
}

/** A user classifier's answer, checked and completed: a broken answer fails that page, clearly. */
function checked(value: unknown, cutoff: number, path: string): Classification {
  const bad = (what: string): never => {
    throw new ClassifierError(`the classifier module ${path} returned ${what}`);
  };
  if (typeof value !== 'object' || value === null) return bad(`${value === null ? 'null' : typeof value} instead of { score, relevant?, classes? }`);
  const v = value as { score?: unknown; relevant?: unknown; classes?: unknown; matches?: unknown };
  if (typeof v.score !== 'number' || !Number.isFinite(v.score)) return bad(`a score that is not a finite number (${String(v.score)})`);
  if (v.relevant !== undefined && typeof v.relevant !== 'boolean') return bad('a "relevant" that is not true or false');
  const classes: ClassScore[] = [];
  if (v.classes !== undefined) {
    if (!Array.isArray(v.classes)) return bad('"classes" that is not an array');
    for (const c of v.classes as unknown[]) {
      const name = typeof c === 'string' ? c : (c as { name?: unknown } | null)?.name;
      const score = typeof c === 'string' ? v.score : (c as { score?: unknown }).score;
      if (typeof name !== 'string' || !CLASS_NAME.test(name))
        return bad(`a class name that is not a name (${JSON.stringify(name)}): letters and digits, then also ".", "_" or "-"`);
      if (typeof score !== 'number' || !Number.isFinite(score)) return bad(`class "${name}" with a score that is not a finite number`);
      classes.push({ name: name.toLowerCase(), score });
    }
  }
  return {
    score: v.score,
    relevant: typeof v.relevant === 'boolean' ? v.relevant : v.score >= cutoff,
    classes,
    matches: Array.isArray(v.matches) ? (v.matches as TermMatch[]) : [],
  };
}
