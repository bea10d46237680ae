/**
 * One URL's pipeline: fetch (conditionally for a page Trawl holds), parse (in a worker; rendered
 * in a browser when the page needs it), judge (a focused crawl's topic), decide (the outcome
 * policy, outcome.ts) — and return what it comes to: the commit that writes it, with what follows
 * (the page to index, the anchor text, the fetch event). It writes nothing itself: the loop
 * (loop.ts) writes each URL's end through the frontier and tells the index. It knows nothing of the
 * loop — the abort signal is passed in, and whether a host was given up is asked of the frontier.
 */
import type { FetchEvent, Outcome, QueuedUrl, StoredDocument } from '../model/index.ts';
import type { FetchCommit } from '../store/index.ts';
import { ERRORS, fromFetchCode, fromHttpStatus } from './errors.ts';
import type { FetchResponse, FetchResult } from './fetch/fetcher.ts';
import { judge as judgeTopic, type Verdict } from './focus/focus.ts';
import type { Frontier, RequestEnd, UrlCommit } from './frontier/frontier.ts';
import type { Admitted, LinkAdmitter } from './links.ts';
import type { Decision, FetchFacts, OutcomeRules } from './decision.ts';
import { contentLanguageOf, decideOutcome, pageHash } from './outcome.ts';
import type { Extracted, ParseJob } from './parse/extract.ts';
import { ParseFailure } from './parse/pool.ts';
import { parseAndRender, type RenderedPage } from './render/stage.ts';
import { productToken } from './robots/robots.ts';
import type { StatsRecorder } from './stats.ts';
import type { PageSettings } from './template/extraction.ts';
import type { CrawlerDeps } from './types.ts';
import { admit } from './urls/filters.ts';

/** A response to decide on: fetched now, or (`at`) a capture of a web archive made then. */
export type Response = {
  readonly aborted?: false;
  readonly res: FetchResult;
  readonly started: number;
  readonly ended: number;
  /** Trawl held a stored copy of the page before this fetch. */
  readonly held: boolean;
  /** The request was conditional (the stored copy's validators were sent). */
  readonly conditional: boolean;
  /** The time the URL's end is decided and written at, when it is not now (an archive's capture date). */
  readonly at?: number;
  /** The page's title as an archive tells it (a WACZ's pages.jsonl), for a page whose own has none. */
  readonly title?: string;
  /** How the request ended, for the host's politeness. */
  readonly request: RequestEnd;
};

/** What a fetch gave: a response, or nothing — it was aborted by a stop (the URL goes back). */
export type Fetched = Response | { readonly aborted: true; readonly request: RequestEnd };

/** What the decision was made from: the pipeline decides again from it (asDuplicate) and learns from it once written (committed). */
export type Judged = {
  readonly facts: FetchFacts;
  /** What the parse worker added for the index (opaque to the crawler). */
  readonly analysis: unknown;
  /** The version of the host's template the page was parsed with. */
  readonly templateVersion: number;
  readonly response: Response;
  readonly decision: Decision;
  /** The links admitted for the commit (the seen cache learns them once it is written). */
  readonly admitted?: Admitted;
};

/** A URL's end: the commit the frontier writes, and what follows it. */
export type UrlEnd = UrlCommit & {
  /** The page to index once it is stored, with what the parse worker added for the index. */
  readonly page?: { readonly doc: StoredDocument; readonly analysis: unknown };
  /** The fetch event, once written (none for a URL not fetched: robots.txt disallows it). */
  readonly fetch?: FetchEvent;
  /** The response it came from (the archive keeps it, whatever it came to). */
  readonly response?: Response;
  readonly judged?: Judged;
};

