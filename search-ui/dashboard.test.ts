import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplianceStatus, UrlExplanation } from '../model/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import type { StoredDocument } from '../model/index.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { crawledAgo } from './pages.ts';

const HOSTILE = 'http://e.org/"><script>alert(1)</script>';
let fetched = 40;
const statusNow = (): ApplianceStatus => ({
  crawl: {
    running: true,
    paused: false,
    fetched,
    indexed: 38,
    queued: 120,
    inFlight: 3,
    failed: 2,
    retrying: 1,
    dead: 1,
    excluded: 7,
    redirected: 0,
    pagesPerSecond: 12.5,
    stats: {
      requests: 44,
      bytes: 90_000,
      pagesPerSecond: 12.5,
      stages: {
        fetch: { count: 44, ms: 880 },
        parse: { count: 40, ms: 120 },
        render: { count: 0, ms: 0 },
        classify: { count: 0, ms: 0 },
        store: { count: 40, ms: 8 },
        index: { count: 38, ms: 30 },
        links: { count: 40, ms: 6 },
      },
      outcomes: { indexed: 38, failed: 2 },
    },
    hosts: [
      {
        host: 'docs.e.org',
        queued: 99,
        inFlight: 2,
        delayMs: 1000,
        errors: 4,
        waitingForRobots: false,
        suspendedUntil: new Date(Date.now() + 60_000).toISOString(),
        suspensions: 1,
        lastError: 'timeout',
      },
    ],
    rejections: [
      { reason: 'out of scope', count: 31 },
      { reason: 'robots "txt"', count: 2 },
    ],
  },
  recrawl: { continuous: true, due: 7, nextDueAt: '2026-11-22T11:00:00.000Z', revisited: 31, changed: 4, unchanged: 26, removed: 1 },
  focus: { classifier: 'topic coins (plain scorer, cutoff 10)', cutoff: 10, relevant: 12, notRelevant: 30 },
  index: { documents: 38, terms: 1234, lastFlushAt: '2026-11-22T10:00:00.000Z', lastFlushMs: 12, lastFlushBytes: 2_500_000 },
  recent: [{ url: HOSTILE, status: 200, ms: 35, bytes: 1200, outcome: 'indexed' }],
});
const docs = new Map<number, StoredDocument>();
const index = new SearchIndex((id) => docs.get(id));
const d: StoredDocument = {
  id: 1,
  url: 'http://docs.e.org/intro',
  title: 'Intro',
  description: '',
  headings: [],
  text: 'welcome words here',
  contentType: 'text/html',
  bytes: 1,
  truncated: false,
  httpStatus: 200,
  fetchedAt: Date.now() - 3 * 3600_000,
  hash: '',
};
docs.set(1, d);
index.upsert(d);
const explain = async (url: string): Promise<UrlExplanation> =>
  url.includes('known')
    ? {
        known: true,
        url,
        state: 'excluded',
        indexed: false,
        reason: 'robots.txt disallows it',
        error: null,
        httpStatus: null,
        attempts: 0,
        depth: 2,
        discoveredAt: '2026-11-22T09:00:00.000Z',
        fetchedAt: null,
        nextAttemptAt: null,
        revisitAt: '2026-11-23T09:00:00.000Z',
        changedAt: null,
        contentType: null,
        lang: null,
        topicScore: 3.5,
        relevant: false,
        classes: [],
      }
    : { known: false, url, reason: 'never seen: no crawled page links to it yet' };
const app = createApp({ ...serverDefaults(), searcher: index, status: async () => statusNow(), version: 't', explain, eventIntervalMs: 20 });
const text = async (path: string) => (await app.request(path)).text();

