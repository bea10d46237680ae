/**
 * E2e fixtures: the fake web and a real `trawl start` process over it, shared by a spec file's
 * tests; and a page model of the search page. Tests wait on conditions, never on the clock.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test, type Locator, type Page } from '@playwright/test';
import type { RequestListener } from 'node:http';
import { serveHandler, startFakeWeb, type FakeWeb, type FakeWebOptions, type HandlerServer } from './index.ts';
import { onOutput, waitFor } from './wait.ts';

const BIN = new URL('../bin/trawl.js', import.meta.url).pathname;

export type RunningTrawl = {
  readonly url: string;
  readonly web: FakeWeb;
  readonly other: FakeWeb | undefined;
  readonly served: HandlerServer | undefined;
  /** Its data directory (the crawl database: crawl.db). */
  readonly dataDir: string;
  readonly log: () => string;
  stop(): Promise<number | null>;
};

/**
 * Starts the fake web (and, with `otherWeb`, a second one on 127.0.0.2: another host; with `serve`,
 * a server around that handler, e.g. testweb/topic-web.ts) and `trawl start` on it; resolves once
 * the search server answers. Seeds: `seedPaths` on the first web, or `seeds` of them all.
 */
export type TrawlOptions = {
  web?: FakeWebOptions;
  otherWeb?: FakeWebOptions;
  serve?: RequestListener;
  seedPaths?: string[];
  seeds?: (web: FakeWeb, other: FakeWeb | undefined, served: HandlerServer | undefined) => string[];
  /** The config file; a function when it names the servers started here (their ports are chosen then). */
  configYaml?: string | ((web: FakeWeb, other: FakeWeb | undefined, served: HandlerServer | undefined) => string);
};