/** What the loop asks of the pipeline, one URL at a time. */
export interface Pipeline {
  /** Fetches the URL; the request's end tells the host's politeness. */
  fetch(item: QueuedUrl, signal: AbortSignal): Promise<Fetched>;
  /** What a response comes to: parsed, judged, decided — the commit and what follows it. */
  judge(item: QueuedUrl, response: Response, signal: AbortSignal): Promise<UrlEnd>;
  /** The same, decided again as a duplicate of `seen`: the store gave the commit up (contentSeen), having that content already. */
  asDuplicate(end: UrlEnd, seen: { readonly id: number; readonly url: string }): Promise<UrlEnd>;
  /** A URL whose handling threw (a page that broke the parser, a bug): dead, with why. It costs one URL, never the crawl. */
  failed(item: QueuedUrl, response: Response, error: unknown): UrlEnd;
  /** A URL robots.txt disallows: excluded, never fetched; a page Trawl held leaves the index. */
  disallowed(item: QueuedUrl): UrlEnd;
  /** What the pipeline learns once a URL's end is written and told: the links now in the frontier, the page's blocks, the response (archived). */
  committed(item: QueuedUrl, end: UrlEnd): Promise<void>;
}

/** The crawler's stages, and of the frontier only what the policy asks: whether a URL's host was given up. */
export type PipelineDeps = Omit<CrawlerDeps, 'frontier' | 'now'> & {
  readonly givenUp: Frontier['givenUp'];
  readonly now: () => number;
  readonly stats: StatsRecorder;
  readonly links: LinkAdmitter;
};

export class UrlPipeline implements Pipeline {
  private readonly rules: OutcomeRules;
  /** The user agent's product token, lowercased: `<meta name="TOKEN">` counts like robots. */
  private readonly token: string;

  constructor(private readonly d: PipelineDeps) {
    this.token = productToken(d.userAgent).toLowerCase();
    this.rules = {
      admit: (raw, depth, base) => admit(d.policy, raw, depth, base),
      maxRedirects: d.limits.maxRedirects,
      followNofollow: d.limits.followNofollow,
      retry: d.limits.retry,
      revisit: d.limits.revisit,
      focus: d.focus,
    };
  }

  async fetch(q: QueuedUrl, signal: AbortSignal): Promise<Fetched> {
    const started = this.d.now();
    const t0 = performance.now();
    // A page Trawl holds is asked for conditionally: unchanged, it costs no download, no parse
    // and no reindexing.
    const held = await this.d.store.documents.has(q.id);
    const conditional = held && Boolean(q.etag || q.lastModified || q.hash);
    const validators = conditional ? { etag: q.etag ?? undefined, lastModified: q.lastModified ?? undefined } : undefined;
    const res = await this.d.fetcher.fetch(q.fetchUrl, signal, validators);
    const ended = this.d.now();
    if (res.kind === 'error' && res.code === 'aborted') return { aborted: true, request: { at: ended, ok: true } };
    this.d.stats.time('fetch', performance.now() - t0);
    this.d.stats.request(res.kind === 'response' ? res.wireBytes : 0);
    const error = res.kind === 'error' ? fromFetchCode(res.code) : res.status === 429 || res.status >= 500 ? fromHttpStatus(res.status) : undefined;
    const request: RequestEnd = {
      at: ended,
      ok: !error || !ERRORS[error].hostFault,
      retryAfterMs: res.kind === 'response' ? res.retryAfterMs : undefined,
      ...(error ? { error } : {}),
    };
    return { res, started, ended, held, conditional, request };
  }

  /** An archive's capture as a response fetched at `capturedAt` (trawl import). */
  async received(q: QueuedUrl, res: FetchResponse, capturedAt: number, title?: string): Promise<Response> {
    const held = await this.d.store.documents.has(q.id);
    const at = capturedAt;
    return { res, started: at, ended: at, held, conditional: false, at, request: { at, ok: true }, ...(title ? { title } : {}) };
  }

