/**
 * The renderer's tabs: a browser context holding one page, kept after a render and reused for the
 * next page of the same origin. A new context costs a new renderer process — 140–400 ms of the
 * browser's time before the page even starts, measured on a 2-core machine — while the next URL of
 * the same site navigated in a tab it already has stays in the tab's process (Chromium keeps a
 * same-site navigation in its SiteInstance). `--renderer-process-limit` does not help: Chromium
 * never shares a renderer between contexts.
 *
 * What reuse must not change — no page sees anything of the one before it:
 *   storage   before a tab is reused, its page's sessionStorage and window.name are emptied, the
 *             document is unloaded (about:blank: its timers and scripts stop), the context's
 *             cookies are cleared and so is every other store (localStorage, IndexedDB, Cache
 *             Storage…) of each origin the page reached (CDP Storage.clearDataForOrigin). The
 *             HTTP cache holds nothing: every request is routed, and routing turns it off.
 *   hostility a tab is reused only after a render that ended `rendered`, and a cleanup that
 *             answered within SCRUB_MS; a page that failed (timeout, crash, too large, too many
 *             requests, an endless dialog loop…) has its context closed, which kills its renderer.
 *   wear      a tab serves at most MAX_USES pages, then a fresh one is made; the JavaScript heap is
 *             collected after each page left, so that a reused renderer stays the size of a new one.
 * Each tab is one context with one page: two pages of one host rendered at once never share a
 * context (they would share cookies while rendering).
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { intercept, type Interception } from './requests.ts';
import { settleInitScript } from './settle.ts';

/** Pages one tab renders before it is replaced: bounds whatever a long-lived renderer accumulates. */
export const MAX_USES = 100;
/** A cleanup that takes longer than this means a page still busy (a loop after its snapshot): the tab is closed instead. */
const SCRUB_MS = 2000;
/** A context that does not close in this long is left to the browser (its pages are dead to us already). */
const CLOSE_WAIT_MS = 5000;

const SCRUB_PAGE = `(() => { try { sessionStorage.clear(); } catch {} try { localStorage.clear(); } catch {} window.name = ''; })()`;

/** One render's hold on a tab: its routing (requests.ts) and the load event of its document. */
export type TabRun = { readonly x: Interception; loadedAt?: number };

export class Tab {
  uses = 0;
  /** Crashed, or closing: never reused. */
  dead = false;
  readonly origins = new Set<string>();
  #current: TabRun | undefined;
  #page: Page | undefined;
  #cdp: CDPSession | undefined;

  private constructor(
    readonly browser: Browser,
    readonly origin: string,
    private readonly context: BrowserContext,
  ) {}

