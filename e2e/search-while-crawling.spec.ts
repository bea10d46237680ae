import { expect, test } from '@playwright/test';
import { SearchPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// One appliance for the file: a slow, polite crawl of a 60-page graph, so it is still running
// while the browser searches.
const trawl = trawlForFile({
  web: { graphSize: 60, delayMs: 20 },
  seedPaths: ['/graph/0', '/xss'],
  configYaml: 'scope:\n  allow: ["URL:/graph/", "URL:/xss$"]\nperHost:\n  delayMs: 300\n',
});

test('a page fetched moments ago is found and can be followed, while the crawl goes on', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await expect(search.status).toContainText('Crawling:');
  // Page 1 is one of the first fetched; search until it is there (the crawl is live).
  await expect(async () => {
    await search.search('graphword1');
    await expect(search.result('Graph page 1')).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  await expect(search.status).toContainText('Crawling:');
  // The last word also matches as a prefix (graphword10…), but the page holding the word itself comes first.
  await expect(search.summary).toHaveText(/^\d+ results? \(/);
  await expect(search.results.first().getByRole('link', { name: 'Graph page 1', exact: true })).toBeVisible();
  await expect(search.results.first().locator('mark').first()).toHaveText('graphword1');
  await search.result('Graph page 1').click();
  await expect(page).toHaveURL(/\/graph\/1$/);
  await expect(page.getByRole('heading', { name: 'Graph page 1' })).toBeVisible();
  search.expectConsoleEmpty();
});

test('the status line moves while the crawl runs, without a reload', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  const before = await search.status.textContent();
  await expect(search.status).not.toHaveText(before ?? '');
  await expect(search.status).toContainText(/\d+ pages fetched/);
  search.expectConsoleEmpty();
});

test('a page titled <script>alert(1)</script> shows its title as text', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  let dialogs = 0;
  page.on('dialog', (d) => {
    dialogs++;
    void d.dismiss();
  });
  await search.open();
  await expect(async () => {
    await search.search('xsstest');
    await expect(search.result('<script>alert(1)</script>')).toBeVisible({ timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  expect(dialogs).toBe(0);
  search.expectConsoleEmpty();
});

test('results page on desktop and phone (screenshots for review)', async ({ page }, info) => {
  const search = new SearchPage(page, trawl().url);
  for (const [name, size] of [
    ['desktop', { width: 1280, height: 800 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    await search.open();
    await search.search('graph page');
    await expect(search.results.first()).toBeVisible();
    await page.screenshot({ path: info.outputPath(`search-${name}.png`), fullPage: true });
    await page.screenshot({ path: `test-results/screenshots/search-${name}.png`, fullPage: true });
  }
  search.expectConsoleEmpty();
});