export async function startTrawl(opts: TrawlOptions = {}): Promise<RunningTrawl> {
  const web = await startFakeWeb(opts.web);
  const other = opts.otherWeb ? await startFakeWeb({ ...opts.otherWeb, host: '127.0.0.2' }) : undefined;
  const served = opts.serve ? await serveHandler(opts.serve) : undefined;
  const seeds = opts.seeds ? opts.seeds(web, other, served) : (opts.seedPaths ?? ['/']).map((p) => new URL(p, web.url).href);
  const dataDir = mkdtempSync(join(tmpdir(), 'trawl-e2e-'));
  const config = join(dataDir, 'config.yaml');
  writeFileSync(config, typeof opts.configYaml === 'function' ? opts.configYaml(web, other, served) : (opts.configYaml ?? ''));
  const child: ChildProcess = spawn(process.execPath, [BIN, 'start', ...seeds, '--config', config, '--data', dataDir, '--port', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const url = await waitFor(() => /Search at (\S+)/.exec(out)?.[1], onOutput(child), { what: 'the address trawl start serves at' }).catch((e: Error) => {
    throw new Error(`${e.message}:\n${out}`);
  });
  return {
    url,
    web,
    other,
    served,
    dataDir,
    log: () => out,
    async stop() {
      child.kill('SIGTERM');
      const code = await exited;
      await web.close();
      await other?.close();
      await served?.close();
      return code;
    },
  };
}

/**
 * One appliance for a spec file: started before its first test (with `waitForCrawlEnd`, once the
 * crawl has run out of work, so that counts are final), stopped after its last, which must exit 0;
 * the file's tests run in order. Returns the running appliance, for the tests to read.
 */
export function trawlForFile(opts: TrawlOptions & { waitForCrawlEnd?: boolean }): () => RunningTrawl {
  let trawl: RunningTrawl | undefined;
  test.describe.configure({ mode: 'serial' });
  test.beforeAll(async () => {
    trawl = await startTrawl(opts);
    if (opts.waitForCrawlEnd) {
      const running = async () => ((await (await fetch(new URL('/api/status', trawl!.url))).json()) as { crawl: { running: boolean } }).crawl.running;
      await expect.poll(running, { timeout: 60_000 }).toBe(false);
    }
  });
  test.afterAll(async () => {
    expect(await trawl!.stop(), `trawl start should exit 0 on SIGTERM:\n${trawl!.log()}`).toBe(0);
  });
  return () => trawl!;
}

/** The search page, as a person sees it. */
export class SearchPage {
  readonly box: Locator;
  readonly submit: Locator;
  readonly results: Locator;
  readonly status: Locator;
  readonly summary: Locator;
  private readonly consoleMessages: string[] = [];

  constructor(
    readonly page: Page,
    private readonly baseUrl: string,
  ) {
    this.box = page.getByRole('searchbox', { name: 'Search' });
    this.submit = page.getByRole('button', { name: 'Search' });
    this.results = page.getByRole('list', { name: 'Search results' }).getByRole('listitem');
    this.status = page.getByRole('status');
    this.summary = page.locator('#summary');
    page.on('console', (m) => this.consoleMessages.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => this.consoleMessages.push(`pageerror: ${e.message}`));
  }

  async open(): Promise<void> {
    await this.page.goto(this.baseUrl);
    await expect(this.box).toBeVisible();
  }

  async search(query: string): Promise<void> {
    await this.box.fill(query);
    await this.submit.click();
    await expect(this.page).toHaveURL(/[?&]q=/);
  }

  /** The link of the result titled `title`. */
  result(title: string | RegExp): Locator {
    return this.results.getByRole('link', { name: title });
  }

  expectConsoleEmpty(): void {
    expect(this.consoleMessages, 'browser console').toEqual([]);
  }
}

/** The crawl dashboard (/status), as a person sees it. */
export class StatusPage {
  readonly state: Locator;
  readonly hosts: Locator;
  readonly recent: Locator;
  readonly lookup: Locator;
  readonly token: Locator;
  readonly adminResult: Locator;
  private readonly consoleMessages: string[] = [];

  constructor(
    readonly page: Page,
    private readonly baseUrl: string,
  ) {
    this.state = page.locator('.state');
    this.hosts = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Host' }) });
    this.recent = page.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Outcome' }) });
    this.lookup = page.getByRole('textbox', { name: 'URL to look up' });
    this.token = page.getByLabel('Admin token');
    this.adminResult = page.locator('#admin-result');
    page.on('console', (m) => this.consoleMessages.push(`${m.type()}: ${m.text()}`));
    page.on('pageerror', (e) => this.consoleMessages.push(`pageerror: ${e.message}`));
  }

  async open(): Promise<void> {
    await this.page.goto(new URL('/status', this.baseUrl).href);
    await expect(this.page.getByRole('heading', { level: 1, name: 'Crawl status' })).toBeVisible();
  }

  /** A figure of the dashboard ("Fetched", "Queued"…), as shown. */
  figure(name: string): Locator {
    return this.page
      .locator('.figures div')
      .filter({ has: this.page.locator('dt', { hasText: new RegExp(`^${name}$`) }) })
      .locator('dd');
  }

  async figureValue(name: string): Promise<number> {
    return Number((await this.figure(name).textContent())?.replace(/,/g, ''));
  }

  /** A line of the chart of the crawl's history (`pages`, `failures`, `pagesPerSecond`). */
  chartLine(series: string): Locator {
    return this.page.getByRole('img', { name: /over the crawl/ }).locator(`polyline[data-series="${series}"]`);
  }

  /** The chart's legend entry that starts with `label` ("pages", "failures", "pages/s"). */
  chartKey(label: string): Locator {
    return this.page.locator('.chart .key').filter({ hasText: new RegExp(`^${label} `) });
  }

  async admin(button: string): Promise<void> {
    await this.page.getByRole('button', { name: button }).click();
  }

  expectConsoleEmpty(allowed: RegExp[] = []): void {
    expect(
      this.consoleMessages.filter((m) => !allowed.some((a) => a.test(m))),
      'browser console',
    ).toEqual([]);
  }
}

/**
 * What the browser finds wanting in the page's accessibility: form controls without a name, text
 * whose contrast with its background is under WCAG AA (4.5:1, or 3:1 for large text), missing
 * landmarks. Runs in the page (the DOM's own computed styles and labels); [] when all is well.
 */
export async function accessibilityProblems(page: Page): Promise<string[]> {
  return page.evaluate(
    `(() => {
    const problems = [];
    for (const role of ['header', 'main', 'footer', 'form[role=search]']) if (!document.querySelector(role)) problems.push('no ' + role + ' landmark');
    for (const el of document.querySelectorAll('input:not([type=hidden]), textarea, select, button')) {
      const name = (el.labels && [...el.labels].map((l) => l.textContent).join(' ').trim()) || el.getAttribute('aria-label') ` +
      `|| (el.tagName === 'BUTTON' && el.textContent.trim());
      if (!name) problems.push('unnamed ' + el.tagName.toLowerCase() + (el.id ? '#' + el.id : ''));
    }
    const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
    const lum = ([r, g, b]) => [r, g, b].map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; })` +
      `.reduce((s, v, i) => s + v * [0.2126, 0.7152, 0.0722][i], 0);
    const background = (el) => {
      for (let e = el; e; e = e.parentElement) { const c = rgb(getComputedStyle(e).backgroundColor); if (c.length === 3 || c[3] > 0) return c.slice(0, 3); }
      return [255, 255, 255];
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const el = n.parentElement;
      if (!n.textContent.trim() || !el || !el.getClientRects().length) continue;
      const style = getComputedStyle(el);
      if (style.visibility === 'hidden' || el.closest('.visually-hidden')) continue;
      const [a, b] = [lum(rgb(style.color).slice(0, 3)), lum(background(el))].sort((x, y) => y - x);
      const ratio = (a + 0.05) / (b + 0.05);
      const size = parseFloat(style.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) problems.push('contrast ' + ratio.toFixed(2) + ' for "' + n.textContent.trim().slice(0, 30) + '"');
    }
    return [...new Set(problems)];
  })()`,
  );
}

/** A logged search as the crawl database keeps it (store/sqlite/analytics.ts). */
export type LoggedRow = { id: string; query: string; session: string | null; source: string; shown: string; prefixes: string };

/** The searches for `query` in a running appliance's search log, and the clicks on them (read from its crawl database). */
export function searchLogOf(
  trawl: RunningTrawl,
  query: string,
): { searches: LoggedRow[]; clicks: { search_id: string; at: number; position: number; url: string }[] } {
  const db = new Database(join(trawl.dataDir, 'crawl.db'), { readonly: true });
  try {
    return {
      searches: db.prepare('SELECT * FROM searches WHERE query = ?').all(query) as LoggedRow[],
      clicks: db.prepare('SELECT c.* FROM search_clicks c JOIN searches s ON s.id = c.search_id WHERE s.query = ?').all(query) as {
        search_id: string;
        at: number;
        position: number;
        url: string;
      }[],
    };
  } finally {
    db.close();
  }
}