describe('the dashboard (/status)', () => {
  it('shows the figures, a chart, the hosts, the latest fetches and the rejections', async () => {
    const html = await text('/status');
    assert.match(html, /<dt>Pages\/s<\/dt><dd data-figure="pages-per-second">12.5<\/dd>/);
    assert.match(html, /<dd data-figure="queued">120<\/dd>/);
    assert.match(html, /<svg viewBox="0 0 600 120"[^>]*role="img"/);
    assert.match(html, /<th scope="row">docs\.e\.org<\/th><td>99<\/td><td>2<\/td><td>1\.0 s<\/td>/);
    assert.match(html, /until \d{4}-\d\d-\d\d [\d:]+ UTC <span class="why">— timeout<\/span>/);
    assert.match(html, /<td>out of scope<\/td><td>31<\/td>/);
    assert.match(html, /2\.5 MB/);
  });

  it('shows the recrawl: the schedule and what revisits found', async () => {
    const html = await text('/status');
    assert.match(html, /fetched again as they fall due[^<]*Next page due: 2026-11-22 11:00:00 UTC/);
    for (const [k, v] of Object.entries({ due: 7, revisited: 31, changed: 4, unchanged: 26, removed: 1 }))
      assert.match(html, new RegExp(`<dd data-figure="${k}">${v}</dd>`));
    assert.match(await text('/status?url=http%3A%2F%2Fe.org%2Fknown'), /<dt>Next revisit<\/dt><dd>2026-11-23 09:00:00 UTC<\/dd>/);
  });

  it('shows a focused crawl: what judges pages, and how many it found relevant', async () => {
    const html = await text('/status');
    assert.match(html, /<h2 id="focus-h">Focus<\/h2>\s*<p>Pages are judged by topic coins \(plain scorer, cutoff 10\)/);
    assert.match(html, /<dd data-figure="relevant">12<\/dd>/);
    assert.match(html, /<dd data-figure="not-relevant">30<\/dd>/);
    assert.match(await text('/status?url=http%3A%2F%2Fe.org%2Fknown'), /<dt>Topic score<\/dt><dd>3.5 \(not relevant\)<\/dd>/);
    assert.match(await text('/metrics'), /^trawl_focus_pages\{verdict="not-relevant"\} 30$/m);
    const plain = createApp({ ...serverDefaults(), searcher: index, status: async () => ({ ...statusNow(), focus: null }), version: 't' });
    assert.ok(!(await (await plain.request('/status')).text()).includes('focus-h'), 'no focus section without a focused crawl');
  });

  it('shows crawled URLs as text', async () => {
    const html = await text('/status');
    assert.ok(!html.includes('<script>alert(1)</script>'));
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  });

  it('answers "why is this URL not in the index?" on the page and as JSON', async () => {
    const page = await text('/status?url=http%3A%2F%2Fe.org%2Fknown');
    assert.match(page, /is <strong>not in the index<\/strong>/);
    assert.match(page, /<dt>Reason<\/dt><dd>robots\.txt disallows it<\/dd>/);
    assert.match(await text('/status?url=http%3A%2F%2Fe.org%2Fother'), /Trawl has no record of it — never seen/);
    const known = await app.request('/api/document?url=http%3A%2F%2Fe.org%2Fknown');
    assert.equal(known.status, 200);
    assert.equal(((await known.json()) as { state: string }).state, 'excluded');
    const unknown = await app.request('/api/document?url=http%3A%2F%2Fe.org%2Fother');
    assert.equal(unknown.status, 404);
    assert.deepEqual(await unknown.json(), { error: 'never seen: no crawled page links to it yet', code: 'unknown-url', url: 'http://e.org/other' });
    assert.equal((await app.request('/api/document')).status, 400);
  });

  it('sends the live part as server-sent events, moving with the crawl', async () => {
    const res = await app.request('/api/events');
    assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
    const reader = res.body!.getReader();
    const events: { summary: string; html: string }[] = [];
    let buffer = '';
    while (events.length < 2) {
      const { value } = await reader.read();
      buffer += new TextDecoder().decode(value);
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const data = /^data: (.*)$/m.exec(buffer.slice(0, end));
        if (data) events.push(JSON.parse(data[1]!));
        buffer = buffer.slice(end + 2);
      }
      fetched++;
    }
    await reader.cancel();
    assert.match(events[0]!.html, /data-figure="fetched">\d+</);
    assert.notEqual(events[0]!.html.match(/data-figure="fetched">(\d+)/)![1], events[1]!.html.match(/data-figure="fetched">(\d+)/)![1]);
    assert.match(events[1]!.summary, /Crawling: \d+ pages fetched/);
  });
});

