import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, test, type Locator, type Page } from '@playwright/test';
import { searchLogOf, trawlForFile } from '../testweb/e2e-fixtures.ts';

// A site (a loopback server of its own: another origin than Trawl's) whose docs Trawl crawls, and
// whose pages embed Trawl's search widget; Trawl lists its origin in server.corsOrigins.
const ADMIN_TOKEN = 'widget-e2e-admin-token';
const trawl = trawlForFile({
  serve: (req, res) => site(req, res),
  seeds: (_web, _other, served) => [`${served!.url}/docs/`],
  configYaml: (_web, _other, served) =>
    `scope:\n  allow: ["URL:/docs/"]\nperHost:\n  delayMs: 0\nserver:\n  corsOrigins: ["${served!.url}"]\n  adminToken: ${ADMIN_TOKEN}\n`,
  waitForCrawlEnd: true,
});

/** The site's docs: an index and five pages about lanterns, each with words of its own. */
const DOCS: Readonly<Record<string, [string, string]>> = {
  install: ['Installing the lantern', 'Unpack the lantern, fit a new wick and fill the reservoir with paraffin before the first use.'],
  wick: ['Trimming the wick', 'A lantern burns clean when its wick is trimmed flat; a ragged wick smokes and blackens everything.'],
  glass: ['Cleaning the chimney', 'Lift the glass chimney of the lantern while it is cold and wash the soot away with warm soapy water.'],
  storage: ['Storing it over winter', 'Empty the lantern, dry the tank and keep it wrapped in a dry cupboard until spring comes round.'],
  history: ['A short history', 'The hurricane lantern of the nineteenth century kept its flame alive in wind that put candles out.'],
};

/** The site: its docs, a page with the custom element under a strict CSP, and one whose CSS is hostile. */
function site(req: IncomingMessage, res: ServerResponse): void {
  const doc = /^\/docs\/(\w*)$/.exec(req.url ?? '')?.[1];
  if (doc === '') {
    page(
      res,
      `</head><body><h1>Lantern handbook</h1><ul>${Object.entries(DOCS)
        .map(([p, [t]]) => `<li><a href="/docs/${p}">${t}</a></li>`)
        .join('')}</ul>`,
    );
    return;
  }
  if (doc && DOCS[doc]) {
    // (The history has a section of its own, with an id: a result can open there.)
    const section = doc === 'history' ? '<h2 id="storm-lamps">Storm lamps at sea</h2><p>Ships carried them on deck through every gale.</p>' : '';
    page(res, `<title>${DOCS[doc][0]}</title></head><body><h1>${DOCS[doc][0]}</h1><p>${DOCS[doc][1]}</p>${section}`);
    return;
  }

  // (No robots.txt; no icon, without a "Failed to load" in the console.) Asked while Trawl starts.
  if (req.url !== '/embed' && req.url !== '/hostile') return void res.writeHead(req.url === '/favicon.ico' ? 204 : 404).end();
  const trawlOrigin = new URL(trawl().url).origin;
  const script = `<script src="${trawlOrigin}/widget.js" defer></script>`;
  if (req.url === '/embed') {
    // No inline styles or scripts, and requests to Trawl only: the widget must live with that.
    res.setHeader('content-security-policy', `default-src 'self'; script-src ${trawlOrigin}; connect-src ${trawlOrigin}; style-src 'self'`);
    page(
      res,
      `${script}</head><body><h1>A site with Trawl's search</h1>
<label>A form of the site's own <input id="own" name="own"></label>
<trawl-search label="Search the docs" placeholder="Search the docs"></trawl-search>
<p>Some text of the site.</p>`,
    );
    return;
  }
  page(
    res,
    `${script}<style>
html { font-size: 1px; }
body * { display: none !important; visibility: hidden !important; }
* { color: transparent !important; font-size: 2px !important; line-height: 0 !important; letter-spacing: 9px !important; pointer-events: none !important; }
input { color: transparent !important; background: #000 !important; border: 0 !important; height: 0 !important; }
ul, li, a, mark, span, p { display: none !important; }
</style></head><body><div data-trawl-search data-label="Search the docs">The search needs JavaScript</div>`,
  );
}