  async judge(q: QueuedUrl, response: Response, signal: AbortSignal): Promise<UrlEnd> {
    const { res, held, conditional } = response;
    // (The host's template now: a page parsed with an older one is cleaned once stored.)
    const extraction = this.d.extraction?.forPage(q.host, q.fetchUrl);
    let rendering: RenderedPage | undefined;
    if (res.kind === 'response' && res.status >= 200 && res.status < 300) {
      const p0 = performance.now();
      // (Rendered in a browser too, when the page needs it: crawler/render.)
      rendering = await parseAndRender(this.d.render, res, this.jobOf(q, res, extraction), (job) => this.d.parser.parse(job), signal);
      if (rendering.ms !== undefined) this.d.stats.time('render', rendering.ms);
      this.d.stats.time('parse', performance.now() - p0 - (rendering.ms ?? 0));
    }
    const extracted = withTitle(rendering?.extracted, response.title);
    // (From here on the page's work is on the main thread: it waits for its turn.)
    await this.d.slices?.turn();
    const page = extracted?.kind === 'page' ? await this.pageFacts(q, extracted) : undefined;
    const facts: FetchFacts = {
      q,
      res,
      held,
      conditional,
      extracted,
      ...page,
      deadHost: this.d.givenUp(q.host),
      now: response.at ?? this.d.now(),
      rendered: rendering?.rendered,
      renderFailed: rendering?.failed,
      loginPage: this.d.auth?.isLoginPage(q.fetchUrl) ?? false,
    };
    const analysis = extracted?.kind === 'page' ? extracted.analysis : undefined;
    return this.endOf({ facts, analysis, templateVersion: extraction?.version ?? 0, response, decision: decideOutcome(facts, this.rules) });
  }

  /** What the policy is told of a page beyond the response: its topic, its content hash, a stored document with the same content. */
  private async pageFacts(q: QueuedUrl, extracted: Extracted & { kind: 'page' }): Promise<Pick<FetchFacts, 'verdict' | 'hash' | 'sameContent'>> {
    let verdict: Verdict | undefined;
    if (this.d.focus) {
      const c0 = performance.now();
      verdict = await judgeTopic(this.d.focus, { ...extracted.page, url: q.fetchUrl });
      this.d.stats.time('classify', performance.now() - c0);
    }
    const hash = pageHash(extracted.page);
    // (A store whose commit tests the content itself gives the commit up for a duplicate: asDuplicate.)
    const test = extracted.page.text && !this.d.store.testsContentAtCommit;
    return { verdict, hash, sameContent: test ? await this.d.store.documents.findByHash(hash) : undefined };
  }

  asDuplicate(end: UrlEnd, seen: { readonly id: number; readonly url: string }): Promise<UrlEnd> {
    const j = end.judged!;
    const facts = { ...j.facts, sameContent: seen };
    return this.endOf({ ...j, facts, decision: decideOutcome(facts, this.rules) });
  }

  failed(q: QueuedUrl, response: Response, e: unknown): UrlEnd {
    const outcome: Outcome =
      e instanceof ParseFailure
        ? { kind: 'dead', error: 'unparsable', reason: e.message }
        : { kind: 'dead', error: 'internal', reason: `internal error: ${(e as Error).message}` };
    if (!(e instanceof ParseFailure)) this.d.log?.error(`${q.fetchUrl}: ${(e as Error).stack ?? String(e)}`);
    return { commit: { id: q.id, outcome, revisit: null }, at: response.at ?? this.d.now(), anchors: [], response, fetch: fetchEvent(q, response, outcome) };
  }

  disallowed(q: QueuedUrl): UrlEnd {
    const commit: FetchCommit = {
      id: q.id,
      outcome: { kind: 'excluded', reason: 'robots.txt disallows it' },
      revisit: null,
      unindex: true,
      links: { urls: [], rejected: new Map([['robots', 1]]) },
    };
    return { commit, at: this.d.now(), anchors: [] };
  }

