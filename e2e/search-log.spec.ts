import { expect, test } from '@playwright/test';
import { SearchPage, searchLogOf, trawlForFile } from '../testweb/e2e-fixtures.ts';

// The search log (analytics.enabled, on by default): a search typed on the page is logged once,
// with the tab's session, and the click on a result is reported by a beacon; a browser sending
// Sec-GPC: 1 leaves no trace. Read from the crawl database, as the console will read it.
const trawl = trawlForFile({
  web: { graphSize: 12 },
  seedPaths: ['/graph/0'],
  configYaml: 'scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 0\n',
  waitForCrawlEnd: true,
});

const logged = (query: string) => searchLogOf(trawl(), query);

test('a search typed on the page is logged once with its session, and the result clicked with it', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.box.pressSequentially('graphword3', { delay: 60 });
  await expect(search.results.first()).toBeVisible();
  const first = search.results.first();
  const url = await first.getAttribute('data-url');
  await first.getByRole('link').first().click();
  await expect(page).not.toHaveURL(/\?q=/);
  await expect
    .poll(() => logged('graphword3').clicks, { timeout: 10_000 })
    .toEqual([{ search_id: expect.any(String), at: expect.any(Number), position: 1, url }]);
  const { searches } = logged('graphword3');
  expect(searches).toHaveLength(1);
  expect(searches[0]!.source).toBe('page');
  expect(searches[0]!.session).toMatch(/^[0-9a-f]{32}$/);
  expect(JSON.parse(searches[0]!.shown)).toContain(url);
  // The queries on the way (as you type), not each their own search.
  expect(logged('graphword').searches).toHaveLength(0);
});

test('a browser sending Sec-GPC: 1 leaves no trace', async ({ browser }) => {
  const context = await browser.newContext({ extraHTTPHeaders: { 'Sec-GPC': '1' } });
  const page = await context.newPage();
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('graphword5');
  await expect(search.results.first()).toBeVisible();
  await search.results.first().getByRole('link').first().click();
  await context.close();
  // Then a tracked search and click: the log writes in order, and a click logs its search at once,
  // so once these are written, anything of the untracked ones would have been too.
  const trackedContext = await browser.newContext();
  const tracked = new SearchPage(await trackedContext.newPage(), trawl().url);
  await tracked.open();
  await tracked.search('graphword7');
  await tracked.results.first().getByRole('link').first().click();
  await expect.poll(() => logged('graphword7').clicks.length, { timeout: 10_000 }).toBe(1);
  expect(logged('graphword5')).toEqual({ searches: [], clicks: [] });
  await trackedContext.close();
});
