import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, test } from '@playwright/test';
import { DOCUMENT_FIXTURES } from '../testweb/documents.ts';
import { SearchPage, StatusPage, trawlForFile } from '../testweb/e2e-fixtures.ts';

// A small library: an index page linking a six-page PDF and a Word file, both made at test time
// (testweb/documents.ts). The PDF's page 3 holds "the quartz harmonic resonator".
const pdf = DOCUMENT_FIXTURES.pdf!;
const docx = DOCUMENT_FIXTURES.docx!;
const files = Promise.all([pdf.bytes(), docx.bytes()]);
const requested: string[] = [];

async function library(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const [pdfBytes, docxBytes] = await files;
  requested.push(req.url ?? '');
  if (req.url === '/')
    return void res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<title>Library</title><p>Our documents: <a href="${pdf.path}">quartz</a>, <a href="${docx.path}">tides</a>.</p>`);
  if (req.url === pdf.path) return void res.writeHead(200, { 'content-type': pdf.contentType }).end(pdfBytes);
  if (req.url === docx.path) return void res.writeHead(200, { 'content-type': docx.contentType }).end(docxBytes);
  res.writeHead(404).end();
}

const trawl = trawlForFile({
  serve: (req, res) => void library(req, res),
  seeds: (_web, _other, served) => [`${served!.url}/`],
  configYaml: 'perHost:\n  delayMs: 0\n',
  waitForCrawlEnd: true,
});

test('a phrase from page 3 of a PDF finds it, with its type and page, and the link opens that page', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('"quartz harmonic resonator"');
  await expect(search.results).toHaveCount(1);
  const hit = search.results.first();
  await expect(hit.locator('.badge')).toHaveText('PDF');
  await expect(hit.locator('.result-doc')).toHaveText('PDF · 6 pages · p. 3');
  await expect(hit.locator('.snippet mark').first()).toHaveText(/quartz/i);
  const link = hit.getByRole('link', { name: 'Resonance in Quartz Crystals' });
  const pdfUrl = `${trawl().served!.url}${pdf.path}`;
  await expect(link).toHaveAttribute('href', `${pdfUrl}#page=3`);
  const before = requested.filter((p) => p === pdf.path).length;
  // Chromium's PDF viewer opens it at page 3.
  await link.click();
  await expect(page).toHaveURL(`${pdfUrl}#page=3`);
  await expect.poll(() => requested.filter((p) => p === pdf.path).length).toBeGreaterThan(before);
});

test('documents are a type facet and a filter, and the dashboard counts them by type', async ({ page }) => {
  const search = new SearchPage(page, trawl().url);
  await search.open();
  await search.search('type:office');
  await expect(search.results).toHaveCount(1);
  await expect(search.results.first().locator('.badge')).toHaveText('Word');
  await expect(search.results.first().getByRole('link')).toHaveText(docx.title!);
  await search.search('chapter OR estuary');
  const types = page.getByRole('navigation', { name: 'Filter by type' });
  await expect(types.getByRole('link', { name: 'pdf' })).toBeVisible();
  await types.getByRole('link', { name: 'docx' }).click();
  await expect(search.results).toHaveCount(1);
  const status = new StatusPage(page, trawl().url);
  await status.open();
  await expect(page.locator('[data-figure="by-type"]')).toContainText('pdf 1');
  await expect(page.locator('[data-figure="by-type"]')).toContainText('docx 1');
  search.expectConsoleEmpty();
});
