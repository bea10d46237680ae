import { expect, test } from '@playwright/test';
import { SearchPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// A search that is not public: server.auth puts the search page behind HTTP Basic. The password
// comes from the environment, as a secret must (the spawned `trawl start` inherits it).
process.env.TRAWL_E2E_SEARCH_PW = 'e2e search pw 42';
const trawl = trawlForFile({
  web: { graphSize: 6 },
  seedPaths: ['/graph/0'],
  configYaml: 'scope:\n  allow: ["URL:/graph/"]\nperHost:\n  delayMs: 0\nserver:\n  auth:\n    basic: { username: reader, passwordEnv: TRAWL_E2E_SEARCH_PW }\n',
  waitForCrawlEnd: false,
});

test('without the login, the search answers 401 and asks for it; the browser shows nothing of it', async ({ page, request }) => {
  const res = await request.get(trawl().url);
  expect(res.status()).toBe(401);
  expect(res.headers()['www-authenticate']).toMatch(/^Basic realm="Trawl search"/);
  expect(await res.text()).not.toContain('graphword');
  // (Headless Chromium has no login dialog: the navigation fails.)
  await expect(page.goto(trawl().url)).rejects.toThrow(/ERR_INVALID_AUTH_CREDENTIALS/);
});

test('with the login, a person searches as usual', async ({ browser }) => {
  const context = await browser.newContext({ httpCredentials: { username: 'reader', password: 'e2e search pw 42' } });
  const page = await context.newPage();
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await expect(async () => {
    await search.search('graphword3');
    await expect(search.results).toHaveCount(1, { timeout: 1000 });
  }).toPass({ timeout: 30_000 });
  search.expectConsoleEmpty();
  await context.close();
});
