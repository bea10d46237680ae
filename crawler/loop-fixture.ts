/**
 * Test fixture for the crawl loop (loop.test.ts): an in-memory frontier and a scripted pipeline,
 * each implementing the interface the loop sees, recording what the loop asked of them, with
 * the steps a test holds (a fetch, a judgement) resolved when the test says. `changed` wakes
 * whoever waits for a condition on what was recorded (until()).
 */
import type { FetchEvent, NewUrl, QueuedUrl } from '../model/index.ts';
import type { EnqueueBatch, EnqueueResult, FetchCommitResult } from '../store/index.ts';
import type { Frontier, FrontierItem, FrontierRun, Next, PUT_BACK, RequestEnd, UrlCommit } from './frontier/frontier.ts';
import type { Fetched, Pipeline, Response, UrlEnd } from './pipeline.ts';

/** Conditions on what the fixtures recorded, awaited without a clock: checked at every change. */
export class Changes {
  private waiters: { cond: () => boolean; resolve: () => void }[] = [];

  changed(): void {
    for (const w of [...this.waiters])
      if (w.cond()) {
        this.waiters.splice(this.waiters.indexOf(w), 1);
        w.resolve();
      }
  }

  /** Resolves once `cond` holds (at once if it does). */
  until(cond: () => boolean): Promise<void> {
    if (cond()) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ cond, resolve }));
  }
}

let ids = 0;
/** A URL as the frontier hands it out. */
export const item = (path: string, extra: Partial<FrontierItem> = {}): FrontierItem => {
  const url = `http://a.org${path}`;
  return { id: ++ids, url, fetchUrl: url, host: 'a.org', depth: 0, hops: 0, attempts: 1, kind: 'queued', ...extra };
};

/** A deferred step: a promise and what settles it. */
export type Held<T> = { readonly item: QueuedUrl; readonly promise: Promise<T>; resolve(value: T): void; reject(e: unknown): void };
function held<T>(item: QueuedUrl): Held<T> {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { item, promise, resolve, reject };
}

/**
 * A frontier of a fixed list of URLs, handed out in order. Once they are out it answers `wait`
 * (until `wakeAt`, when set) while any is in the pipeline, then `done` (`reason`). `results`
 * says what a URL's commit comes to (default: written, a page stored as change 1).
 */
export class MemoryFrontier implements Frontier {
  readonly worker = undefined;
  busy = false;
  readonly queued: FrontierItem[];
  readonly handedOut: FrontierItem[] = [];
  readonly settledItems: FrontierItem[] = [];
  readonly requests: { item: FrontierItem; end: RequestEnd }[] = [];
  readonly finished: { item: QueuedUrl; end: UrlCommit | typeof PUT_BACK }[] = [];
  nextCalls = 0;
  syncs = 0;
  stopped = 0;
  run: FrontierRun | undefined;
  /** While true, nothing is ready: `wait` until `wakeAt`. */
  hold = false;
  wakeAt: number | undefined;
  reason: 'exhausted' | 'limit' = 'exhausted';
  /** Called in next() before it answers done (a test makes work arrive meanwhile). */
  beforeDone: (() => void) | undefined;
  results: (item: QueuedUrl, end: UrlCommit, n: number) => Partial<FetchCommitResult> = () => ({});

  constructor(
    private readonly changes: Changes,
    items: readonly FrontierItem[],
  ) {
    this.queued = [...items];
  }

  async start(run: FrontierRun): Promise<void> {
    this.run = run;
  }

  async next(): Promise<Next> {
    this.nextCalls++;
    this.changes.changed();
    await Promise.resolve();
    const ready = !this.hold && this.queued.shift();
    if (ready) {
      this.handedOut.push(ready);
      return { kind: 'item', item: ready };
    }
    if (this.hold || this.handedOut.length > this.settledItems.length) return { kind: 'wait', until: this.wakeAt };
    this.beforeDone?.();
    return { kind: 'done', reason: this.reason };
  }

  async fetched(item: FrontierItem, end: RequestEnd): Promise<void> {
    this.requests.push({ item, end });
  }

  finish(item: QueuedUrl, end: UrlCommit): Promise<FetchCommitResult>;
  finish(item: QueuedUrl, end: typeof PUT_BACK): Promise<undefined>;
  async finish(item: QueuedUrl, end: UrlCommit | typeof PUT_BACK): Promise<FetchCommitResult | undefined> {
    this.finished.push({ item, end });
    this.changes.changed();
    if ('putBack' in end) return undefined;
    const n = this.finished.filter((f) => f.item.id === item.id).length;
    return { enqueued: { added: [], hosts: new Set() }, ...(end.commit.document ? { stored: 1 } : {}), ...this.results(item, end, n) };
  }

  settled(item: FrontierItem): void {
    this.settledItems.push(item);
    this.changes.changed();
  }

  async claim(url: NewUrl): Promise<QueuedUrl> {
    return { id: ++ids, url: url.url, fetchUrl: url.fetchUrl ?? url.url, host: new URL(url.url).host, depth: url.depth, hops: 0, attempts: 1 };
  }

