// Site chrome and near-duplicates in a real crawl: a handbook whose 30 sections share a menu and a
// sidebar (testweb/template-web.ts). After the crawl the template's text is in no stored page nor
// snippet — pages crawled before it was learned included — while the links in it were followed;
// two versions of a guide and its print view fold into one result; the dashboard counts both.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { StatusSchema } from '../search-ui/api/status-schema.ts';
import { statusLine } from '../search-ui/index.ts';
import { serveHandler, type HandlerServer } from '../testweb/index.ts';
import { sectionText, TEMPLATE_TEXT, TEMPLATE_WEB, templateWebHandler } from '../testweb/template-web.ts';
import { Appliance } from './appliance.ts';

const TEMPLATE_LINES = [TEMPLATE_TEXT.menuLine, TEMPLATE_TEXT.sidebarHeading, ...TEMPLATE_TEXT.sidebar];

describe('a crawl of a site built on one template', () => {
  let web: HandlerServer;
  let app: Appliance;
  before(async () => {
    web = await serveHandler(templateWebHandler);
    const dataDir = mkdtempSync(join(tmpdir(), 'trawl-templates-'));
    app = await Appliance.open(
      loadConfig({ overrides: { dataDir, seeds: [`${web.url}/`], perHost: { delayMs: 0, maxConnections: 4 }, parseWorkers: 0, concurrency: 4 } }),
      { lockFor: 'test' },
    );
    await (await app.createCrawler()).crawler.run();
    await app.templatesCleaned();
  });
  after(async () => {
    await app.close();
    await web.close();
  });

  it('follows the links in the template, and keeps its text out of every stored page', async () => {
    const stored: { url: string; text: string; headings: readonly string[] }[] = [];
    for await (const d of app.store.documents.all()) stored.push(d);
    assert.equal(stored.length, TEMPLATE_WEB.pages + 4, 'every section (reachable through the menu only), the home page, the guide twice and its print view');
    for (const d of stored) {
      for (const line of TEMPLATE_LINES) assert.ok(!d.text.includes(line), `${d.url} still says "${line}"`);
      assert.ok(!d.headings.includes(TEMPLATE_TEXT.sidebarHeading), `${d.url}: the sidebar's heading`);
      assert.ok(!/Section \d+\nSection/.test(d.text), `${d.url}: the menu's links`);
    }
    const section = stored.find((d) => d.url.endsWith('/p/7'))!;
    assert.equal(section.text, `Section 7\n${sectionText(7)}`);
  });

  it('cleaned the pages stored before the template was learned, through the index too', async () => {
    const s = await app.status();
    const t = s.crawl.templates!;
    assert.equal(t.hosts, 1);
    assert.ok(t.blocks >= TEMPLATE_LINES.length, `${t.blocks} blocks`);
    assert.ok(t.pagesCleaned >= 19, `${t.pagesCleaned} pages cleaned (the first 20 were stored before it was known)`);
    assert.equal((await app.index.search('volunteers')).total, 0, 'the sidebar\u2019s words are in no indexed page');
    const r = await app.index.search('beekeeping step');
    assert.ok(r.hits.length > 0);
    for (const h of r.hits) assert.ok(!/handbook|volunteers|editorial/i.test(h.snippet), h.snippet);
  });

  it('folds the guide\u2019s two versions and its print view into one result, and counts them on the dashboard', async () => {
    const r = await app.index.search('migration guide');
    assert.equal(r.hits.length, 1, JSON.stringify(r.hits.map((h) => h.url)));
    assert.equal(r.hits[0]!.similar?.length, 2);
    const s = await app.status();
    assert.deepEqual({ documents: s.index.nearDuplicates?.documents, clusters: s.index.nearDuplicates?.clusters }, { documents: 3, clusters: 1 });
    assert.deepEqual(StatusSchema.parse({ ...s, summary: statusLine(s) }), { ...s, summary: statusLine(s) });
  });
});
