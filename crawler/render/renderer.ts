/**
 * The renderer: a pool of `concurrency` slots over one headless Chromium (browser.ts), and the
 * rendering of one page in a context of its own. Pages beyond the slots wait in FIFO order; a
 * page's budget starts when it gets a slot.
 *
 * One page: a new context (nothing shared with any other page: cookies, storage, cache), every
 * request routed (requests.ts), the crawler's body served as the navigation, dialogs dismissed,
 * popups closed; wait until settled (settle.ts), then the DOM as HTML and the URL the page's
 * router left. Whatever happens — a spinning script, a crash, the browser dying, the budget —
 * the page ends as a result: a single timer and the events below call `finish` (first call wins),
 * and the context is closed after, which also kills a renderer stuck in a loop.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BrowserHost } from './browser.ts';
import { intercept, Traffic } from './requests.ts';
import { SETTLE_INIT_SCRIPT, waitUntilSettled } from './settle.ts';
import { BrowserUnavailable, type RenderFailure, type Renderer, type RendererStats, type RenderJob, type RenderOptions, type RenderResult, type SettledBy } from './types.ts';

/** What is kept back from the settle wait for taking the snapshot (page.content()): a fifth of the budget, at most 2 s. The rendered HTML is held to maxBytes characters as well. */
const SNAPSHOT_SHARE = 0.2;
const SNAPSHOT_MAX_MS = 2000;
/** How long a failed step waits for the event (crash, disconnection) that explains it. */
const ECHO_GRACE_MS = 100;
/** A context that does not close in this long is left to the browser (its pages are dead to us already). */
const CLOSE_WAIT_MS = 5000;

/** Launches the browser (rejects with BrowserUnavailable) and returns the pool over it. */
export async function launchRenderer(options: RenderOptions): Promise<Renderer> {
  const host = await BrowserHost.start(options.browserPath, options.log);
  return new Pool(host, options);
}

/** One page's render in progress, as the pool sees it: it can be told that the browser is gone. */
type Running = { lost(detail: string): void };

class Pool implements Renderer {
  readonly #queue: (() => void)[] = [];
  readonly #running = new Set<Running>();
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #slots: number;
  #free: number;
  #closed = false;
  readonly #figures = { rendered: 0, failed: 0, totalMs: 0 };
  readonly #unsubscribe: () => void;

