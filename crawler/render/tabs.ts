/**
 * The renderer's tabs: pages kept after a render and reused for the next page of the same origin,
 * in one browser context per origin that the origin's tabs share.
 *
 * Why tabs are kept: a new page costs a new renderer process — 140–400 ms of the browser's time
 * before the page even starts, measured on a 2-core machine — while the next URL of the same site
 * navigated in a tab it already has stays in the tab's process (Chromium keeps a same-site
 * navigation in its SiteInstance).
 * Why an origin's tabs share a context: Chromium gives every context a renderer of its own for its
 * top-chrome WebUI (~50 MB PSS, Chromium 156 headless), whatever its pages; one context per tab
 * made four tabs cost four of them (bench/render at concurrency 4: 652 MB against Crawlee's 611,
 * whose tabs share one context). `--renderer-process-limit` does not help: Chromium never shares a
 * renderer between contexts.
 *
 * What reuse must not change — no page sees anything of another origin's, nor of the pages before it
 * once the origin is idle:
 *   storage   before a tab is reused, its page's sessionStorage and window.name are emptied and the
 *             document is unloaded (about:blank: its timers and scripts stop). What the context
 *             shares — cookies, localStorage, IndexedDB, Cache Storage… of each origin its pages
 *             reached (CDP Storage.clearDataForOrigin) — is cleared as soon as none of its tabs is
 *             rendering: pages of one origin rendered at the same moment share cookies, as tabs of
 *             one site do in any browser; pages rendered one after another never do. The HTTP
 *             cache holds nothing: every request is routed, and routing turns it off.
 *   hostility a tab is reused only after a render that ended `rendered`, and a cleanup that
 *             answered within SCRUB_MS; a page that failed (timeout, crash, too large, too many
 *             requests, an endless dialog loop…) is closed, which ends its renderer (a page has a
 *             renderer process of its own: site-per-process is off, and tabs are not each other's
 *             openers); popups are closed before they load anything.
 *   wear      a tab serves at most MAX_USES pages, then a fresh one is made; the JavaScript heap is
 *             collected after each page left, so that a reused renderer stays the size of a new one.
 */
import type { Browser, BrowserContext, CDPSession, Page } from 'playwright-core';
import { intercept, type Interception } from './requests.ts';
import { settleInitScript } from './settle.ts';

/** Pages one tab renders before it is replaced: bounds whatever a long-lived renderer accumulates. */
export const MAX_USES = 100;
/** A cleanup that takes longer than this means a page still busy (a loop after its snapshot): the tab is closed instead. */
const SCRUB_MS = 2000;
/** A page or context that does not close in this long is left to the browser (its pages are dead to us already). */
const CLOSE_WAIT_MS = 5000;

/** Clears what belongs to the page alone (and, when `shared` is true, its origin's localStorage). */
const scrubPage = (shared: boolean) =>
  `(() => { try { sessionStorage.clear(); } catch {} ${shared ? 'try { localStorage.clear(); } catch {}' : ''} window.name = ''; })()`;

/** One render's hold on a tab: its routing (requests.ts) and the load event of its document. */
export type TabRun = { readonly x: Interception; loadedAt?: number };

/** Waits for `work` at most CLOSE_WAIT_MS; never rejects. */
async function bounded(work: Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work.catch(() => undefined), new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
  clearTimeout(timer);
}

/** An origin's context, shared by its tabs; closed with the last of them. */
class Site {
  readonly tabs = new Set<Tab>();
  /** Origins its pages reached since it was last cleared. */
  readonly origins = new Set<string>();
  /** Its tabs rendering now. */
  active = 0;
  closed = false;
  readonly #byPage = new Map<Page, Tab>();

  private constructor(
    readonly browser: Browser,
    readonly origin: string,
    readonly context: BrowserContext,
  ) {}

