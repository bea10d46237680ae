import { expect, test } from '@playwright/test';
import { StatusPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// A crawl of a small graph, politely slow so that it lasts a few seconds, over before the browser
// looks. Its end is awaited in the log, not by asking /api/status: nothing looks at the status while
// it runs, so the history shown can only be the one the crawl kept.
const trawl = trawlForFile({
  web: { graphSize: 12 },
  seedPaths: ['/graph/0'],
  configYaml: 'scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 400\n',
});

test.beforeAll(async () => {
  await expect.poll(() => trawl().log(), { timeout: 60_000 }).toMatch(/crawl finished: nothing in scope is left/);
});

/** Points a chart line holds at least: one sample a second of a crawl of a few seconds. */
const SEVERAL = /^\S+( \S+){2,}$/;

test.describe('without JavaScript (the page as the server renders it: no live updates add to what it shows)', () => {
  test.use({ javaScriptEnabled: false });

  test("a dashboard opened after the crawl ended shows the crawl's history, and again after a reload", async ({ page }) => {
    const status = new StatusPage(page, trawl().url);
    await status.open();
    await expect(status.state).toHaveText('idle');
    await expect(status.chartLine('pages')).toHaveAttribute('points', SEVERAL);
    await expect(status.chartKey('pages')).toHaveText(`pages ${await status.figureValue('Fetched')}`);
    await expect(status.chartKey('pages/s')).toHaveText(/\(peak [1-9][\d.]*\)$/);
    await page.reload();
    await expect(status.chartLine('pages')).toHaveAttribute('points', SEVERAL);
    await expect(status.chartLine('pagesPerSecond')).toHaveAttribute('points', SEVERAL);
    status.expectConsoleEmpty();
  });
});

test('the live dashboard keeps showing the whole crawl', async ({ page }) => {
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await expect(status.chartLine('pages')).toHaveAttribute('points', SEVERAL);
  await expect(status.chartKey('pages')).toHaveText(`pages ${await status.figureValue('Fetched')}`);
  status.expectConsoleEmpty();
});
