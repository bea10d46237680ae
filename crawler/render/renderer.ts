/**
 * The renderer: a pool of `concurrency` slots over one headless Chromium (browser.ts), and the
 * rendering of one page in a tab (tabs.ts: a page in its origin's shared context, reused for the next page of the
 * same origin once cleaned). Pages beyond the slots wait in FIFO order; a page's budget starts
 * when it gets a slot.
 *
 * One page: a tab (nothing shared with another origin's pages, nor with earlier ones of its own
 * origin; cookies and storage only with pages of its origin rendered at the same moment), every request
 * routed (requests.ts), the crawler's body served as the navigation, dialogs dismissed, popups
 * closed; wait until settled (settle.ts), then the DOM as HTML and the URL the page's router left.
 * Whatever happens — a spinning script, a crash, the browser dying, the budget — the page ends as
 * a result: a single timer and the events below call `finish` (first call wins). A tab is kept
 * only after a page rendered; after any failure its context is closed, which also kills a renderer
 * stuck in a loop. The result is handed back before the tab is cleaned: the slot is held until then.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright-core';
import { AbortFanout } from './abort.ts';
import { BrowserHost } from './browser.ts';
import { Traffic, type Interception } from './requests.ts';
import { waitUntilSettled } from './settle.ts';
import { type Tab, TabCache, type TabRun } from './tabs.ts';
import {
  BrowserUnavailable,
  type RenderFailure,
  type Renderer,
  type RendererStats,
  type RenderJob,
  type RenderOptions,
  type RenderResult,
  type SettledBy,
} from './types.ts';

/**
 * What is kept back from the settle wait for taking the snapshot (page.content()): a fifth of the
 * budget, at most 2 s. The rendered HTML is held to maxBytes characters as well.
 */
