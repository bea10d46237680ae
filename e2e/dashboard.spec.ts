import { expect, test } from '@playwright/test';
import { StatusPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// One appliance for the file: a slow, polite crawl of a 60-page graph (still running while the
// browser watches it), with an admin token.
const TOKEN = 'e2e-admin-token-0123456789';
const trawl = trawlForFile({
  web: { graphSize: 60, delayMs: 20 },
  seedPaths: ['/graph/0'],
  configYaml: `scope:\n  allow: ["URL:/graph/", "URL:/fr$"]\nperHost:\n  delayMs: 300\nserver:\n  adminToken: ${TOKEN}\n`,
});

test('the dashboard moves while the crawl runs, without a reload', async ({ page }) => {
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await expect(status.state).toHaveText('crawling');
  const fetched = await status.figureValue('Fetched');
  await expect.poll(() => status.figureValue('Fetched')).toBeGreaterThan(fetched);
  await expect(status.hosts.getByRole('rowheader', { name: new URL(trawl().web.url).host })).toBeVisible();
  await expect(status.recent.getByRole('cell', { name: /\/graph\/\d+$/ }).first()).toBeVisible();
  await expect(page.getByRole('img', { name: /Pages fetched, failures and pages per second over the crawl/ })).toBeVisible();
  status.expectConsoleEmpty();
});

test('admin actions are refused without the token and done with it', async ({ page }) => {
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await status.token.fill('not-the-token-at-all');
  await status.admin('Pause crawl');
  await expect(status.adminResult).toHaveText(/^Refused \(401\)/);
  await expect(status.state).toHaveText('crawling');

  await status.token.fill(TOKEN);
  await status.admin('Pause crawl');
  await expect(status.adminResult).toHaveText('Done: {"paused":true}');
  await expect(status.state).toHaveText('paused');
  await status.admin('Resume crawl');
  await expect(status.state).toHaveText('crawling');

  await page.getByLabel('Add seeds (one URL per line)').fill(new URL('/fr', trawl().web.url).href);
  await page.getByRole('button', { name: 'Add seeds' }).click();
  await expect(status.adminResult).toHaveText(/^Done: \{"queued":\["http:\/\/[^"]+\/fr"\]/);
  // The 401 above is logged by the browser as a failed resource; nothing else may be.
  status.expectConsoleEmpty([/status of 401/]);
});

test('"why is this URL not in the index?" answers for any URL', async ({ page }) => {
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await status.lookup.fill(new URL('/private/secret', trawl().web.url).href);
  await page.getByRole('button', { name: 'Look up' }).click();
  const neverQueued = /Trawl has no record of it — never queued: it is rejected \(out-of-scope: not allowed by any scope\.allow rule\)/;
  await expect(page.getByText(neverQueued)).toBeVisible();
  await status.lookup.fill(new URL('/graph/0', trawl().web.url).href);
  await page.getByRole('button', { name: 'Look up' }).click();
  await expect(page.locator('.explain')).toContainText('is in the index');
  await expect(page.locator('.explain')).toContainText('HTTP status200');
  status.expectConsoleEmpty();
});

test('dashboard on desktop and phone (screenshots for review)', async ({ page }, info) => {
  const status = new StatusPage(page, trawl().url);
  for (const [name, size] of [
    ['desktop', { width: 1280, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    await status.open();
    await expect(status.recent).toBeVisible();
    await page.screenshot({ path: info.outputPath(`status-${name}.png`), fullPage: true });
    await page.screenshot({ path: `test-results/screenshots/status-${name}.png`, fullPage: true });
  }
  status.expectConsoleEmpty();
});