describe('seeds that could not be fetched, and pages whose links were cut', () => {
  const troubled = (): ApplianceStatus => ({
    ...statusNow(),
    crawl: { ...statusNow().crawl, running: false, linksCut: { pages: 2, links: 9585 } },
    seeds: [
      { url: 'http://no-such-host.invalid/', state: 'dead', fetched: false, error: 'dns', reason: 'the host name does not resolve (ENOTFOUND)' },
      { url: 'http://127.0.0.1:9/', state: 'failed', fetched: false, error: 'refused', reason: 'connection refused' },
    ],
  });
  const app2 = createApp({
    ...serverDefaults(),
    searcher: index,
    status: async () => troubled(),
    version: 't',
    explain: async (url) => ({ ...(await explain('known')), url, linksCut: 9585 }) as UrlExplanation,
  });

  it('says on the search page, in the status line and on the dashboard why nothing could be crawled', async () => {
    const home = await (await app2.request('/')).text();
    assert.match(home, /<div class="notice" role="alert"><p><strong>No seed could be fetched<\/strong>/);
    assert.match(home, /<span class="url">http:\/\/no-such-host\.invalid\/<\/span>: dns — the host name does not resolve \(ENOTFOUND\)/);
    assert.match(
      home,
      /id="crawl-status"[^>]*>Crawl idle · \d+ pages fetched · 38 documents indexed · No seed could be fetched: http:\/\/no-such-host\.invalid\/ \(dns — /,
    );
    const status = await (await app2.request('/status')).text();
    assert.match(status, /<h2 id="seeds-h">Seeds<\/h2>/);
    assert.match(
      status,
      /<tr class="trouble"><td class="url">http:\/\/127\.0\.0\.1:9\/<\/td><td>failed<\/td><td>no<\/td><td>refused — connection refused<\/td><\/tr>/,
    );
    assert.match(((await (await app2.request('/api/status')).json()) as { summary: string }).summary, /No seed could be fetched/);
  });

  it('says nothing while a seed is still to be fetched, or once one was', async () => {
    const pending = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => ({
        ...troubled(),
        seeds: [...troubled().seeds!, { url: 'http://c.test/', state: 'queued', fetched: false, error: null, reason: null }],
      }),
      version: 't',
    });
    assert.doesNotMatch(await (await pending.request('/')).text(), /No seed could be fetched/);
    const one = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => ({
        ...troubled(),
        seeds: [...troubled().seeds!, { url: 'http://c.test/', state: 'indexed', fetched: true, error: null, reason: null }],
      }),
      version: 't',
    });
    assert.doesNotMatch(await (await one.request('/')).text(), /No seed could be fetched/);
    assert.match(await (await one.request('/status')).text(), /<tr><td class="url">http:\/\/c\.test\/<\/td><td>indexed<\/td><td>yes<\/td><td>—<\/td><\/tr>/);
  });

  it("counts the pages whose links were cut on the dashboard and in the metrics, and names it in a URL's record", async () => {
    // The figure, its title and its count of links: one pattern, in parts.
    const figure = [
      /<dt>Pages with links cut<\/dt>/,
      /<dd data-figure="links-cut" title="9,585 links beyond limits.maxLinksPerPage not followed">/,
      /2 <span class="why">\(9,585 links\)<\/span><\/dd>/,
    ];
    assert.match(await (await app2.request('/status')).text(), new RegExp(figure.map((r) => r.source).join('')));
    assert.doesNotMatch(await text('/status'), /links-cut/, 'nothing cut, nothing shown');
    assert.match(await (await app2.request('/metrics')).text(), /^trawl_links_cut_pages 2$/m);
    assert.match(
      await (await app2.request('/status?url=http%3A%2F%2Fe.org%2Fknown')).text(),
      /<dt>Links not followed<\/dt><dd>9,585 beyond limits\.maxLinksPerPage<\/dd>/,
    );
  });
});

