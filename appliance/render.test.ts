// Integration: `render: auto` over a fake single-page app (testweb/spa-web.ts) beside a host of
// plain HTML, through the appliance as in production, with Debian's Chromium. What is searchable,
// what each failure's record says, that the plain host was never rendered, that politeness held.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { serveHandler, startFakeWeb, type FakeWeb, type HandlerServer } from '../testweb/index.ts';
import { spaWeb, type SpaRequest } from '../testweb/spa-web.ts';
import { Appliance } from './appliance.ts';

const CHROMIUM = process.env.TRAWL_CHROMIUM ?? '/usr/bin/chromium';
const DELAY_MS = 60;
/** The pages of the SPA (what the crawler fetches), as against the app's own requests. */
const PAGE = /^\/(docs\/\d+|plain|spin|alert|huge|latest)?$/;

const open = (seeds: string[], extra: Record<string, unknown> = {}) =>
  Appliance.open(
    loadConfig({
      overrides: {
        dataDir: mkdtempSync(join(tmpdir(), 'trawl-render-')),
        seeds,
        concurrency: 4,
        perHost: { delayMs: DELAY_MS, maxConnections: 1 },
        parseWorkers: 0,
        retry: { maxAttempts: 1, baseDelayMs: 10 },
        render: { mode: 'auto', browserPath: CHROMIUM, timeoutMs: 4000, settleMs: 300, maxBytes: 4 * 1024 * 1024 },
        ...extra,
      },
    }),
    { lockFor: 'test' },
  );

describe('a crawl with render: auto', () => {
  let spa: HandlerServer;
  let log: SpaRequest[];
  let plain: FakeWeb;
  let app: Appliance;
  const at = (path: string) => `${spa.url}${path}`;

  before(async () => {
    const web = spaWeb({ pages: 6, hugeBytes: 64 * 1024 * 1024 });
    log = web.log;
    spa = await serveHandler(web.handler);
    plain = await startFakeWeb({ graphSize: 6, host: '127.0.0.2' });
    app = await open([at('/'), at('/plain'), at('/spin'), at('/alert'), at('/huge'), new URL('/graph/0', plain.url).href], {
      scope: { allow: ['HOST:^127\\.0\\.0\\.1:', 'URL:/graph/'] },
    });
    await (await app.createCrawler()).crawler.run();
  });
  after(async () => {
    await app?.close();
    await spa?.close();
    await plain?.close();
  });

  const found = async (q: string) => (await app.index.search(q)).hits.map((h) => h.url);

  it("makes the app's pages searchable, with the links that exist only once rendered", async () => {
    assert.deepEqual(await found('spaword3'), [at('/docs/3')]);
    for (let n = 1; n <= 6; n++) assert.deepEqual(await found(`spaword${n}`), [at(`/docs/${n}`)], `page ${n}, reached by router links`);
    const r = await app.explain(at('/docs/3'));
    assert.ok(r.known && r.state === 'indexed' && r.rendered, JSON.stringify(r));
    assert.match(r.rendered!, /empty app root #root|renders from the start/);
    assert.equal((await app.store.documents.get((await app.store.urls.record(at('/docs/3')))!.id))?.title, 'Doc 3: the cobalt chapter');
  });

  it('reads a page that is fine without JavaScript as it comes, and never renders the plain host', async () => {
    assert.deepEqual(await found('plainword'), [at('/plain')]);
    assert.deepEqual(await found('plainscriptword'), [], 'its script never ran');
    assert.equal((await app.explain(at('/plain'))).known && (await app.store.urls.record(at('/plain')))?.rendered, null);
    for (let i = 0; i < 6; i++) {
      const rec = await app.store.urls.record(new URL(`/graph/${i}`, plain.url).href);
      assert.ok(rec && rec.state === 'indexed' && rec.rendered === null, `graph ${i}: ${JSON.stringify(rec)}`);
    }
    const s = await app.status();
    assert.ok(s.render && s.render.rendered >= 7 && s.render.rendered <= 9, JSON.stringify(s.render));
  });

  it('dismisses dialogs and refuses popups, and renders the page', async () => {
    assert.deepEqual(await found('alertword'), [at('/alert')]);
    assert.ok(!log.some((r) => r.path === '/popup'), 'the popup was never opened');
  });

  it('records a page that spins, and one whose script fetches too much, as render failures', async () => {
    const spin = await app.explain(at('/spin'));
    assert.ok(spin.known && spin.state === 'dead' && spin.error === 'render-failed', JSON.stringify(spin));
    assert.match(spin.reason ?? '', /render failed \(timeout\)/);
    const huge = await app.explain(at('/huge'));
    assert.ok(huge.known && huge.state === 'dead' && huge.error === 'render-failed', JSON.stringify(huge));
    assert.match(huge.reason ?? '', /render failed \(too-large\)/);
    assert.ok((await app.status()).render!.failed >= 2);
  });

  it("fetches each page once — the browser is handed the crawler's copy — never an image or a font, and politely", () => {
    const pages = log.filter((r) => PAGE.test(r.path));
    for (const p of ['/', '/docs/3', '/plain', '/spin']) assert.equal(pages.filter((r) => r.path === p).length, 1, p);
    assert.ok(!log.some((r) => r.path.startsWith('/img/') || r.path.startsWith('/fonts/')), 'images and fonts are never loaded');
    for (let i = 1; i < pages.length; i++)
      assert.ok(pages[i]!.at - pages[i - 1]!.at >= DELAY_MS - 5, `${pages[i - 1]!.path} then ${pages[i]!.path}: ${pages[i]!.at - pages[i - 1]!.at} ms apart`);
  });
});

describe('rendering without a browser', () => {
  let spa: HandlerServer;
  before(async () => {
    spa = await serveHandler(spaWeb({ pages: 3 }).handler);
  });
  after(async () => {
    await spa?.close();
  });

  it('auto: goes on over HTTP, and counts the pages that needed a browser', async () => {
    const app = await open([`${spa.url}/`], { render: { mode: 'auto', browserPath: '/nonexistent/chromium' } });
    try {
      await (await app.createCrawler()).crawler.run();
      const s = await app.status();
      assert.ok(s.render && s.render.wouldRender >= 1 && s.render.rendered === 0, JSON.stringify(s.render));
      assert.match(s.render.unavailable ?? '', /apt-get install chromium/);
      assert.equal((await app.explain(`${spa.url}/`)).known, true);
    } finally {
      await app.close();
    }
  });

  it('always: refuses to start, saying how to install one', async () => {
    const app = await open([`${spa.url}/`], { render: { mode: 'always', browserPath: '/nonexistent/chromium' } });
    try {
      await assert.rejects(app.createCrawler(), /no browser at \/nonexistent\/chromium .*apt-get install chromium/);
    } finally {
      await app.close();
    }
  });
});