  constructor(
    private readonly host: BrowserHost,
    private readonly options: RenderOptions,
  ) {
    this.#slots = Math.max(1, options.concurrency);
    this.#free = this.#slots;
    this.#unsubscribe = host.onLost((detail) => {
      for (const run of this.#running) run.lost(detail);
    });
  }

  render(job: RenderJob, signal?: AbortSignal): Promise<RenderResult> {
    // #render does not throw; should a bug make it, the caller still gets a result.
    const safe = this.#render(job, signal).catch((error: unknown) => failed('browser', `renderer error: ${String(error)}`, 0));
    const done = safe.then((result) => {
      if (result.kind === 'rendered') this.#figures.rendered += 1;
      else this.#figures.failed += 1;
      this.#figures.totalMs += result.ms;
      return result;
    });
    this.#inFlight.add(done);
    void done.finally(() => this.#inFlight.delete(done));
    return done;
  }

  async #render(job: RenderJob, signal: AbortSignal | undefined): Promise<RenderResult> {
    if (this.#closed) return failed('browser', 'the renderer is closed', 0);
    if (!(await this.#acquire(signal))) return failed('timeout', this.#closed ? 'the renderer closed while the page waited' : 'aborted while waiting for a slot', 0);
    try {
      let browser: Browser;
      try {
        browser = await this.host.browser();
      } catch (error) {
        return failed('browser', error instanceof BrowserUnavailable ? error.message : String(error), 0);
      }
      if (this.#closed) return failed('browser', 'the renderer is closed', 0);
      return await renderPage(browser, job, this.options, signal, (run) => {
        this.#running.add(run);
        return () => this.#running.delete(run);
      });
    } finally {
      this.#release();
    }
  }

  /** Waits for a slot; false when the caller gave up or the pool closed meanwhile. */
  async #acquire(signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return false;
    if (this.#free > 0 && this.#queue.length === 0) {
      this.#free -= 1;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const onAbort = () => {
        const i = this.#queue.indexOf(wake);
        if (i >= 0) this.#queue.splice(i, 1);
        resolve(false);
      };
      const wake = () => {
        signal?.removeEventListener('abort', onAbort);
        resolve(!this.#closed);
        if (this.#closed) this.#release();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(wake);
    });
  }

  #release(): void {
    const next = this.#queue.shift();
    if (next) next();
    else this.#free += 1;
  }

  stats(): RendererStats {
    return {
      ...this.#figures,
      waiting: this.#queue.length,
      rendering: this.#slots - this.#free, // pages holding a slot (launching the browser for one counts)
      browserRssBytes: this.host.rssBytes(),
      restarts: this.host.restarts,
    };
  }

  /** Fails the pages waiting, ends the pages rendering, closes the browser. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const run of this.#running) run.lost('the renderer is closing');
    for (const wake of this.#queue.splice(0)) wake();
    await Promise.allSettled([...this.#inFlight]);
    this.#unsubscribe();
    await this.host.close();
  }
}

function failed(reason: RenderFailure, detail: string, ms: number): RenderResult {
  return { kind: 'failed', reason, detail, ms };
}

/** Renders one page in a context of its own; never rejects, leaves no context and no timer behind. */
async function renderPage(browser: Browser, job: RenderJob, o: RenderOptions, signal: AbortSignal | undefined, register: (run: Running) => () => void): Promise<RenderResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const ended = new AbortController();
  let finish!: (result: RenderResult) => void;
  const outcome = new Promise<RenderResult>((resolve) => {
    finish = (result) => {
      if (ended.signal.aborted) return;
      ended.abort();
      resolve(result);
    };
  });
  const fail = (reason: RenderFailure, detail: string) => finish(failed(reason, detail, elapsed()));

  const timer = setTimeout(() => fail('timeout', `not settled and read within ${o.timeoutMs} ms`), o.timeoutMs);
  const onAbort = () => fail('timeout', 'aborted by the caller');
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) onAbort();
  const unregister = register({ lost: (detail) => fail('browser', detail) });

  const traffic = new Traffic();
  const context = browser.newContext({ javaScriptEnabled: true, acceptDownloads: false, serviceWorkers: 'block' });
  void context
    .then((c) => steps(c, job, o, { started, traffic, fail, ended: ended.signal }))
    .then(({ html, url, settledBy }) => finish({ kind: 'rendered', html, url, ms: elapsed(), requests: traffic.requests, bytes: traffic.bytes, settledBy }))
    .catch(async (error: unknown) => {
      // A step failing is most often the echo of a crash or of the browser's end, whose own event
      // may arrive just after: it is given a moment to say so (finish takes the first word).
      await sleep(ECHO_GRACE_MS, undefined, { signal: ended.signal }).catch(() => undefined);
      const message = error instanceof Error ? error.message.split('\n')[0] ?? '' : String(error);
      fail(/crash/i.test(message) ? 'crashed' : 'browser', message);
    });

  const result = await outcome;
  clearTimeout(timer);
  signal?.removeEventListener('abort', onAbort);
  unregister();
  await closeContext(context);
  return result;
}

type RunState = { readonly started: number; readonly traffic: Traffic; readonly fail: (reason: RenderFailure, detail: string) => void; readonly ended: AbortSignal };

/** The steps of one render, in order; any of them may never answer (a spinning page): the timer covers that. */
async function steps(context: BrowserContext, job: RenderJob, o: RenderOptions, run: RunState): Promise<{ html: string; url: string; settledBy: SettledBy }> {
  let page: Page | undefined;
  let loadedAt: number | undefined;
  // The context's first page is ours, and gets its listeners the moment it exists (a crash while
  // it is being made is still heard); any later page is a popup (window.open, target=_blank),
  // closed before it loads anything.
  context.on('page', (p) => {
    if (page !== undefined) return void p.close().catch(() => undefined);
    page = p;
    p.on('load', () => (loadedAt ??= performance.now()));
    p.on('crash', () => run.fail('crashed', 'the page crashed its tab'));
    // alert, confirm, prompt, beforeunload: dismissed at once, or the page would wait for a person.
    p.on('dialog', (dialog) => void dialog.dismiss().catch(() => undefined));
  });
  await intercept(context, { job, options: o, page: () => page, traffic: run.traffic, fail: run.fail, ended: run.ended });
  await context.addInitScript(SETTLE_INIT_SCRIPT);
  page = await context.newPage(); // the same page the event above has seen

  await page.goto(job.url, { waitUntil: 'domcontentloaded', timeout: 0 });
  const snapshotMs = Math.min(SNAPSHOT_MAX_MS, o.timeoutMs * SNAPSHOT_SHARE);
  const settledBy = await waitUntilSettled(page, run.traffic, { settleMs: o.settleMs, until: run.started + o.timeoutMs - snapshotMs, loadedAt: () => loadedAt, ended: run.ended });
  // A script can build a DOM of any size without a single request: measured in the page before it
  // is serialized for us (in the page's world: a page that fools this only misleads about itself).
  const size = Number(await page.evaluate(DOM_SIZE));
  if (size > o.maxBytes) throw tooLarge(run, size, o.maxBytes);
  const html = await page.content();
  if (html.length > o.maxBytes) throw tooLarge(run, html.length, o.maxBytes);
  return { html, url: page.url(), settledBy };
}

const DOM_SIZE = `document.documentElement ? document.documentElement.outerHTML.length : 0`;

function tooLarge(run: RunState, size: number, max: number): Error {
  run.fail('too-large', `the rendered DOM is ${size} characters, over ${max}`);
  return new Error('too large');
}

/** Closes the page's context whenever it was made, waiting a bounded time (a closing context kills its renderer). */
async function closeContext(context: Promise<BrowserContext>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const closing = context.then((c) => c.close()).catch(() => undefined);
  await Promise.race([closing, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
  clearTimeout(timer);
}