  /** A new context and its page, routed and with the settle probe. A crash fails the render holding the tab, and the tab is not reused. */
  static async open(browser: Browser, origin: string, settleMs: number): Promise<Tab> {
    const context = await browser.newContext({ javaScriptEnabled: true, acceptDownloads: false, serviceWorkers: 'block' });
    const tab = new Tab(browser, origin, context);
    try {
      // The context's first page is the tab's, and gets its listeners the moment it exists; any
      // later page is a popup (window.open, target=_blank), closed before it loads anything.
      context.on('page', (p) => {
        if (tab.#page !== undefined) return void p.close().catch(() => undefined);
        tab.#page = p;
        p.on('load', () => {
          if (tab.#current) tab.#current.loadedAt ??= performance.now();
        });
        p.on('crash', () => {
          tab.dead = true;
          tab.#current?.x.fail('crashed', 'the page crashed its tab');
        });
        // Dialogs are dismissed at once, or the page would wait for a person; a beforeunload
        // prompt is accepted, so that the tab can always leave the page.
        p.on('dialog', (d) => void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => undefined));
      });
      await intercept(context, () => tab.#current?.x);
      await context.addInitScript(settleInitScript(settleMs));
      await context.newPage(); // the page the listener above has taken
      tab.#cdp = await context.newCDPSession(tab.page);
      return tab;
    } catch (error) {
      await tab.close();
      throw error;
    }
  }

  get page(): Page {
    if (this.#page === undefined) throw new Error('the tab has no page');
    return this.#page;
  }

  /** The render that now owns the tab's requests and load event; undefined between renders (every request is then aborted). */
  hold(run: TabRun | undefined): void {
    this.#current = run;
  }

  /** Empties what the last page left (see the top of this file); false if it could not be done in time, or the tab is done for. */
  async scrub(): Promise<boolean> {
    if (this.dead || this.uses >= MAX_USES) return false;
    let timer: NodeJS.Timeout | undefined;
    const steps = async () => {
      await this.page.evaluate(SCRUB_PAGE);
      await this.page.goto('about:blank', { waitUntil: 'load', timeout: SCRUB_MS });
      // The page just left is garbage now: collected at once, or a reused renderer holds the heaps of
      // pages past (its memory measured 250 MB after 40 pages of the SPA bench against 145 MB so).
      await this.#cdp!.send('HeapProfiler.collectGarbage');
      await this.context.clearCookies();
      for (const origin of this.origins) await this.#cdp!.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
      this.origins.clear();
      return true;
    };
    try {
      return await Promise.race([steps(), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), SCRUB_MS)))]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the context (which kills its renderer), waiting a bounded time. */
  async close(): Promise<void> {
    this.dead = true;
    this.#current = undefined;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.context.close().catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
  }
}

/**
 * The tabs kept between renders, at most `slots` in all (in use and idle): a render takes an idle
 * tab of its origin when there is one, otherwise a new one is made, closing the least recently used
 * idle tab if there is no room. The pool's slots bound the tabs in use, so there always is an idle
 * tab to close then.
 */
export class TabCache {
  readonly #idle: Tab[] = []; // least recently used first
  #open = 0;

  constructor(private readonly slots: number) {}

  /** An idle tab of this browser and origin, taken out of the cache; undefined if none. */
  take(browser: Browser, origin: string): Tab | undefined {
    // A tab whose browser was replaced, or that crashed while idle, is no use to anyone.
    for (const stale of this.#idle.filter((t) => t.browser !== browser || t.dead)) this.#drop(stale);
    for (let i = this.#idle.length - 1; i >= 0; i--) {
      const tab = this.#idle[i]!;
      if (tab.origin === origin) return this.#idle.splice(i, 1)[0];
    }
    return undefined;
  }

  /** Makes room for a tab about to be opened, and counts it. */
  reserve(): void {
    while (this.#open >= this.slots && this.#idle.length > 0) this.#drop(this.#idle[0]!);
    this.#open += 1;
  }

  /**
   * A tab back after a render (undefined: it never opened): cleaned and kept, or closed. Never
   * rejects, and ends within CLOSE_WAIT_MS of a tab still opening (a wedged browser may never
   * finish making it: the slot is not held for that, and the tab is closed if it ever comes).
   */
  async giveBack(opening: Promise<Tab | undefined>, reusable: boolean): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const tab = await Promise.race([opening, new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    if (tab === 'late') {
      this.#open -= 1;
      void opening.then((t) => t?.close());
      return;
    }
    if (tab && reusable && (await tab.scrub())) {
      this.#idle.push(tab);
      return;
    }
    await this.discard(tab);
  }

  /** A tab (or a reservation whose tab never opened) no longer counted. */
  async discard(tab: Tab | undefined): Promise<void> {
    this.#open -= 1;
    await tab?.close();
  }

  /** Closes every idle tab (the browser is gone or closing). */
  async closeIdle(): Promise<void> {
    await Promise.all(this.#idle.splice(0).map((t) => this.discard(t)));
  }

  #drop(tab: Tab): void {
    this.#idle.splice(this.#idle.indexOf(tab), 1);
    void this.discard(tab);
  }
}
