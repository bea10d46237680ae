import { expect, test } from '@playwright/test';
import { accessibilityProblems, SearchPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// Two hosts (the fake web on 127.0.0.1 and another on 127.0.0.2), each a small graph, so that
// results have a host facet; crawled fast, as the features here need pages, not a running crawl.
const trawl = trawlForFile({
  web: { graphSize: 12 },
  otherWeb: { graphSize: 12, graphLabel: 'elsewhere' },
  seeds: (web, other) => [new URL('/graph/0', web.url).href, new URL('/graph/0', other!.url).href],
  configYaml: 'scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 0\n',
  // Every page of both hosts first: the counts asserted below are then final.
  waitForCrawlEnd: true,
});

test('results come as you type, and the URL can be shared', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await expect(async () => {
    await search.box.fill('');
    await search.box.pressSequentially('graphword3', { delay: 20 });
    await expect(search.results.first()).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: 30_000 });
  await expect(page).toHaveURL(/\/\?q=graphword3$/);
  await expect(search.summary).toHaveText(/^2 results \(/);
  await page.reload();
  await expect(search.results).toHaveCount(2);
  search.expectConsoleEmpty();
});

test('the keyboard moves between the box and the results', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('graph page');
  await search.box.focus();
  await page.keyboard.press('ArrowDown');
  await expect(search.results.first().getByRole('link').first()).toBeFocused();
  await page.keyboard.press('ArrowDown');
  await expect(search.results.nth(1).getByRole('link').first()).toBeFocused();
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await expect(search.box).toBeFocused();
  await page.getByRole('heading', { level: 2 }).first().click();
  await page.keyboard.press('/');
  await expect(search.box).toBeFocused();
  search.expectConsoleEmpty();
});

test('a host facet narrows the results to one site', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('graphword5');
  await expect(search.results).toHaveCount(2);
  const sites = page.getByRole('navigation', { name: 'Filter by site' });
  const other = new URL(trawl().other!.url).host;
  await expect(sites.getByRole('listitem')).toHaveCount(2);
  await sites.getByRole('link', { name: other }).click();
  await expect(page).toHaveURL(/site%3A127\.0\.0\.2/);
  await expect(search.results).toHaveCount(1);
  await expect(search.results.first()).toContainText(other);
  search.expectConsoleEmpty();
});

test('"did you mean" corrects an unknown word', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('graphwrd7');
  await page.getByRole('link', { name: 'graphword7' }).click();
  await expect(page).toHaveURL(/\?q=graphword7$/);
  await expect(search.results).toHaveCount(2);
  search.expectConsoleEmpty();
});

test('the OpenSearch description is linked and valid', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  const href = await page.locator('link[rel="search"]').getAttribute('href');
  expect(href).toBe('/opensearch.xml');
  const res = await page.request.get(new URL(href!, trawl().url).href);
  expect(res.headers()['content-type']).toMatch(/^application\/opensearchdescription\+xml/);
  const xml = await res.text();
  // Parsed by the browser's own XML parser: well-formed, in the OpenSearch 1.1 namespace.
  const parsed = await page.evaluate((text) => {
    // (This runs in the browser; the project's TypeScript settings know no DOM types.)
    type Element = { namespaceURI: string | null; localName: string; textContent: string | null; getAttribute(n: string): string | null };
    type XmlDocument = {
      documentElement: Element;
      getElementsByTagName(n: string): ArrayLike<Element>;
      getElementsByTagNameNS(ns: string, n: string): ArrayLike<Element> & Iterable<Element>;
    };
    const { DOMParser } = globalThis as unknown as { DOMParser: new () => { parseFromString(t: string, type: string): XmlDocument } };
    const doc = new DOMParser().parseFromString(text, 'application/xml');
    const ns = 'http://a9.com/-/spec/opensearch/1.1/';
    return {
      error: doc.getElementsByTagName('parsererror').length > 0,
      root: `${doc.documentElement.namespaceURI} ${doc.documentElement.localName}`,
      shortName: doc.getElementsByTagNameNS(ns, 'ShortName')[0]?.textContent,
      html: [...doc.getElementsByTagNameNS(ns, 'Url')].find((u) => u.getAttribute('type') === 'text/html')?.getAttribute('template'),
    };
  }, xml);
  expect(parsed).toEqual({
    error: false,
    root: 'http://a9.com/-/spec/opensearch/1.1/ OpenSearchDescription',
    shortName: 'Trawl',
    html: `${trawl().url.replace(/\/$/, '')}/?q={searchTerms}`,
  });
  search.expectConsoleEmpty();
});

test('pages have landmarks, named controls and enough contrast, on desktop and phone', async ({ page }) => {
  for (const size of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(size);
    for (const path of ['/', '/?q=graph+page', '/?q=nothingatallhere', '/status']) {
      await page.goto(new URL(path, trawl().url).href);
      expect(await accessibilityProblems(page), `${path} at ${size.width}px`).toEqual([]);
    }
  }
});
