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

/** Opens the console in this page, giving the admin token on its login form. */
async function openConsole(page: import('@playwright/test').Page): Promise<void> {
  await page.goto(new URL('/console', trawl().url).href);
  await page.getByLabel('Admin token').fill(TOKEN);
  await page.getByRole('button', { name: 'Open the console' }).click();
  await expect(page).toHaveURL(/\/console$/);
}

test('a synonym added in the console changes the next search', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('zebracrossing');
  await expect(search.results).toHaveCount(0);

  await openConsole(page);
  const synonyms = page.getByLabel('Synonyms', { exact: true });
  await synonyms.fill(`${await synonyms.inputValue()}\nzebracrossing => graphword7`.trim());
  await page.getByRole('button', { name: 'Save the synonyms' }).click();
  await expect(page).toHaveURL(/\/console#levers$/);
  await expect(page.getByLabel('Synonyms', { exact: true })).toHaveValue(/zebracrossing => graphword7/);
  await expect(
    page
      .locator('#history')
      .getByRole('row', { name: /synonyms/ })
      .first(),
  ).toContainText('admin token');

  await search.open();
  await search.search('zebracrossing');
  await expect(search.results.first()).toHaveAttribute('data-url', /\/graph\/7$/);
});

test('a pin added in the console puts its page first', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('graphword3');
  await expect(search.results.first()).toHaveAttribute('data-url', /\/graph\/3$/);

  await openConsole(page);
  await page.getByLabel('Query', { exact: true }).fill('graphword3');
  await page.getByLabel('Pin (URLs, one a line, in order)').fill(new URL('/graph/9', trawl().web.url).href);
  await page.getByRole('button', { name: 'Add the rule' }).click();
  await expect(page.locator('#query-rules')).toContainText('graphword3');

  await search.open();
  await search.search('graphword3');
  await expect(search.results.first()).toHaveAttribute('data-url', /\/graph\/9$/);
  await expect(search.results.nth(1)).toHaveAttribute('data-url', /\/graph\/3$/);
});