  static async open(browser: Browser, origin: string, settleMs: number): Promise<Site> {
    const context = await browser.newContext({ javaScriptEnabled: true, acceptDownloads: false, serviceWorkers: 'block' });
    const site = new Site(browser, origin, context);
    try {
      await intercept(context, (page) => (page ? site.#byPage.get(page)?.run?.x : undefined));
      await context.addInitScript(settleInitScript(settleMs));
      return site;
    } catch (error) {
      await bounded(context.close());
      throw error;
    }
  }

  register(page: Page, tab: Tab): void {
    this.#byPage.set(page, tab);
  }

  async remove(tab: Tab, page: Page | undefined): Promise<void> {
    if (page) this.#byPage.delete(page);
    this.tabs.delete(tab);
    if (this.tabs.size === 0 && !this.closed) {
      this.closed = true;
      await bounded(this.context.close());
    }
  }
}

export class Tab {
  uses = 0;
  /** Crashed, or closing: never reused. */
  dead = false;
  #run: TabRun | undefined;
  #page: Page | undefined;
  #cdp: CDPSession | undefined;

  private constructor(readonly site: Site) {
    site.tabs.add(this);
  }

  get browser(): Browser {
    return this.site.browser;
  }
  get origin(): string {
    return this.site.origin;
  }
  /** The origins the tab's context reached (cleared when the context is). */
  get origins(): Set<string> {
    return this.site.origins;
  }
  get run(): TabRun | undefined {
    return this.#run;
  }

  /** A new page in the site's context, with its listeners. A crash fails the render holding the tab, and the tab is not reused. */
  static async open(site: Site): Promise<Tab> {
    const tab = new Tab(site);
    try {
      const page = await site.context.newPage();
      tab.#page = page;
      site.register(page, tab);
      page.on('popup', (p) => void p.close().catch(() => undefined));
      page.on('load', () => {
        if (tab.#run) tab.#run.loadedAt ??= performance.now();
      });
      page.on('crash', () => {
        tab.dead = true;
        tab.#run?.x.fail('crashed', 'the page crashed its tab');
      });
      // Dialogs are dismissed at once, or the page would wait for a person; a beforeunload
      // prompt is accepted, so that the tab can always leave the page.
      page.on('dialog', (d) => void (d.type() === 'beforeunload' ? d.accept() : d.dismiss()).catch(() => undefined));
      tab.#cdp = await site.context.newCDPSession(page);
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
    if (run && !this.#run) this.site.active += 1;
    if (!run && this.#run) this.site.active -= 1;
    this.#run = run;
  }

  /** Empties what the last page left (see the top of this file); false if it could not be done in time, or the tab is done for. */
  async scrub(): Promise<boolean> {
    if (this.dead || this.uses >= MAX_USES) return false;
    let timer: NodeJS.Timeout | undefined;
    const steps = async () => {
      await this.page.evaluate(scrubPage(this.site.active === 0));
      await this.page.goto('about:blank', { waitUntil: 'load', timeout: SCRUB_MS });
      // The page just left is garbage now: collected at once, or a reused renderer holds the heaps of
      // pages past (its memory measured 250 MB after 40 pages of the SPA bench against 145 MB so).
      await this.#cdp!.send('HeapProfiler.collectGarbage');
      // What the context shares is cleared once no page of it is rendering (checked again after each wait).
      if (this.site.active === 0) await this.site.context.clearCookies();
      for (const origin of [...this.site.origins]) {
        if (this.site.active > 0) break;
        await this.#cdp!.send('Storage.clearDataForOrigin', { origin, storageTypes: 'all' });
        this.site.origins.delete(origin);
      }
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

  /** Closes the page (which ends its renderer), and the context with the site's last tab; bounded. */
  async close(): Promise<void> {
    this.dead = true;
    this.hold(undefined);
    if (this.#page) await bounded(this.#page.close());
    await this.site.remove(this, this.#page);
  }
}

/**
 * The tabs kept between renders, at most `slots` in all (in use and idle): a render takes an idle
 * tab of its origin when there is one, otherwise a new one is made (in its origin's context, if one
 * is open), closing the least recently used idle tab if there is no room. The pool's slots bound
 * the tabs in use, so there always is an idle tab to close then.
 */
export class TabCache {
  readonly #idle: Tab[] = []; // least recently used first
  #open = 0;
  /** The open contexts by origin (one browser at a time; a stale one is closed with its tabs). */
  readonly #sites = new Map<string, Promise<Site>>();

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

  /** A new tab for `origin`, in the origin's open context or a new one. */
  async open(browser: Browser, origin: string, settleMs: number): Promise<Tab> {
    for (let attempt = 0; ; attempt++) {
      // (Looked up and set with no wait in between: two renders of a new origin share one context.)
      let site = this.#sites.get(origin);
      if (!site) this.#sites.set(origin, (site = Site.open(browser, origin, settleMs)));
      let opened: Site;
      try {
        opened = await site;
      } catch (error) {
        if (this.#sites.get(origin) === site) this.#sites.delete(origin);
        throw error;
      }
      // Closed with its last tab meanwhile, or of a browser since replaced: a new context then.
      if ((opened.closed || opened.browser !== browser) && attempt < 3) {
        if (this.#sites.get(origin) === site) this.#sites.delete(origin);
        continue;
      }
      return await Tab.open(opened);
    }
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