  async enqueue(batch: EnqueueBatch): Promise<EnqueueResult> {
    return { added: batch.urls.map((u) => u.url), hosts: new Set() };
  }

  /** More URLs (as links or a seed would bring): the loop is woken. */
  add(...items: FrontierItem[]): void {
    this.queued.push(...items);
  }

  addWork(): void {}
  givenUp(): undefined {
    return undefined;
  }
  urlsOfHost(): number {
    return 0;
  }
  async sync(): Promise<void> {
    this.syncs++;
  }
  async stop(): Promise<void> {
    this.stopped++;
  }
}

/**
 * A pipeline whose fetches and judgements are held until the test resolves them — or settled at
 * once (`immediate`): a fetch answers 200, a judgement stores the page. A fetch aborted by the
 * loop's signal answers aborted.
 */
export class ScriptedPipeline implements Pipeline {
  readonly fetches: Held<Fetched>[] = [];
  readonly judgements: Held<UrlEnd>[] = [];
  readonly duplicates: { end: UrlEnd; seen: { id: number; url: string } }[] = [];
  readonly failures: { item: QueuedUrl; error: unknown }[] = [];
  readonly committed_: UrlEnd[] = [];
  /** Fetches (judgements) that are not held: answered at once. */
  immediate = { fetch: true, judge: true };
  /** A judgement that throws for these URLs (a bug, a parser that died). */
  throwsFor = new Set<string>();

  constructor(private readonly changes: Changes) {}

  fetch(item: QueuedUrl, signal: AbortSignal): Promise<Fetched> {
    const h = held<Fetched>(item);
    this.fetches.push(h);
    signal.addEventListener('abort', () => h.resolve({ aborted: true, request: { at: 0, ok: true } }), { once: true });
    if (this.immediate.fetch) h.resolve(response());
    this.changes.changed();
    return h.promise;
  }

  judge(item: QueuedUrl, r: Response): Promise<UrlEnd> {
    const h = held<UrlEnd>(item);
    this.judgements.push(h);
    if (this.throwsFor.has(item.url)) h.reject(new Error('the parser fell over'));
    else if (this.immediate.judge) h.resolve(stored(item, r));
    this.changes.changed();
    return h.promise;
  }

  async asDuplicate(end: UrlEnd, seen: { id: number; url: string }): Promise<UrlEnd> {
    this.duplicates.push({ end, seen });
    const { page: _, ...rest } = end;
    return { ...rest, commit: { id: end.commit.id, outcome: { kind: 'excluded', reason: `duplicate of ${seen.url}` }, revisit: null, duplicateOf: seen.id } };
  }

  failed(item: QueuedUrl, r: Response, error: unknown): UrlEnd {
    this.failures.push({ item, error });
    const outcome = { kind: 'dead' as const, error: 'internal' as const, reason: `internal error: ${(error as Error).message}` };
    return { commit: { id: item.id, outcome, revisit: null }, at: 0, anchors: [], fetch: fetchEvent(item, r, 'dead') };
  }

  disallowed(item: QueuedUrl): UrlEnd {
    return { commit: { id: item.id, outcome: { kind: 'excluded', reason: 'robots.txt disallows it' }, revisit: null, unindex: true }, at: 0, anchors: [] };
  }

  async committed(_item: QueuedUrl, end: UrlEnd): Promise<void> {
    this.committed_.push(end);
    this.changes.changed();
  }
}

/** A 200 page, fetched. */
export function response(): Response {
  const body = Buffer.from('<p>page</p>');
  return {
    res: { kind: 'response', status: 200, contentType: 'text/html', headers: {}, body, truncated: false, wireBytes: body.length },
    started: 0,
    ended: 1,
    held: false,
    conditional: false,
    request: { at: 1, ok: true },
  };
}

/** A URL's end that stores its page (with anchor text to another page). */
export function stored(item: QueuedUrl, r: Response): UrlEnd {
  const doc = {
    id: item.id,
    url: item.url,
    title: item.url,
    description: '',
    headings: [],
    text: 'page',
    contentType: 'text/html',
    bytes: 11,
    truncated: false,
    httpStatus: 200,
    fetchedAt: 1,
    hash: `h${item.id}`,
  };
  return {
    commit: { id: item.id, outcome: { kind: 'indexed', status: 200 }, revisit: null, document: { doc } },
    at: 1,
    anchors: [{ source: item.url, links: [{ target: 'http://a.org/linked', text: 'a link' }] }],
    page: { doc, analysis: { of: item.id } },
    fetch: fetchEvent(item, r, 'indexed'),
  };
}

function fetchEvent(item: QueuedUrl, r: Response, outcome: FetchEvent['outcome']): FetchEvent {
  return { url: item.url, status: r.res.kind === 'response' ? r.res.status : r.res.code, ms: r.ended - r.started, bytes: 11, outcome };
}
