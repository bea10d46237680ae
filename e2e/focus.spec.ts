import { expect, test } from '@playwright/test';
import { topicWebHandler, topicWebPages } from '../testweb/topic-web.ts';
import { SearchPage, StatusPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// `trawl start` focused on the example topic config/topics/numismatics.txt, over a fake web where
// a few pages about coins sit among many more about sports, recipes and news.
const topic = new URL('../config/topics/numismatics.txt', import.meta.url).pathname;
const trawl = trawlForFile({
  serve: topicWebHandler,
  seeds: (_web, _other, served) => [`${served!.url}/`],
  configYaml: `focus:\n  topicFile: ${JSON.stringify(topic)}\n  cutoff: 30\nperHost:\n  delayMs: 0\n`,
  waitForCrawlEnd: true,
});
const { onTopic } = topicWebPages();

test('only pages about the topic are found, filed under their topics, which narrow a search', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('coin');
  await expect(search.summary).toHaveText(new RegExp(`^${onTopic.length} results \\(`));
  const topics = page.getByRole('navigation', { name: 'Filter by topic' });
  await expect(topics.getByRole('listitem').filter({ hasText: /^coins/ })).toHaveText(`coins ${onTopic.length}`);
  await topics.getByRole('link', { name: 'medals' }).click();
  await expect(page).toHaveURL(/\?q=coin%20topic%3Amedals$/);
  // Three pages speak of medals; /coins/7 says what /coins/3 says but for its number: a
  // near-duplicate, folded under it.
  await expect(search.results).toHaveCount(2);
  await expect(page.locator('details.similar summary')).toHaveText(['1 similar page']);
  for (const r of await search.results.all()) await expect(r.locator('.result-topics')).toContainText('medals');
  // Off topic: fetched, judged, not indexed.
  await search.search('penalty striker');
  await expect(page.getByRole('heading', { name: /^No results for/ })).toBeVisible();
  search.expectConsoleEmpty();
});

test("the dashboard counts the pages found relevant and not relevant, and tells a page's score", async ({ page }) => {
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await expect(page.getByRole('heading', { name: 'Focus' })).toBeVisible();
  await expect(page.getByText(/judged by topic numismatics \(plain scorer, cutoff 30\)/)).toBeVisible();
  expect(await status.figureValue('Relevant')).toBe(onTopic.length);
  expect(await status.figureValue('Not relevant')).toBeGreaterThan(onTopic.length);
  await page.goto(new URL(`/status?url=${encodeURIComponent(`${trawl().served!.url}/crypto`)}`, trawl().url).href);
  await expect(page.locator('dt:text-is("Topic score") + dd')).toHaveText('-32 (not relevant)');
  await expect(page.locator('dt:text-is("Reason") + dd')).toHaveText('off topic: score -32 below the cutoff 30');
});
