/**
 * A focused crawl's policy: which classifier judges pages, which hosts are always relevant, and how
 * far the crawl tunnels through pages that are not relevant. The crawler asks `judge()` for each
 * page it fetches and `follows()` whether to queue its links.
 */
import { ClassifierError, loadClassifierModule, TopicClassifier, type Classification, type Classifier, type ClassifyInput } from './classifier.ts';
import { DEFAULT_SCORING, type Location, type ScoringOptions } from './scorers.ts';
import { loadTopicFile, type Topic } from './topic.ts';

/** The `focus` settings (config/schema.ts), as the crawler needs them. */
export type FocusOptions = {
  readonly topicFile?: string | undefined;
  readonly classifier?: string | undefined;
  readonly scorer?: 'plain' | 'position';
  readonly cutoff?: number;
  readonly normalize?: boolean;
  readonly tunnel?: number;
  readonly sitesOK?: readonly string[];
  readonly locationWeights?: Readonly<Record<Location, number>>;
  readonly halfWeightAt?: number;
  readonly andHalfWeightGap?: number;
};

export type Focus = {
  readonly classifier: Classifier;
  readonly topic?: Topic | undefined;
  readonly cutoff: number;
  /** Pages that are not relevant, in a row from the last relevant page (or seed), whose links are still followed. */
  readonly tunnel: number;
  readonly sitesOK: readonly string[];
};

export type Verdict = Classification & {
  /** Relevant because its host is in `sitesOK`, whatever its score. */
  readonly siteOK?: boolean;
};

export const DEFAULT_CUTOFF = 10;
export const DEFAULT_TUNNEL = 1;
/** A classifier that takes longer on one page has failed on it. */
const CLASSIFY_TIMEOUT_MS = 10_000;

/** True when focusing is asked for: a topic file or a classifier module. */
export function focusing(o: FocusOptions | undefined): o is FocusOptions {
  return !!o && (!!o.topicFile || !!o.classifier);
}

export function scoringOf(o: FocusOptions): ScoringOptions {
  return {
    scorer: o.scorer ?? DEFAULT_SCORING.scorer,
    locationWeights: o.locationWeights ?? DEFAULT_SCORING.locationWeights,
    normalize: o.normalize ?? DEFAULT_SCORING.normalize,
    halfWeightAt: o.halfWeightAt ?? DEFAULT_SCORING.halfWeightAt,
    andHalfWeightGap: o.andHalfWeightGap ?? DEFAULT_SCORING.andHalfWeightGap,
  };
}

/**
 * Reads the topic file and loads the classifier. Throws TopicError (naming the line) or
 * ClassifierError: both are the user's input, and the CLI exits with code 2.
 */
export async function loadFocus(o: FocusOptions): Promise<Focus> {
  if (!o.classifier) return loadTopicFocus(o);
  const topic = o.topicFile ? loadTopicFile(o.topicFile) : undefined;
  const cutoff = o.cutoff ?? DEFAULT_CUTOFF;
  const classifier = await loadClassifierModule(o.classifier, { ...(topic ? { topic } : {}), cutoff, scoring: scoringOf(o) });
  return focusOf(o, classifier, topic);
}

/** loadFocus for the built-in classifier alone (no module to import): synchronous. */
export function loadTopicFocus(o: FocusOptions): Focus {
  if (o.classifier) throw new ClassifierError('a classifier module is loaded by loadFocus (asynchronously)');
  if (!o.topicFile) throw new ClassifierError('focus needs focus.topicFile or focus.classifier');
  const topic = loadTopicFile(o.topicFile);
  return focusOf(o, new TopicClassifier(topic, o.cutoff ?? DEFAULT_CUTOFF, scoringOf(o)), topic);
}

function focusOf(o: FocusOptions, classifier: Classifier, topic: Topic | undefined): Focus {
  return { classifier, topic, cutoff: o.cutoff ?? DEFAULT_CUTOFF, tunnel: o.tunnel ?? DEFAULT_TUNNEL, sitesOK: (o.sitesOK ?? []).map((h) => h.toLowerCase()) };
}

/** Classifies a page; a host in sitesOK makes it relevant whatever it scores. Bounded in time. */
export async function judge(focus: Focus, page: ClassifyInput, timeoutMs = CLASSIFY_TIMEOUT_MS): Promise<Verdict> {
  const answer = focus.classifier.classify(page);
  // A synchronous answer (the built-in scorer) needs no timer: none could fire before it.
  const c = answer instanceof Promise ? await bounded(answer, timeoutMs) : answer;
  if (!c.relevant && siteOK(focus, page.url)) return { ...c, relevant: true, siteOK: true };
  return c;
}

function bounded<T>(answer: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ClassifierError(`the classifier took more than ${timeoutMs / 1000} s on this page`)), timeoutMs);
  });
  return Promise.race([answer, timeout]).finally(() => clearTimeout(timer));
}

/** True when the URL's host is listed in sitesOK (or is a subdomain of one listed). */
export function siteOK(focus: Focus, url: string): boolean {
  if (!focus.sitesOK.length) return false;
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return false;
  }
  return focus.sitesOK.some((s) => host === s || host.endsWith(`.${s}`));
}

/** A seed's tunnel count: one below any page's, so that a seed's links are always followed (it is the user's starting point, often a hub). */
export const SEED_TUNNEL = -1;

/**
 * Whether a page's links are followed, and the tunnel count they get: a relevant page's links
 * (and a seed's) start again from 0; a page that is not relevant, reached through `tunnel` such
 * pages in a row (itself not counted), passes its links on only while it is fewer than `focus.tunnel`.
 */
export function follows(focus: Focus, relevant: boolean, tunnel: number): { follow: boolean; tunnel: number } {
  if (relevant) return { follow: true, tunnel: 0 };
  return { follow: tunnel < focus.tunnel, tunnel: tunnel + 1 };
}
