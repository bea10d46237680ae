import { expect, test } from '@playwright/test';
import { spaWeb } from '../testweb/spa-web.ts';
import { SearchPage, StatusPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// `trawl start` with render: auto (the default) over a single-page app whose pages are empty shells
// until their script runs (testweb/spa-web.ts): its text is found through the search page.
const spa = spaWeb({ pages: 5 });
const trawl = trawlForFile({
  serve: spa.handler,
  seeds: (_web, _other, served) => [`${served!.url}/`],
  configYaml: 'perHost:\n  delayMs: 0\nrender:\n  mode: auto\n  settleMs: 300\n',
  waitForCrawlEnd: true,
});

test("the text a script builds is searchable, and the result links the app's page", async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('spaword4');
  await expect(search.results).toHaveCount(1);
  const link = search.result('Doc 4: the dune chapter');
  await expect(link).toHaveAttribute('href', `${trawl().served!.url}/docs/4`);
  await expect(search.results.first().locator('.snippet mark')).toHaveText('spaword4');
  search.expectConsoleEmpty();
});

test('the dashboard shows the pages rendered and why one was', async ({ page }) => {
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await expect(page.getByRole('heading', { name: 'Rendering' })).toBeVisible();
  expect(Number((await page.locator('[data-figure="rendered"]').textContent())?.replace(/,/g, ''))).toBeGreaterThanOrEqual(6);
  await page.goto(new URL(`/status?url=${encodeURIComponent(`${trawl().served!.url}/docs/2`)}`, trawl().url).href);
  await expect(page.locator('.explain')).toContainText(/Rendered in a browser(empty app root #root|its host renders from the start)/);
});
