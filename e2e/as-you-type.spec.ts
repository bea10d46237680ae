import { expect, test } from '@playwright/test';
import { accessibilityProblems, SearchPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// One small graph whose every page says "lighthouse keepers": words to type letter by letter.
const trawl = trawlForFile({
  web: { graphSize: 12, graphLabel: 'Lighthouse keepers' },
  seedPaths: ['/graph/0'],
  configYaml: 'scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 0\n',
  waitForCrawlEnd: true,
});

test('results come before the word is complete', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.box.pressSequentially('lighth', { delay: 60 });
  await expect(search.results.first()).toBeVisible();
  await expect(search.results.first().locator('mark').first()).toHaveText(/^lighthouse$/i);
  await expect(search.box).toHaveValue('lighth');
  await expect(search.summary).toHaveText(/^12 results \(/);
  search.expectConsoleEmpty();
});

test('suggestions complete the last word, and the keyboard chooses one', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  const suggestions = page.getByRole('listbox', { name: 'Suggestions' });
  await search.open();
  await search.box.pressSequentially('lighthouse kee', { delay: 60 });
  await expect(suggestions).toBeVisible();
  const first = suggestions.getByRole('option').first();
  await expect(first).toHaveText('lighthouse keepers');
  await expect(search.box).toHaveAttribute('aria-controls', 'q-suggestions');
  // ↓ chooses the first (the box keeps the focus and names it), Esc closes, Enter searches.
  await page.keyboard.press('ArrowDown');
  await expect(first).toHaveAttribute('aria-selected', 'true');
  await expect(search.box).toHaveAttribute('aria-activedescendant', (await first.getAttribute('id'))!);
  await expect(search.box).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(suggestions).toBeHidden();
  await search.box.press('Backspace');
  await search.box.pressSequentially('e', { delay: 60 });
  await expect(first).toBeVisible();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\?q=lighthouse(\+|%20)keepers$/);
  await expect(search.box).toHaveValue('lighthouse keepers');
  await expect(search.summary).toHaveText(/^12 results \(/);
  expect(await accessibilityProblems(page)).toEqual([]);
  search.expectConsoleEmpty();
});

test('a mistyped word is corrected, and the exact search is offered', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('lighthuose keepers');
  await expect(page.locator('#corrected')).toHaveText('Including results for lighthouse keepers. Search only for lighthuose keepers');
  await expect(search.summary).toHaveText(/^12 results \(/);
  await page.getByRole('link', { name: 'Search only for lighthuose keepers' }).click();
  await expect(page).toHaveURL(/exact=1$/);
  await expect(page.getByText('Did you mean')).toBeVisible();
  search.expectConsoleEmpty();
});
