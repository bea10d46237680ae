import { expect, test } from '@playwright/test';
import { SearchPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// The search console in a real browser: a search made and clicked on the search page shows in the
// console (after the admin token is given once, on its login form), with its click; the chart of
// searches a day is drawn by the chart library Trawl serves; a query's page says what was clicked.
const TOKEN = 'console-e2e-token-1234';
const trawl = trawlForFile({
  web: { graphSize: 12 },
  seedPaths: ['/graph/0'],
  configYaml: `scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 0\nserver:\n  adminToken: ${TOKEN}\n`,
  waitForCrawlEnd: true,
});

test('the console lists a search made on the page, with its click, once the admin token is given', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('graphword4');
  await expect(search.results.first()).toBeVisible();
  const url = await search.results.first().getAttribute('data-url');
  await search.results.first().getByRole('link').first().click();
  await expect(page).not.toHaveURL(/\?q=/);

  await page.goto(new URL('/console', trawl().url).href);
  await expect(page.getByRole('heading', { name: 'Search console' })).toBeVisible();
  await page.getByLabel('Admin token').fill('not the token');
  await page.getByRole('button', { name: 'Open the console' }).click();
  await expect(page.getByRole('alert')).toContainText('not the admin token');
  await page.getByLabel('Admin token').fill(TOKEN);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await expect(page).toHaveURL(/\/console$/);

  // (The click is written within a second: the page is asked again until it shows.)
  const top = page.locator('#top');
  await expect
    .poll(
      async () => {
        await page.reload();
        return (
          await top
            .getByRole('row', { name: /graphword4/ })
            .locator('th, td')
            .allTextContents()
        ).join(' ');
      },
      { timeout: 10_000 },
    )
    .toMatch(/graphword4\s+1\s+100 %\s+1\.0/);
  await expect(page.locator('#days-chart')).toHaveAttribute('data-drawn', '1');
  await expect(page.locator('#days-chart canvas')).toBeVisible();

  await top.getByRole('link', { name: 'graphword4' }).click();
  await expect(page.getByRole('heading', { name: /graphword4/ })).toBeVisible();
  await expect(page.locator('#urls').getByRole('row', { name: new RegExp(url!.replace(/[.?]/g, '\\$&')) })).toContainText('1');
  await expect(page.locator('#why').getByRole('row')).not.toHaveCount(0);
  expect(errors).toEqual([]);
});
