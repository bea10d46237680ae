/**
 * What the outcome policy (outcome.ts) is told and what it decides: the facts of one fetch, the
 * crawl's rules, and the decision — the record's outcome, its revisit and the effects the crawler
 * writes in one commit — with the builder the effects are collected in on the way.
 */
import type { ErrorCode, Outcome, QueuedUrl, Revisit, StoredDocument } from '../model/index.ts';
import type { RetryPolicy } from './errors.ts';
import type { FetchResult } from './fetch/fetcher.ts';
import type { Focus, Verdict } from './focus/focus.ts';
import type { RevisitPolicy } from './frontier/revisit.ts';
import type { LinkBatch } from './links.ts';
import type { Extracted } from './parse/index.ts';
import type { Admission } from './urls/filters.ts';

/** What the policy is told of one fetch. */
export type FetchFacts = {
  readonly q: QueuedUrl;
  readonly res: FetchResult;
  /** Trawl held a stored copy of the page before this fetch. */
  readonly held: boolean;
  /** The request was conditional (the stored copy's validators were sent). */
  readonly conditional: boolean;
  readonly extracted?: Extracted | undefined;
  readonly verdict?: Verdict | undefined;
  /** The page's content hash (pageHash), when it is a page. */
  readonly hash?: string | undefined;
  /** A stored document with the same content hash (the content-seen test), if any. */
  readonly sameContent?: { readonly id: number; readonly url: string } | undefined;
  /** Why the page was rendered in a browser (the page extracted is the rendered one). */
  readonly rendered?: string | undefined;
  /** The page needed a browser and rendering it failed: why. */
  readonly renderFailed?: string | undefined;
  /** The URL is the login page of an auth form scope: never indexed. */
  readonly loginPage?: boolean;
  /** The host was given up on in this run: a URL that would be retried dies with it. */
  readonly deadHost?: { readonly error: ErrorCode; readonly reason: string } | undefined;
  readonly now: number;
};

/** The crawl's settings and URL policy, as the decision needs them. */
export type OutcomeRules = {
  /** Normalizes and filters a raw URL (crawler/urls/filters.ts admit, with the crawl's policy). */
  readonly admit: (raw: string, depth: number, base?: string) => Admission;
  readonly maxRedirects: number;
  readonly followNofollow: boolean;
  readonly retry: RetryPolicy;
  readonly revisit: RevisitPolicy;
  readonly focus?: Focus | undefined;
};

export type Effects = {
  /** The stored copy of the page (if any) leaves the store and the index. */
  readonly unindex?: boolean;
  /** The page's new copy, to store and index. */
  readonly document?: StoredDocument;
  /** The stored copy is the same: only its fetch time moves. */
  readonly touch?: boolean;
  /** The page has the same content as this stored document. */
  readonly duplicateOf?: number;
  /** Links to admit and queue. */
  readonly links: readonly LinkBatch[];
  /** Already admitted URLs to queue (a redirect's target). */
  readonly enqueue: readonly { url: string; fetchUrl: string; depth: number; hops: number; tunnel: number }[];
  /** Rejections to count (a redirect not followed). */
  readonly rejected: ReadonlyMap<string, number>;
  /** A sitemap: its <lastmod>s may have made pages due, to be looked for at once. */
  readonly sitemap?: boolean;
};

export type Decision = {
  readonly outcome: Outcome;
  readonly revisit: Revisit;
  readonly effects: Effects;
  /** What became of the page in the index (the fetch event's `change`). */
  readonly change?: 'new' | 'changed' | 'unchanged' | 'gone';
};

/** The effects a decision collects on its way (mutable while deciding, frozen in the Decision). */
export class EffectsBuilder {
  unindex = false;
  touch = false;
  sitemap = false;
  document: StoredDocument | undefined;
  duplicateOf: number | undefined;
  readonly links: LinkBatch[] = [];
  readonly enqueue: Effects['enqueue'][number][] = [];
  readonly rejected = new Map<string, number>();

  build(): Effects {
    return {
      links: this.links,
      enqueue: this.enqueue,
      rejected: this.rejected,
      ...(this.unindex ? { unindex: true } : {}),
      ...(this.touch ? { touch: true } : {}),
      ...(this.sitemap ? { sitemap: true } : {}),
      ...(this.document ? { document: this.document } : {}),
      ...(this.duplicateOf !== undefined ? { duplicateOf: this.duplicateOf } : {}),
    };
  }
}
