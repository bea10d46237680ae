import { expect, test } from '@playwright/test';
import { SearchPage, StatusPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// `trawl start` over a small site that changes while it runs: the continuous recrawl (short
// intervals here) brings the edit, the new page and the removals to the search by itself.
const trawl = trawlForFile({
  seedPaths: ['/site/'],
  configYaml:
    'scope:\n  allow: ["URL:/site/"]\nperHost:\n  delayMs: 0\nretry:\n' +
    '  baseDelayMs: 100\n  maxAttempts: 2\nrecrawl:\n  minInterval: 1s\n  maxInterval: 3s\n',
  waitForCrawlEnd: true,
});

test('the index follows a site that changes, through conditional requests', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('deletedword');
  await expect(search.result('Deleted page')).toBeVisible();
  await search.search('revisedword');
  await expect(search.results).toHaveCount(0);

  // The site changes: one page edited, one deleted, one moved, one added, one unchanged.
  const web = trawl().web;
  const mark = web.requests.length;
  web.setSiteVersion(2);

  // The dashboard shows the revisits as they happen.
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await expect(page.getByText(/Pages are fetched again as they fall due/)).toBeVisible();
  await expect.poll(() => status.figureValue('Removed'), { timeout: 30_000 }).toBe(2);
  await expect.poll(() => status.figureValue('Changed')).toBeGreaterThanOrEqual(2);
  expect(await status.figureValue('Unchanged')).toBeGreaterThanOrEqual(1);
  expect(await status.figureValue('Revisited')).toBeGreaterThanOrEqual(6);

  await search.open();
  await search.search('revisedword');
  await expect(search.result('Edited page')).toBeVisible();
  await search.search('addedword');
  await expect(search.result('Added page')).toBeVisible();
  await search.search('deletedword');
  await expect(search.results).toHaveCount(0);
  await search.search('movedword');
  await expect(search.results).toHaveCount(1);
  await expect(search.results.first()).toContainText('/site/new-home');
  await search.search('steadyword');
  await expect(search.result('Unchanged page')).toBeVisible();

  // The fake server's log: every revisit asked conditionally, and the unchanged page was never
  // downloaded again (only 304s after its first fetch).
  const after = web.requests.slice(mark);
  const unchanged = after.filter((r) => r.path === '/site/unchanged');
  expect(unchanged.length).toBeGreaterThanOrEqual(1);
  expect(unchanged.map((r) => [r.ifNoneMatch, r.status])).toEqual(unchanged.map(() => ['"unchanged"', 304]));
  const edited = after.filter((r) => r.path === '/site/edited');
  expect(edited[0]?.ifNoneMatch, 'the edited page was asked for with its old ETag').toBe('"edited-1"');
  expect(edited[0]?.status).toBe(200);
  expect(after.filter((r) => r.path === '/site/deleted').map((r) => r.status)).toEqual([404, 404]);
  search.expectConsoleEmpty();
  status.expectConsoleEmpty();
});