function page(res: ServerResponse, head: string): void {
  const title = head.includes('<title>') ? '' : '<title>The lantern site</title>';
  res
    .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    .end(`<!doctype html><html lang="en"><head><meta charset="utf-8">${title}${head}</body></html>`);
}

/** The widget, as a person (and a screen reader) sees it. */
class Widget {
  readonly box: Locator;
  readonly listbox: Locator;
  readonly options: Locator;
  readonly more: Locator;
  private readonly consoleMessages: string[] = [];

  constructor(readonly page: Page) {
    this.box = page.getByRole('combobox', { name: 'Search the docs' });
    this.listbox = page.getByRole('listbox', { name: 'Search results' });
    this.options = this.listbox.getByRole('option');
    this.more = page.locator('a.more');
    page.on('console', (m) => {
      // A Trawl without /api/suggest answers it 404 once; the widget then does without it.
      if (!m.location().url.includes('/api/suggest')) this.consoleMessages.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => this.consoleMessages.push(`pageerror: ${e.message}`));
  }

  async open(path: string): Promise<void> {
    await this.page.goto(new URL(path, trawl().served!.url).href);
    await expect(this.box).toBeVisible();
  }

  /** The link of the `n`th result (in the shadow root; an option's content is presentational). */
  link(n: number): Locator {
    return this.options.nth(n).locator('a.title');
  }

  expectConsoleEmpty(): void {
    expect(this.consoleMessages, 'browser console').toEqual([]);
  }
}

test('a page on another origin shows results as you type; ↓ and ↑ move through them, Enter opens one', async ({ page }) => {
  const widget = new Widget(page);
  await widget.open('/embed');
  await widget.box.pressSequentially('lantern', { delay: 30 });
  await expect(widget.options).toHaveCount(5);
  await expect(widget.box).toHaveAttribute('aria-expanded', 'true');
  await expect(widget.options.first().locator('mark').first()).toHaveText(/^lantern$/i);
  await expect(widget.more).toHaveText('More results (6 in all)');
  await expect(widget.more).toHaveAttribute('href', `${new URL(trawl().url).origin}/?q=lantern`);

  await page.keyboard.press('ArrowDown');
  await expect(widget.options.nth(0)).toHaveAttribute('aria-selected', 'true');
  await expect(widget.box).toHaveAttribute('aria-activedescendant', (await widget.options.nth(0).getAttribute('id'))!);
  await page.keyboard.press('ArrowDown');
  await expect(widget.options.nth(1)).toHaveAttribute('aria-selected', 'true');
  await expect(widget.options.nth(0)).toHaveAttribute('aria-selected', 'false');
  await page.keyboard.press('ArrowUp');
  await expect(widget.options.nth(0)).toHaveAttribute('aria-selected', 'true');
  await expect(widget.box).toBeFocused();
  const href = (await widget.link(0).getAttribute('href'))!;
  expect(href).toMatch(new RegExp(`^${trawl().served!.url}/docs/\\w*(#[\\w-]+)?$`));
  widget.expectConsoleEmpty();
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(href);
});

test('the search and the result chosen go to the search log, from the widget', async ({ page }) => {
  const widget = new Widget(page);
  await widget.open('/embed');
  await widget.box.pressSequentially('paraffin', { delay: 30 });
  await expect(widget.options).toHaveCount(1);
  const href = (await widget.link(0).getAttribute('href'))!;
  await widget.link(0).click();
  await expect(page).toHaveURL(href);
  await expect.poll(() => searchLogOf(trawl(), 'paraffin').clicks.map((c) => [c.position, c.url]), { timeout: 10_000 }).toEqual([[1, href]]);
  const [logged] = searchLogOf(trawl(), 'paraffin').searches;
  expect(logged?.source).toBe('widget');
  expect(logged?.session).toMatch(/^[0-9a-f]{32}$/);
  // The console lists it, with its click (its top queries, as JSON for the same table).
  const top = await page.request.get(new URL('/api/analytics/queries', trawl().url).href, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect((await top.json()).queries).toContainEqual(expect.objectContaining({ query: 'paraffin', searches: 1, clicked: 1, firstClickPosition: 1 }));
  await page.goto(new URL('/console', trawl().url).href);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await expect(page.locator('#top').getByRole('row', { name: /paraffin/ })).toContainText('100 %');
});

test('a result found in a section of its page opens at that section', async ({ page }) => {
  const widget = new Widget(page);
  await widget.open('/embed');
  await widget.box.pressSequentially('storm lamps', { delay: 30 });
  await expect(widget.options).toHaveCount(1);
  await expect(widget.link(0)).toHaveAttribute('href', `${trawl().served!.url}/docs/history#storm-lamps`);
  widget.expectConsoleEmpty();
});

test('Esc closes the results, and "/" brings the focus back to the box unless one types elsewhere', async ({ page }) => {
  const widget = new Widget(page);
  await widget.open('/embed');
  await widget.box.fill('soapy');
  await expect(widget.options).toHaveCount(1);
  await page.keyboard.press('Escape');
  await expect(widget.listbox).toBeHidden();
  await expect(widget.box).toHaveAttribute('aria-expanded', 'false');

  const own = page.getByRole('textbox', { name: "A form of the site's own" });
  await own.click();
  await page.keyboard.type('a/b');
  await expect(own).toHaveValue('a/b');
  await page.getByRole('heading', { level: 1 }).click();
  await page.keyboard.press('/');
  await expect(widget.box).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(widget.options).toHaveCount(1);
  await expect(widget.options.first()).toHaveAttribute('aria-selected', 'true');
  widget.expectConsoleEmpty();
});

test("the host page's CSS, however hostile, does not hide or break it (a div upgraded)", async ({ page }) => {
  const widget = new Widget(page);
  await widget.open('/hostile');
  // The div's own content (for a browser without JavaScript) gives way to the widget.
  await expect(page.locator('[data-trawl-search]')).toHaveJSProperty('innerText', '');
  const size = (await widget.box.boundingBox())!;
  expect(size.height).toBeGreaterThan(24);
  expect(size.width).toBeGreaterThan(100);
  await widget.box.click();
  await page.keyboard.type('paraffin');
  await expect(widget.box).toHaveCSS('color', 'rgb(27, 31, 36)');
  await expect(widget.box).toHaveCSS('font-size', '16px');
  await expect(widget.options).toHaveCount(1);
  await expect(widget.link(0)).toBeVisible();
  await expect(widget.link(0)).toHaveText('Installing the lantern');
  await expect(widget.link(0)).toHaveCSS('font-size', '16px');
  await expect(widget.options.first().locator('mark').first()).toHaveCSS('background-color', 'rgb(255, 243, 176)');
  widget.expectConsoleEmpty();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(`${trawl().served!.url}/docs/install`);
});

test('"More results" opens Trawl\'s own search page with the query', async ({ page }) => {
  const widget = new Widget(page);
  await widget.open('/embed');
  await widget.box.fill('lantern');
  await expect(widget.options).toHaveCount(5);
  await widget.more.click();
  await expect(page).toHaveURL(`${new URL(trawl().url).origin}/?q=lantern`);
  await expect(page.getByRole('list', { name: 'Search results' }).getByRole('listitem')).toHaveCount(6);
});

test('completions from /api/suggest come first, and choosing one searches for it', async ({ page }) => {
  const widget = new Widget(page);
  // (Whatever this Trawl's /api/suggest answers, the widget's side of it is tested here.)
  await page.route('**/api/suggest?*', (route) =>
    route.fulfill({ json: { query: 'lant', suggestions: ['lantern', 'lanterns'] }, headers: { 'access-control-allow-origin': '*' } }),
  );
  await widget.open('/embed');
  await widget.box.fill('lant');
  await expect(widget.options.first()).toHaveText('Search for lantern');
  await expect(widget.options.nth(1)).toHaveText('Search for lanterns');
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(widget.box).toHaveValue('lantern');
  await expect(widget.more).toHaveText('More results (6 in all)');
  await expect(widget.box).toBeFocused();
  widget.expectConsoleEmpty();
});
