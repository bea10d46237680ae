/**
 * The one headless Chromium behind the renderer: finding it, launching it, launching it again when
 * it dies, and what it costs in memory. The pool (`renderer.ts`) asks for the browser before each
 * page and hears when it is lost; pages never see this module.
 */
import { constants, readdirSync, readFileSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import type { Browser } from 'playwright-core';
import { BrowserUnavailable } from './types.ts';

/**
 * Flags that work on this kind of machine: no sandbox (containers lack user namespaces), no GPU,
 * and none of Chromium's own background traffic (component updates, sync, QUIC probes) — on a
 * closed network those connections are refused and slow the browser down.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-quic',
  '--no-first-run',
  '--disable-sync',
  // One renderer process per page is enough: each page has a context of its own, holds no
  // secrets, and runs without a sandbox anyway, so isolating its cross-site frames in processes of
  // their own (and keeping a spare renderer warm for a context that will never use it) costs
  // memory and start-up time for nothing.
  '--disable-site-isolation-trials',
  // BackForwardCache: a reused tab (tabs.ts) leaves each page for about:blank, and the page must
  // then be gone (its memory, its scripts), not kept frozen for a Back that never comes.
  '--disable-features=IsolateOrigins,site-per-process,SpareRendererForSitePerProcess,BackForwardCache',
];

/** Launches in a row that may fail before the renderer gives the browser up. */
export const MAX_LAUNCH_FAILURES = 3;
const LAUNCH_TIMEOUT_MS = 30_000;
/** How long an RSS figure is reused: stats() may be called often, /proc is read at most once a second. */
const RSS_CACHE_MS = 1000;

/** The path if it exists, is a file and is executable; undefined otherwise. Cheap: nothing is launched. */
export async function findBrowser(path: string): Promise<string | undefined> {
  try {
    const s = await stat(path);
    // access(X_OK) alone says yes to root for any file with one x bit; a file with none is no program.
    if (!s.isFile() || (s.mode & 0o111) === 0) return undefined;
    await access(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

function unavailable(path: string, why: string): BrowserUnavailable {
  return new BrowserUnavailable(
    `No usable browser at ${path} (${why}). Rendering pages that need JavaScript takes Chromium: ` +
      `install Debian's with \`apt-get install chromium\`, or point render.browserPath at a Chromium or Chrome executable.`,
  );
}

/** Starts Chromium, or says why it cannot be started. */
async function launchChromium(path: string): Promise<Browser> {
  if ((await findBrowser(path)) === undefined) throw unavailable(path, 'missing or not executable');
  try {
    // (Loaded when a browser is first needed: most crawls never need one. Required, not imported:
    // it is CommonJS, and an import first scans its source for named exports — ~410 ms against
    // ~265 ms here, during which the main thread answers no search.)
    const { chromium } = createRequire(import.meta.url)('playwright-core') as typeof import('playwright-core');
    return await chromium.launch({
      executablePath: path,
      args: [...CHROMIUM_ARGS],
      headless: true,
      timeout: LAUNCH_TIMEOUT_MS,
      // Trawl's own signal handling stops the crawl and closes the renderer; Playwright's would
      // kill the browser under running pages first. Its exit hook still kills the browser if the
      // process ends without close().
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
    });
  } catch (error) {
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
    throw unavailable(path, `it does not start: ${first}`);
  }
}

/** How long the browser is asked for its process id: a browser that does not answer must not hold up its launch, nor every page waiting on it. */
const PID_TIMEOUT_MS = 5000;

/**
 * The browser process's id, which Playwright does not expose for a launched browser: CDP knows it,
 * within PID_TIMEOUT_MS; otherwise it is looked for among our children (the one Playwright started
 * last with a debugging pipe). Undefined if neither says: the memory figure is then 0, nothing else.
 */
async function browserPid(browser: Browser): Promise<number | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const asked = (async () => {
    const session = await browser.newBrowserCDPSession();
    const info = (await session.send('SystemInfo.getProcessInfo')) as { processInfo: { type: string; id: number }[] };
    void session.detach().catch(() => undefined);
    return info.processInfo.find((p) => p.type === 'browser')?.id;
  })().catch(() => undefined);
  const pid = await Promise.race([asked, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), PID_TIMEOUT_MS)))]);
  clearTimeout(timer);
  return pid ?? newestChildBrowser();
}

function newestChildBrowser(): number | undefined {
  let best: { pid: number; start: number } | undefined;
  let entries: string[] = [];
  try {
    entries = readdirSync('/proc');
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || parentOf(entry) !== process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('--remote-debugging-pipe')) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'latin1');
      const start = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
      if (best === undefined || start > best.start) best = { pid: Number(entry), start };
    } catch {
      // gone meanwhile
    }
  }
  return best?.pid;
}

