/**
 * Every request a rendered page makes, and what becomes of it. The browser itself fetches nothing:
 *
 *   the page's own navigation  fulfilled with the body the crawler already fetched (politely)
 *   later main-frame navigations  answered 204, so the document stays (the crawler follows links itself)
 *   requests of another page   aborted (popups are closed anyway)
 *   non-http(s) schemes        aborted
 *   types not in FETCHED       aborted: images, media, fonts, beacons, event streams, manifests…
 *   beyond maxRequests         aborted, and the page fails 'too-many-requests' at once
 *   refused by allowRequest    aborted (counted: refusals cannot be spun forever either)
 *   the rest                   made by the crawler's subFetch with the remaining byte budget; a
 *                              truncated answer or an exhausted budget fails the page 'too-large';
 *                              a fetch error is a network error for the page, nothing more
 */
import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { NetworkView } from './settle.ts';
import type { RenderFailure, RenderJob, RenderOptions } from './types.ts';

/** Resource types made through subFetch: what builds the DOM. Everything else is aborted unasked. */
export const FETCHED: ReadonlySet<string> = new Set(['document', 'script', 'stylesheet', 'xhr', 'fetch']);

/**
 * Sub-requests whose handling the page counts itself until its code has run (settle.ts): after the
 * others (scripts, stylesheets, frames) the settle wait asks for a longer stillness.
 */
const COUNTED_IN_PAGE: ReadonlySet<string> = new Set(['xhr', 'fetch']);

/** Sub-fetches of one page at once, as a browser's per-host limit: bounds the bytes held to this × the budget. */
const PARALLEL_FETCHES = 6;

/** Headers the browser's request does not pass on: hop-by-hop, framing, and those the fetcher sets itself. */
const DROPPED_REQUEST = new Set([
  'host',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'accept-encoding',
  'user-agent',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
]);
/** Headers of an answer that no longer describe the (decoded, whole) body handed to the browser. */
const DROPPED_RESPONSE = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'connection', 'keep-alive']);

type Fail = (reason: RenderFailure, detail: string) => void;

/** The page's sub-request counts and timing: what the result reports and the settle loop reads. */
export class Traffic implements NetworkView {
  requests = 0;
  bytes = 0;
  readonly #starts = new Set<{ at: number }>();
  #lastChange = performance.now();
  #lastUncounted = -Infinity;
  #uncounted = 0;

  /** A sub-request of this resource type begins; the function returned ends it. */
  begin(type: string): () => void {
    const entry = { at: performance.now() };
    this.#starts.add(entry);
    this.#lastChange = entry.at;
    return () => {
      this.#starts.delete(entry);
      this.#lastChange = performance.now();
      this.#answered(type);
    };
  }

  /** A sub-request aborted before it began (refused, over the limits): the page handles that answer too. */
  refused(type: string): void {
    this.#answered(type);
  }

  #answered(type: string): void {
    if (COUNTED_IN_PAGE.has(type)) return;
    this.#uncounted += 1;
    this.#lastUncounted = performance.now();
  }

  sinceUncountedMs(now: number): number {
    return now - this.#lastUncounted;
  }

  uncountedEnded(): number {
    return this.#uncounted;
  }

  inFlight(): number {
    return this.#starts.size;
  }

  sinceChangeMs(now: number): number {
    return now - this.#lastChange;
  }

  youngestInFlightMs(now: number): number {
    let youngest = Infinity;
    for (const { at } of this.#starts) youngest = Math.min(youngest, now - at);
    return youngest;
  }
}

export type Interception = {
  readonly job: RenderJob;
  readonly options: RenderOptions;
  readonly page: Page;
  readonly traffic: Traffic;
  readonly fail: Fail;
  /** Aborted when the render has ended: late requests are dropped, sub-fetches in flight cancelled. */
  readonly ended: AbortSignal;
  /** Origins the page reached (its documents and sub-requests): whose storage is cleared before its tab is reused. */
  readonly origins: Set<string>;
};

/** Per render: whether its own navigation has been answered yet, and its sub-fetches at once. */
const perRender = new WeakMap<Interception, { navigated: boolean; slots: Semaphore }>();

/**
 * Routes every request (and WebSocket) of the context as the table at the top says, for whichever
 * render holds the context at the moment (`current`; a tab is reused, page after page): between two
 * renders, everything is aborted.
 */