describe("the sites' broken links, told apart from the crawl's own failures", () => {
  const failing = (): ApplianceStatus => {
    const s = statusNow();
    return {
      ...s,
      crawl: {
        ...s.crawl,
        failed: 5,
        brokenLinks: {
          count: 3,
          shown: [
            { url: 'http://docs.e.org/pkg/left-pad/', status: 404, foundOn: 'http://docs.e.org/', links: 2 },
            { url: 'http://docs.e.org/pkg/request/', status: 410, foundOn: 'http://docs.e.org/"><b>x</b>', links: 0 },
          ],
        },
        fetchFailures: {
          count: 2,
          shown: [
            { url: 'http://docs.e.org/build-status', state: 'dead', error: 'http-5xx', reason: 'HTTP 500', httpStatus: 500, attempts: 3 },
            { url: 'http://docs.e.org/live', state: 'failed', error: 'timeout', reason: 'timeout: no answer in 5 s', httpStatus: null, attempts: 1 },
          ],
        },
      },
    };
  };
  const app3 = createApp({ ...serverDefaults(), searcher: index, status: async () => failing(), version: 't', eventIntervalMs: 20 });

  it('counts them apart on the dashboard: Failed is the crawl’s own, Broken links beside', async () => {
    const page = await (await app3.request('/status')).text();
    assert.match(page, /<dt>Failed<\/dt><dd data-figure="failed" title="URLs the crawl could not fetch[^"]*">2<\/dd>/);
    assert.match(page, /<dt>Broken links<\/dt><dd data-figure="broken-links"[^>]*>3<\/dd>/);
    assert.doesNotMatch(
      await text('/status'),
      /broken-links|Broken links on the sites|Failures of the crawl/,
      'a status that does not tell them apart shows Failed alone',
    );
    assert.match(await text('/status'), /<dt>Failed<\/dt><dd data-figure="failed">2<\/dd>/);
  });

  it('lists each broken link with the page it was found on, and each failure with its error', async () => {
    const page = await (await app3.request('/status')).text();
    assert.match(
      page,
      /<h2 id="broken-h">Broken links on the sites<\/h2>\s*<p>3 links lead to a page that is not there \(404 or 410\)[^<]*The first 2 are listed\.<\/p>/,
    );
    assert.match(
      page,
      /<tr><td class="url">http:\/\/docs\.e\.org\/pkg\/left-pad\/<\/td><td>404<\/td><td class="url">http:\/\/docs\.e\.org\/<\/td><td>2<\/td><\/tr>/,
    );
    assert.match(page, /<td class="url">http:\/\/docs\.e\.org\/&quot;&gt;&lt;b&gt;x&lt;\/b&gt;<\/td>/, 'a page found on is shown as text');
    assert.match(page, /<h2 id="failures-h">Failures of the crawl<\/h2>\s*<p>2 URLs could not be fetched/);
    assert.match(
      page,
      /<tr class="trouble"><td class="url">http:\/\/docs\.e\.org\/build-status<\/td><td>given up<\/td><td>http-5xx<\/td><td>HTTP 500<\/td><td>3<\/td><\/tr>/,
    );
    assert.match(page, /<td>to be retried<\/td><td>timeout<\/td>/);
  });

  it('says them apart in the status line and in /api/status, and in each live update', async () => {
    const body = (await (await app3.request('/api/status')).json()) as ApplianceStatus & { summary: string };
    assert.match(body.summary, /^Crawling: \d+ pages fetched, 120 queued, 2 failed, 3 broken links · /);
    assert.deepEqual(body.crawl.brokenLinks, failing().crawl.brokenLinks);
    assert.deepEqual(body.crawl.fetchFailures, failing().crawl.fetchFailures);
    assert.equal(body.crawl.failed, 5, 'failed still counts them all');
    const idle = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => ({ ...failing(), crawl: { ...failing().crawl, running: false } }),
      version: 't',
    });
    assert.match(
      ((await (await idle.request('/api/status')).json()) as { summary: string }).summary,
      /^Crawl idle · \d+ pages fetched · 38 documents indexed · 2 failed · 3 broken links$/,
    );
    const reader = (await app3.request('/api/events')).body!.getReader();
    let buffer = '';
    while (!buffer.includes('\n\n')) buffer += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const event = JSON.parse(/^data: (.*)$/m.exec(buffer)![1]!) as { html: string; summary: string };
    assert.match(event.html, /data-figure="broken-links"[^>]*>3</);
    assert.match(event.html, /Failures of the crawl/);
    assert.match(event.summary, /2 failed, 3 broken links/);
  });
});