type Log = { warn(msg: string): void; info(msg: string): void };

/**
 * The browser of the moment: launched once at start (failing loudly), launched again on demand
 * after it died, given up after MAX_LAUNCH_FAILURES failed launches in a row.
 */
export class BrowserHost {
  #current: Promise<Browser> | undefined;
  #pid: number | undefined;
  #failuresInARow = 0;
  #gaveUp: string | undefined;
  #closed = false;
  #restarts = 0;
  #launches = 0;
  #rss = { at: -Infinity, bytes: 0 };
  readonly #lostListeners = new Set<(detail: string) => void>();

  private constructor(
    readonly path: string,
    private readonly log: Log | undefined,
  ) {}

  /** The first launch: rejects with BrowserUnavailable, so that a bad setup is said at start. */
  static async start(path: string, log?: Log): Promise<BrowserHost> {
    const host = new BrowserHost(path, log);
    await host.browser();
    return host;
  }

  get restarts(): number {
    return this.#restarts;
  }

  /** Called with a detail when the browser dies under running pages. */
  onLost(listener: (detail: string) => void): () => void {
    this.#lostListeners.add(listener);
    return () => this.#lostListeners.delete(listener);
  }

  /** The running browser, launching one if there is none; rejects with BrowserUnavailable. */
  browser(): Promise<Browser> {
    if (this.#closed) return Promise.reject(new BrowserUnavailable('the renderer is closed'));
    if (this.#gaveUp !== undefined) return Promise.reject(new BrowserUnavailable(this.#gaveUp));
    // Pages asking at the same time share one launch.
    this.#current ??= this.#launch();
    return this.#current;
  }

  async #launch(): Promise<Browser> {
    let browser: Browser;
    const started = performance.now();
    try {
      browser = await launchChromium(this.path);
    } catch (error) {
      this.#current = undefined;
      this.#failuresInARow += 1;
      if (this.#launches > 0 && this.#failuresInARow >= MAX_LAUNCH_FAILURES) {
        this.#gaveUp = `gave the browser up after ${this.#failuresInARow} failed launches: ${(error as Error).message}`;
        this.log?.warn(`render: ${this.#gaveUp}`);
      }
      throw error;
    }
    if (this.#launches > 0) this.#restarts += 1;
    this.#launches += 1;
    this.#failuresInARow = 0;
    browser.on('disconnected', () => this.#disconnected());
    this.#pid = await browserPid(browser);
    this.log?.info(`render: Chromium ${browser.version()} started in ${Math.round(performance.now() - started)} ms (pid ${this.#pid ?? 'unknown'})`);
    if (this.#closed) await browser.close().catch(() => undefined);
    return browser;
  }

  #disconnected(): void {
    this.#current = undefined;
    this.#pid = undefined;
    if (this.#closed) return;
    this.log?.warn('render: the browser exited; it is launched again for the next page');
    for (const listener of this.#lostListeners) listener('the browser exited');
  }

  /**
   * Resident memory of the browser and every process below it (renderers, GPU, utilities,
   * zygotes), from /proc (Linux; 0 elsewhere). Each process's PSS: pages shared between Chromium's
   * processes (its code, mostly) are divided among them, not counted once per process — a plain sum
   * of RSS says about twice as much. VmRSS where smaps_rollup cannot be read. At most once a second.
   */
  rssBytes(): number {
    const now = performance.now();
    if (now - this.#rss.at < RSS_CACHE_MS) return this.#rss.bytes;
    this.#rss = { at: now, bytes: this.#pid === undefined ? 0 : treeResidentBytes(this.#pid) };
    return this.#rss.bytes;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const current = this.#current;
    this.#current = undefined;
    if (current) await current.then((b) => b.close()).catch(() => undefined);
  }
}

/** Sums the resident memory of `root` and its descendants, found by their parent ids in /proc/<pid>/stat. */
export function treeResidentBytes(root: number): number {
  const children = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const ppid = parentOf(entry);
    if (ppid === undefined) continue;
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  let bytes = 0;
  const todo = [root];
  for (let pid = todo.pop(); pid !== undefined; pid = todo.pop()) {
    bytes += residentBytes(pid);
    todo.push(...(children.get(pid) ?? []));
  }
  return bytes;
}

function parentOf(pid: string): number | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: fields are counted after it.
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[1]);
  } catch {
    return undefined; // the process has gone meanwhile
  }
}

function residentBytes(pid: number): number {
  const kB = (file: string, field: string) => {
    try {
      const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/${file}`, 'latin1'));
      return match ? Number(match[1]) * 1024 : undefined;
    } catch {
      return undefined; // gone meanwhile, or not ours to read
    }
  };
  return kB('smaps_rollup', 'Pss') ?? kB('status', 'VmRSS') ?? 0;
}