export async function intercept(context: BrowserContext, current: (page: Page | undefined) => Interception | undefined): Promise<void> {
  // No server is ever connected: the page's socket is closed as soon as it opens.
  await context.routeWebSocket(/./, (ws) => ws.close({ code: 1008, reason: 'no WebSockets while rendering' }));

  await context.route('**/*', async (route, request) => {
    try {
      const page = ownerPage(request);
      const x = current(page);
      if (x === undefined || x.ended.aborted || page !== x.page) return await route.abort();
      let state = perRender.get(x);
      if (state === undefined) perRender.set(x, (state = { navigated: false, slots: new Semaphore(PARALLEL_FETCHES) }));
      const origin = originOf(request.url());
      if (origin !== undefined) x.origins.add(origin);
      if (request.isNavigationRequest() && request.frame() === x.page.mainFrame()) {
        if (state.navigated) return await route.fulfill({ status: 204 });
        state.navigated = true;
        return await route.fulfill(documentAnswer(x.job));
      }
      await subRequest(route, request, x, state.slots);
    } catch {
      await route.abort().catch(() => undefined); // the context is closing, or the page went away
    }
  });
}

function originOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}

async function subRequest(route: Route, request: Request, x: Interception, slots: Semaphore): Promise<void> {
  const url = request.url();
  const type = request.resourceType();
  if (!FETCHED.has(type)) return route.abort('blockedbyclient');
  const { options: o, traffic } = x;
  if (!/^https?:/i.test(url)) return refuse(route, traffic, type);
  traffic.requests += 1;
  if (traffic.requests > o.maxRequests) {
    x.fail('too-many-requests', `more than ${o.maxRequests} sub-requests (the last: ${url})`);
    return refuse(route, traffic, type);
  }
  if (o.allowRequest && !o.allowRequest(url)) return refuse(route, traffic, type);

  const done = traffic.begin(type);
  await slots.acquire();
  try {
    const remaining = o.maxBytes - traffic.bytes;
    if (remaining <= 0 || x.ended.aborted) {
      if (remaining <= 0) x.fail('too-large', `sub-responses over ${o.maxBytes} bytes`);
      return await route.abort();
    }
    const answer = await o.subFetch(
      url,
      { method: request.method(), headers: requestHeaders(request), body: request.postDataBuffer() ?? undefined },
      remaining,
      x.ended,
    );
    if ('error' in answer) return await route.abort('failed');
    traffic.bytes += answer.body.byteLength;
    if (answer.truncated || traffic.bytes > o.maxBytes) {
      x.fail('too-large', `sub-responses over ${o.maxBytes} bytes (at ${url})`);
      return await route.abort();
    }
    await route.fulfill({
      status: answer.status,
      headers: responseHeaders(answer.headers),
      body: Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength),
    });
  } finally {
    slots.release();
    done();
  }
}

async function refuse(route: Route, traffic: Traffic, type: string): Promise<void> {
  await route.abort('blockedbyclient');
  traffic.refused(type);
}

/** The page a request belongs to; undefined for a service worker's (which are blocked anyway). */
function ownerPage(request: Request): Page | undefined {
  try {
    return request.frame().page();
  } catch {
    return undefined;
  }
}

/** The crawler's answer, as the browser gets it. Redirects and empty answers are not replayed: the crawler handled those. */
function documentAnswer(job: RenderJob): Parameters<Route['fulfill']>[0] {
  const status = job.status ?? 200;
  const replayable = status >= 200 && status < 600 && !(status >= 300 && status < 400) && status !== 204 && status !== 205;
  const headers = responseHeaders(job.headers ?? {});
  delete headers.location;
  delete headers['content-disposition']; // an attachment would turn the page into a download
  delete headers.refresh; // a redirect in disguise, which the crawler has seen in the headers already
  headers['content-type'] = job.contentType;
  return { status: replayable ? status : 200, headers, body: Buffer.from(job.body.buffer, job.body.byteOffset, job.body.byteLength) };
}

function requestHeaders(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers())) if (!DROPPED_REQUEST.has(name.toLowerCase())) out[name] = value;
  return out;
}

function responseHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (!DROPPED_RESPONSE.has(name.toLowerCase())) out[name.toLowerCase()] = value;
  return out;
}

/** A counting semaphore with a FIFO queue. */
class Semaphore {
  readonly #queue: (() => void)[] = [];
  constructor(private free: number) {}
  async acquire(): Promise<void> {
    if (this.free > 0) {
      this.free -= 1;
      return;
    }
    await new Promise<void>((resolve) => this.#queue.push(resolve));
  }
  release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.free += 1;
  }
}