describe('logins', () => {
  const scope = { kind: 'form', logins: 0, loginFailures: 0, renewals: 0, refused: 0, lastProblem: null, loginRedirectsOutside: 0, hostsOutside: [] };
  it('marks a scope that never applied while pages it does not cover were sent to its login page', async () => {
    const app5 = createApp({
      ...serverDefaults(),
      searcher: index,
      status: async () => ({
        ...statusNow(),
        auth: [
          { ...scope, scope: 'HOST:^wiki\\.intra\\.corp$', requests: 0, loginRedirectsOutside: 7, hostsOutside: ['wiki.intra:8443'] },
          { ...scope, scope: 'HOST:^docs$', requests: 12 },
        ],
      }),
      version: 't',
    });
    const page = await (await app5.request('/status')).text();
    assert.match(
      page,
      /<tr class="trouble"><td><code>HOST:\^wiki\\\.intra\\\.corp\$<\/code><\/td>.*<td>never applied: 7 pages of wiki\.intra:8443, [^<]*<\/td><\/tr>/,
    );
    assert.match(page, /never applied: 7 pages of wiki\.intra:8443, which its match does not cover, sent to its login page</);
    assert.match(page, /<tr><td><code>HOST:\^docs\$<\/code><\/td><td>form<\/td><td>0<\/td><td>0<\/td><td>0<\/td><td>0<\/td><td>—<\/td><\/tr>/);
  });
});