  async committed(q: QueuedUrl, end: UrlEnd): Promise<void> {
    const j = end.judged;
    if (j?.admitted) this.d.links.remember(j.admitted);
    const blocks = j?.facts.extracted?.kind === 'page' ? j.facts.extracted.page.blocks : undefined;
    if (j && blocks) this.d.extraction?.parsed(q.host, blocks, j.templateVersion, j.decision.effects.document ? q.id : undefined);
    // (Archived as received, whatever it came to: the archive keeps what the web said.)
    const res = end.response?.res;
    if (this.d.archive && res?.kind === 'response') await this.d.archive.fetched(q.id, q.fetchUrl, res, end.fetch?.change === 'unchanged');
  }

  /** The commit a decision makes: the page, its record, its links admitted (and the rejections of the others). */
  private async endOf(j: Judged): Promise<UrlEnd> {
    const { q } = j.facts;
    const { effects } = j.decision;
    const at = j.response.at ?? this.d.now();
    const admitted = await this.d.links.admit(effects.links, this.d.slices);
    this.d.stats.time('links', admitted.ms);
    for (const e of effects.enqueue) admitted.urls.push(e);
    for (const [reason, n] of effects.rejected) admitted.rejected.set(reason, (admitted.rejected.get(reason) ?? 0) + n);
    const doc = effects.document;
    const sequence = doc ? this.d.index?.sequenceOf(j.analysis) : undefined;
    const commit: FetchCommit = {
      id: q.id,
      outcome: j.decision.outcome,
      revisit: j.decision.revisit,
      ...(effects.unindex ? { unindex: true } : {}),
      ...(effects.duplicateOf !== undefined ? { duplicateOf: effects.duplicateOf } : {}),
      ...(doc ? { document: { doc, ...(sequence ? { sequence } : {}) } } : {}),
      ...(effects.touch ? { touch: at } : {}),
      links: { urls: admitted.urls, rejected: admitted.rejected },
    };
    return {
      commit,
      at,
      anchors: admitted.anchors,
      ...(effects.sitemap ? { sitemap: true } : {}),
      ...(doc ? { page: { doc, analysis: j.analysis } } : {}),
      fetch: fetchEvent(q, j.response, j.decision.outcome, j.decision.change),
      response: j.response,
      judged: { ...j, admitted },
    };
  }

  /** What the parser is given of a response: the body and the settings that bound its parsing. */
  private jobOf(q: QueuedUrl, res: FetchResponse, extraction?: PageSettings): ParseJob {
    const { maxLinksPerPage, documents } = this.d.limits;
    return {
      body: res.body,
      contentType: res.contentType,
      url: q.fetchUrl,
      robotsToken: this.token,
      ...(res.truncated ? { truncated: true } : {}),
      maxLinks: maxLinksPerPage,
      documentTypes: documents.types,
      maxPages: documents.maxPages,
      maxDocumentBytes: documents.maxBytes,
      ...(extraction?.exclude ? { exclude: extraction.exclude } : {}),
      ...(extraction?.template ? { template: extraction.template } : {}),
      // (The extractor for the index stems the page by its language: it must know this one.)
      ...(res.headers['content-language'] ? { contentLanguage: contentLanguageOf(res) } : {}),
    };
  }
}

/** The fetch event of a URL's end. */
function fetchEvent(q: QueuedUrl, r: Response, outcome: Outcome, change?: Decision['change']): FetchEvent {
  const { res } = r;
  return {
    url: q.url,
    status: res.kind === 'response' ? res.status : res.code,
    ms: r.ended - r.started,
    bytes: res.kind === 'response' ? res.wireBytes : 0,
    outcome: outcome.kind,
    ...(r.held ? { held: r.held } : {}),
    ...(change ? { change } : {}),
  };
}

/** A page without a title of its own is given the one its archive tells (trawl import of a WACZ). */
function withTitle(extracted: Extracted | undefined, title: string | undefined): Extracted | undefined {
  if (!title || extracted?.kind !== 'page' || !extracted.page.untitled) return extracted;
  const { untitled: _, ...page } = extracted.page;
  return { ...extracted, page: { ...page, title } };
}