const SNAPSHOT_SHARE = 0.2;
const SNAPSHOT_MAX_MS = 2000;
/** How long a failed step waits for the event (crash, disconnection) that explains it. */
const ECHO_GRACE_MS = 100;

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
  /** Slots held while a rendered page's tab is cleaned: not rendering any more. */
  #cleaning = 0;
  #closed = false;
  readonly #figures = { rendered: 0, failed: 0, totalMs: 0 };
  readonly #unsubscribe: () => void;
  readonly #tabs: TabCache;
  readonly #aborts = new AbortFanout();

  constructor(
    private readonly host: BrowserHost,
    private readonly options: RenderOptions,
  ) {
    this.#slots = Math.max(1, options.concurrency);
    this.#free = this.#slots;
    this.#tabs = new TabCache(this.#slots);
    this.#unsubscribe = host.onLost((detail) => {
      for (const run of this.#running) run.lost(detail);
      void this.#tabs.closeIdle();
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
    this.#track(done);
    return done;
  }

  async #render(job: RenderJob, signal: AbortSignal | undefined): Promise<RenderResult> {
    if (this.#closed) return failed('browser', 'the renderer is closed', 0);
    if (!(await this.#acquire(signal)))
      return failed('timeout', this.#closed ? 'the renderer closed while the page waited' : 'aborted while waiting for a slot', 0);
    let cleanup: Promise<void> | undefined;
    try {
      let browser: Browser;
      try {
        browser = await this.host.browser();
      } catch (error) {
        return failed('browser', error instanceof BrowserUnavailable ? error.message : String(error), 0);
      }
      if (this.#closed) return failed('browser', 'the renderer is closed', 0);
      const { result, tab } = await renderPage(
        browser,
        this.#tabs,
        job,
        this.options,
        (fn) => this.#aborts.on(signal, fn),
        (run) => {
          this.#running.add(run);
          return () => this.#running.delete(run);
        },
      );
      // The page is the caller's now; the tab is cleaned (or closed) while the slot is still held.
      this.#cleaning += 1;
      cleanup = this.#tabs.giveBack(tab, result.kind === 'rendered' && !this.#closed).finally(() => {
        this.#cleaning -= 1;
        this.#release();
      });
      this.#track(cleanup);
      return result;
    } finally {
      if (cleanup === undefined) this.#release();
    }
  }

  #track(p: Promise<unknown>): void {
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
  }

  /** Waits for a slot; false when the caller gave up or the pool closed meanwhile. */
  async #acquire(signal: AbortSignal | undefined): Promise<boolean> {
    if (signal?.aborted) return false;
    if (this.#free > 0 && this.#queue.length === 0) {
      this.#free -= 1;
      return true;
    }
    return new Promise<boolean>((resolve) => {
      const off = this.#aborts.on(signal, () => {
        const i = this.#queue.indexOf(wake);
        if (i >= 0) this.#queue.splice(i, 1);
        resolve(false);
      });
      const wake = () => {
        off();
        resolve(!this.#closed);
        if (this.#closed) this.#release();
      };
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
      rendering: this.#slots - this.#free - this.#cleaning, // pages holding a slot (launching the browser for one counts)
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
    await Promise.allSettled([...this.#inFlight]); // the cleanups the renders above started
    await this.#tabs.closeIdle();
    this.#unsubscribe();
    await this.host.close();
  }
}

function failed(reason: RenderFailure, detail: string, ms: number): RenderResult {
  return { kind: 'failed', reason, detail, ms };
}

/**
 * Renders one page in a tab (an idle one of its origin, or a new one); never rejects, leaves no
 * timer behind. The tab goes back to the pool with the result (undefined if none could be had).
 */
async function renderPage(
  browser: Browser,
  tabs: TabCache,
  job: RenderJob,
  o: RenderOptions,
  onCallerAbort: (fn: () => void) => () => void,
  register: (run: Running) => () => void,
): Promise<{ result: RenderResult; tab: Promise<Tab | undefined> }> {
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
  const offCallerAbort = onCallerAbort(() => fail('timeout', 'aborted by the caller'));
  const unregister = register({ lost: (detail) => fail('browser', detail) });

  const traffic = new Traffic();
  const origin = new URL(job.url).origin;
  let tab: Promise<Tab | undefined>;
  let opening: string | undefined; // why no tab could be opened
  const idle = tabs.take(browser, origin);
  if (idle) tab = Promise.resolve(idle);
  else {
    tabs.reserve();
    tab = tabs.open(browser, origin, o.settleMs).catch((error: unknown) => {
      opening = error instanceof Error ? error.message.split('\n')[0] : String(error);
      return undefined;
    });
  }
  // A tab that crashed since it was taken is dead: the page fails, and the tab is replaced for the next.
  void tab
    .then((t) => {
      if (t === undefined) throw new Error(`no tab could be opened for ${origin}: ${opening}`);
      if (t.dead) throw new Error('the tab crashed');
      t.uses += 1;
      const run: TabRun = { x: { job, options: o, page: t.page, traffic, fail, ended: ended.signal, origins: t.origins } };
      t.hold(run);
      return steps(run, o, started, ended.signal);
    })
    .then(({ html, url, settledBy }) => finish({ kind: 'rendered', html, url, ms: elapsed(), requests: traffic.requests, bytes: traffic.bytes, settledBy }))
    .catch(async (error: unknown) => {
      // A step failing is most often the echo of a crash or of the browser's end, whose own event
      // may arrive just after: it is given a moment to say so (finish takes the first word).
      await sleep(ECHO_GRACE_MS, undefined, { signal: ended.signal }).catch(() => undefined);
      const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      fail(/crash/i.test(message) ? 'crashed' : 'browser', message);
    });

  const result = await outcome;
  clearTimeout(timer);
  offCallerAbort();
  unregister();
  return {
    result,
    tab: tab.then((t) => {
      t?.hold(undefined);
      return t;
    }),
  };
}

/** The steps of one render, in order; any of them may never answer (a spinning page): the timer covers that. */
async function steps(run: TabRun, o: RenderOptions, started: number, ended: AbortSignal): Promise<{ html: string; url: string; settledBy: SettledBy }> {
  const { page, traffic, fail } = run.x;
  await page.goto(run.x.job.url, { waitUntil: 'domcontentloaded', timeout: 0 });
  const snapshotMs = Math.min(SNAPSHOT_MAX_MS, o.timeoutMs * SNAPSHOT_SHARE);
  const settled = await waitUntilSettled(page, traffic, {
    settleMs: o.settleMs,
    until: started + o.timeoutMs - snapshotMs,
    loadedAt: () => run.loadedAt,
    ended,
    maxChars: o.maxBytes,
  });
  // An idle page was read in the probe that found it idle (one round trip into the page, not three).
  if (typeof settled.snapshot === 'number') throw tooLarge(fail, settled.snapshot, o.maxBytes);
  if (typeof settled.snapshot === 'string') return { html: settled.snapshot, url: page.url(), settledBy: settled.by };
  // A script can build a DOM of any size without a single request: measured in the page before it
  // is serialized for us (in the page's world: a page that fools this only misleads about itself).
  const size = Number(await page.evaluate(DOM_SIZE));
  if (size > o.maxBytes) throw tooLarge(fail, size, o.maxBytes);
  const html = await page.content();
  if (html.length > o.maxBytes) throw tooLarge(fail, html.length, o.maxBytes);
  return { html, url: page.url(), settledBy: settled.by };
}

const DOM_SIZE = `document.documentElement ? document.documentElement.outerHTML.length : 0`;

function tooLarge(fail: Interception['fail'], size: number, max: number): Error {
  fail('too-large', `the rendered DOM is ${size} characters, over ${max}`);
  return new Error('too large');
}