describe("the chart: the crawl's history", () => {
  const T0 = Date.UTC(2026, 10, 22, 9);
  // Ten minutes of a crawl that has ended: a sample every 30 s, pages rising, a failure at the end.
  const history = Array.from({ length: 21 }, (_, i) => ({
    at: new Date(T0 + i * 30_000).toISOString(),
    pagesPerSecond: i === 20 ? 0 : 10 + (i % 3),
    pages: i * 300,
    failures: i === 20 ? 1 : 0,
  }));
  const ended = (): ApplianceStatus => ({ ...statusNow(), crawl: { ...statusNow().crawl, running: false, pagesPerSecond: 0 }, history });
  const app4 = createApp({ ...serverDefaults(), searcher: index, status: async () => ended(), version: 't', eventIntervalMs: 20 });
  const pointsOf = (page: string, series: string) =>
    new RegExp(`<polyline [^>]*data-series="${series}" points="([^"]*)"`)
      .exec(page)![1]!
      .split(' ')
      .map((p) => p.split(',').map(Number) as [number, number]);

  it('draws the whole crawl after it ended — not two flat lines — and again on a reload', async () => {
    const page = await (await app4.request('/status')).text();
    assert.match(page, /role="img" aria-label="Pages fetched, failures and pages per second over the crawl \(10 min\)"/);
    const pages = pointsOf(page, 'pages');
    assert.equal(pages.length, 21, 'a point a sample');
    assert.deepEqual([pages[0]![0], pages.at(-1)![0]], [0, 600], 'from the first sample to the last, across the box');
    assert.ok(
      pages.every(([, y], i) => i === 0 || y < pages[i - 1]![1]),
      'pages rise (the y axis points down)',
    );
    assert.equal(new Set(pointsOf(page, 'pagesPerSecond').map(([, y]) => y)).size, 4, 'pages/s moves, on a scale of its own');
    assert.match(page, /swatch-fetched"><\/span>pages 6,000<\/span>/);
    assert.match(page, /swatch-failed"><\/span>failures 1<\/span>/);
    assert.match(page, /swatch-rate"><\/span>pages\/s 0 \(peak 12\)<\/span>/);
    assert.equal(await (await app4.request('/status')).text(), page, 'a reload draws the same history');
  });

  it('sends the same history in each live update', async () => {
    const reader = (await app4.request('/api/events')).body!.getReader();
    let buffer = '';
    while (!buffer.includes('\n\n')) buffer += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const event = JSON.parse(/^data: (.*)$/m.exec(buffer)![1]!) as { html: string };
    assert.equal(pointsOf(event.html, 'pages').length, 21);
    assert.deepEqual(((await (await app4.request('/api/status')).json()) as ApplianceStatus).history, history, '/api/status gives it too');
  });

  it('draws what the server saw when the status brings no history (no crawl in this process)', async () => {
    const page = await text('/status');
    assert.match(page, /<polyline [^>]*data-series="pages" points="0\.0,[\d.]+"/);
  });
});

describe('search page extras', () => {
  it('gives each result its host and when it was crawled', async () => {
    const html = await text('/?q=welcome');
    assert.match(html, /<span class="result-host">docs\.e\.org<\/span> · crawled <time datetime="[^"]+">3 hours ago<\/time>/);
  });

  it('says when a page was crawled as a person would', () => {
    const now = Date.UTC(2026, 10, 22, 12);
    assert.equal(crawledAgo(now - 20_000, now), 'just now');
    assert.equal(crawledAgo(now - 60_000, now), '1 minute ago');
    assert.equal(crawledAgo(now - 5 * 3600_000, now), '5 hours ago');
    assert.equal(crawledAgo(now - 2 * 86_400_000, now), '2 days ago');
    assert.equal(crawledAgo(Date.UTC(2026, 0, 5), now), '2026-01-05');
  });

  it('links an OpenSearch description from every page, and serves a valid one', async () => {
    for (const path of ['/', '/?q=welcome', '/status'])
      assert.match(await text(path), /<link rel="search" type="application\/opensearchdescription\+xml" href="\/opensearch.xml" title="Trawl">/);
    const res = await app.request('http://127.0.0.1:8080/opensearch.xml');
    assert.match(res.headers.get('content-type') ?? '', /^application\/opensearchdescription\+xml/);
    const xml = await res.text();
    assert.match(xml, /^<\?xml version="1.0" encoding="UTF-8"\?>\n<OpenSearchDescription xmlns="http:\/\/a9.com\/-\/spec\/opensearch\/1.1\/">/);
    assert.match(xml, /<ShortName>Trawl<\/ShortName>/);
    assert.match(xml, /<Url type="text\/html" method="get" template="http:\/\/127.0.0.1:8080\/\?q=\{searchTerms\}"\/>/);
  });
});

describe('GET /metrics', () => {
  it('gives the Prometheus text format, with searches counted', async () => {
    const before = await text('/metrics');
    const count = (t: string) => Number(/^trawl_searches_total (\d+)$/m.exec(t)![1]);
    await app.request('/api/search?q=welcome');
    await app.request('/?q=welcome');
    await app.request(`/api/search?q=${'w '.repeat(300)}`);
    const after = await text('/metrics');
    assert.equal(count(after), count(before) + 2);
    assert.match(after, /^trawl_search_errors_total [1-9]\d*$/m);
    assert.match(after, /^# TYPE trawl_search_duration_seconds histogram$/m);
    assert.match(after, /^trawl_search_duration_seconds_bucket\{le="\+Inf"\} \d+$/m);
    assert.match(after, /^trawl_urls\{state="queued"\} 120$/m);
    assert.match(after, /^trawl_crawl_stage_seconds_total\{stage="fetch"\} 0\.88$/m);
    assert.match(after, /^trawl_crawl_outcomes_total\{outcome="failed"\} 2$/m);
    assert.match(after, /^trawl_rejections_total\{reason="robots \\"txt\\""\} 2$/m);
    assert.match(after, /^trawl_index_documents 1$|^trawl_index_documents 38$/m);
    assert.match(after, /^trawl_recrawl_due 7$/m);
    assert.match(after, /^trawl_revisits_total\{result="changed"\} 4$/m);
    // The process metrics operators expect, beside Trawl's own.
    for (const name of ['process_cpu_seconds_total', 'process_resident_memory_bytes', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_seconds'])
      assert.match(after, new RegExp(`^${name}(\\{[^}]*\\})? `, 'm'), name);
    // (GC pauses: a histogram whose samples appear once a collection has run — not always yet.)
    assert.match(after, /^# TYPE nodejs_gc_duration_seconds histogram$/m);
    // Every sample line is a name, optional labels and a number.
    // (prom-client writes NaN as "Nan", which Prometheus reads: its parser takes NaN in any case.)
    for (const l of after.split('\n').filter((x) => x && !x.startsWith('#')))
      assert.match(l, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? (-?[\d.e+-]+|NaN|Nan|[+-]Inf)$/, l);
  });
});

describe('GET /api/openapi.json', () => {
  it('describes every endpoint of the JSON API', async () => {
    const doc = (await (await app.request('/api/openapi.json')).json()) as { openapi: string; paths: Record<string, unknown> };
    assert.equal(doc.openapi, '3.1.0');
    for (const p of [
      '/api/search',
      '/api/status',
      '/api/document',
      '/api/seeds',
      '/api/pause',
      '/api/resume',
      '/api/recrawl',
      '/api/documents',
      '/metrics',
      '/healthz',
      '/opensearch.xml',
    ])
      assert.ok(p in doc.paths, p);
  });
});
