import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplianceStatus } from '../model/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import type { StoredDocument } from '../model/index.ts';
import type { z } from '@hono/zod-openapi';
import { SearchResponseSchema } from './api/schemas.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';

const docs = new Map<number, StoredDocument>();
const index = new SearchIndex((id) => docs.get(id));
const put = (id: number, url: string, title: string, text: string, lang?: string) => {
  const d: StoredDocument = {
    id,
    url,
    title,
    description: '',
    headings: [],
    text,
    contentType: 'text/html',
    bytes: 1,
    truncated: false,
    httpStatus: 200,
    fetchedAt: Date.UTC(2026, 0, 2),
    hash: '',
    ...(lang ? { lang } : {}),
  };
  docs.set(id, d);
  index.upsert(d);
};
put(1, 'http://e.org/xss', '<script>alert(1)</script>', 'xsstest body with <img src=x onerror=alert(2)> inside');
put(2, 'javascript:alert(3)', 'Evil link', 'evillink text');
for (let i = 10; i < 35; i++) put(i, `http://e.org/p${i}`, `Paged ${i}`, `pagedword number ${i}`);
put(40, 'http://e.org/en', 'In English', 'linguaword', 'en-US');
put(41, 'http://e.org/de', 'Auf Deutsch', 'linguaword', 'de');
put(42, 'http://e.org/de2', 'Auch Deutsch', 'linguaword', 'de-AT');
// A focused crawl's pages: two filed under coins (one also under history), one under nothing.
const topical = (id: number, classes: string[]) => {
  const d: StoredDocument = { ...docs.get(id)!, topic: { score: 30, classes: classes.map((name, i) => ({ name, score: 20 - i })) } };
  docs.set(id, d);
  index.upsert(d);
};
put(50, 'http://e.org/c1', 'Denarius', 'topicword silver');
put(51, 'http://e.org/c2', 'Sestertius', 'topicword bronze');
put(52, 'http://e.org/c3', 'Elsewhere', 'topicword');
topical(50, ['coins', 'history']);
topical(51, ['coins']);

let running = true;
const statusNow = (): ApplianceStatus => ({
  crawl: {
    running,
    fetched: 12,
    indexed: 11,
    queued: 30,
    inFlight: 2,
    failed: 1,
    retrying: 0,
    dead: 1,
    excluded: 0,
    redirected: 0,
    pagesPerSecond: 4.5,
    stats: null,
    hosts: [],
    paused: false,
    rejections: [],
  },
  recrawl: { continuous: false, due: 0, nextDueAt: null, revisited: 0, changed: 0, unchanged: 0, removed: 0 },
  focus: null,
  index: { documents: index.documentCount, lastFlushAt: null, lastFlushMs: null, terms: 0, lastFlushBytes: null },
  recent: [],
});
const app = createApp({ ...serverDefaults(), searcher: index, status: async () => statusNow(), version: '0.0.0-test' });
const get = (path: string) => app.request(path);

describe('GET / with a query', () => {
  it('lists languages as facets when there is a choice, each narrowing the query with lang:', async () => {
    const page = await (await get('/?q=linguaword')).text();
    assert.match(page, /<nav class="facets" aria-label="Filter by language"><h2>Languages<\/h2>/);
    assert.match(page, /<a href="\/\?q=linguaword%20lang%3Ade">de<\/a> <span class="count">2<\/span>/);
    assert.match(page, /<a href="\/\?q=linguaword%20lang%3Aen">en<\/a> <span class="count">1<\/span>/);
    assert.doesNotMatch(page, /Filter by site/, 'one site: no choice to offer');
    const narrowed = (await (await get('/api/search?q=linguaword+lang:de')).json()) as { total: number; facets: { lang: unknown } };
    assert.equal(narrowed.total, 2);
    assert.deepEqual(narrowed.facets.lang, [{ value: 'de', count: 2 }]);
  });

  it("lists the topics of a focused crawl as facets, names each hit's topics, and narrows with topic:", async () => {
    const page = await (await get('/?q=topicword')).text();
    assert.match(page, /<nav class="facets" aria-label="Filter by topic"><h2>Topics<\/h2>/);
    assert.match(page, /<a href="\/\?q=topicword%20topic%3Acoins">coins<\/a> <span class="count">2<\/span>/);
    assert.match(page, /<a href="\/\?q=topicword%20topic%3Ahistory">history<\/a> <span class="count">1<\/span>/);
    // The hit's line, a topic a part: one pattern.
    const topics = [
      /<span class="result-topics">topics: /,
      /<a href="\/\?q=topicword%20topic%3Acoins">coins<\/a>, /,
      /<a href="\/\?q=topicword%20topic%3Ahistory">history<\/a><\/span>/,
    ];
    assert.match(page, new RegExp(topics.map((r) => r.source).join('')));
    const narrowed = (await (await get('/api/search?q=topicword+topic:history')).json()) as {
      total: number;
      hits: { url: string; topics?: string[] }[];
      facets: { topic: unknown };
    };
    assert.deepEqual(
      narrowed.hits.map((h) => [h.url, h.topics]),
      [['http://e.org/c1', ['coins', 'history']]],
    );
    assert.deepEqual(narrowed.facets.topic, [
      { value: 'coins', count: 1 },
      { value: 'history', count: 1 },
    ]);
    assert.doesNotMatch(await (await get('/?q=topicword+topic:history')).text(), /Filter by topic/, 'every result has both: no choice left');
    assert.doesNotMatch(await (await get('/?q=linguaword')).text(), /Filter by topic/, 'no topics: no facet');
  });

  it('links the corrected query when a word is unknown', async () => {
    // (exact=1: by default the search corrects the word itself; search-ui/forgiving.test.ts.)
    const page = await (await get('/?q=pagedwrd&exact=1')).text();
    assert.match(page, /Did you mean <a href="\/\?q=pagedword">pagedword<\/a>\?/);
  });
});

describe('GET /api/search', () => {
  it('answers {query, total, tookMs, hits: [{url, title, snippet, score}]}', async () => {
    const res = await get('/api/search?q=pagedword&size=5&page=2');
    assert.equal(res.status, 200);
    const body = (await res.json()) as { query: string; total: number; tookMs: number; hits: { url: string; title: string; snippet: string; score: number }[] };
    assert.equal(body.query, 'pagedword');
    assert.equal(body.total, 25);
    assert.equal(typeof body.tookMs, 'number');
    assert.equal(body.hits.length, 5);
    for (const h of body.hits) {
      assert.match(h.url, /^http:\/\/e\.org\/p\d+$/);
      assert.match(h.snippet, /<mark>pagedword<\/mark>/);
      assert.ok(h.score > 0);
    }
  });

  it('gives facets by host and a "did you mean" for an unknown word', async () => {
    const body = (await (await get('/api/search?q=pagedwrd&exact=1')).json()) as {
      total: number;
      suggestion?: string;
      facets: { host: { value: string; count: number }[] };
    };
    assert.equal(body.total, 0);
    assert.equal(body.suggestion, 'pagedword');
    const hits = (await (await get('/api/search?q=pagedword')).json()) as { facets: { host: { value: string; count: number }[] } };
    assert.deepEqual(hits.facets.host, [{ value: 'e.org', count: 25 }]);
  });

  it('takes each hit\u2019s score apart with explain=1, in the schema, and not without it', async () => {
    const res = await get('/api/search?q=pagedword+number&size=3&explain=1');
    assert.equal(res.status, 200);
    const body = (await res.json()) as z.input<typeof SearchResponseSchema>;
    assert.deepEqual(SearchResponseSchema.strict().parse(body), body);
    assert.equal(body.hits.length, 3);
    for (const h of body.hits) {
      const e = h.explain!;
      assert.deepEqual(
        e.words.map((w) => [w.word, w.term, w.own]),
        [
          ['pagedword', 'pagedword', true],
          ['number', 'number', true],
        ],
      );
      assert.deepEqual(e.missing, []);
      assert.ok(Math.abs(e.score - h.score) < 0.001, `${e.score} vs ${h.score}`);
      assert.deepEqual(Object.keys(e.words[0]!.fields), ['body']);
    }
    const plain = (await (await get('/api/search?q=pagedword+number&size=3')).json()) as z.input<typeof SearchResponseSchema>;
    for (const h of plain.hits) assert.equal(h.explain, undefined);
    // (Not the same answer: not the same ETag, or a client holding one would get a 304 for the other.)
    assert.notEqual(res.headers.get('etag'), (await get('/api/search?q=pagedword+number&size=3')).headers.get('etag'));
    assert.equal((await get('/api/search?q=pagedword&explain=2')).status, 400);
  });

  it('refuses invalid parameters with 400 and {error, code}', async () => {
    for (const path of [
      '/api/search',
      '/api/search?q=',
      '/api/search?q=x&page=0',
      '/api/search?q=x&page=abc',
      '/api/search?q=x&size=101',
      `/api/search?q=${'a'.repeat(600)}`,
      `/api/search?q=${Array.from({ length: 60 }, (_, i) => `t${i}`).join('+')}`,
    ]) {
      const res = await get(path);
      assert.equal(res.status, 400, path);
      const body = (await res.json()) as { error: string; code: string };
      assert.ok(body.error.length > 5 && body.code, path);
    }
  });

  it('treats binary garbage and unbalanced quotes as a query, not a crash', async () => {
    for (const q of ['%00%01%02', '%22unbalanced', '%ED%A0%80', '((((', '-']) {
      const res = await get(`/api/search?q=${q}`);
      assert.equal(res.status, 200, q);
    }
  });
});

describe('GET / (the search page)', () => {
  it('renders results with the title linked, the URL, a highlighted snippet and the total', async () => {
    const res = await get('/?q=pagedword');
    assert.equal(res.status, 200);
    const html = await res.text();
    assert.match(html, /25 results/);
    assert.match(html, /<a class="result-title" href="http:\/\/e\.org\/p\d+">Paged \d+<\/a>/);
    assert.match(html, /<mark>pagedword<\/mark>/);
    assert.match(html, /Page 1 of 3/);
    assert.match(html, /href="\/\?q=pagedword&amp;page=2" rel="next"/);
    assert.match(html, /<input id="q" name="q" type="search" value="pagedword"/);
  });

  it('shows crawled text as text: a script title is escaped, never executed', async () => {
    const html = await (await get('/?q=xsstest')).text();
    assert.ok(!html.includes('<script>alert(1)</script>'));
    assert.match(html, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.ok(!html.includes('<img src=x'));
  });

  it('never makes a javascript: URL a live link', async () => {
    const html = await (await get('/?q=evillink')).text();
    assert.ok(!/href="javascript:/i.test(html));
    assert.match(html, /<span class="result-title">Evil link<\/span>/);
  });

  it('escapes the query echoed back', async () => {
    const html = await (await get('/?q=%22%3E%3Cscript%3Ex%3C%2Fscript%3E')).text();
    assert.ok(!html.includes('"><script>x</script>'));
  });

  it('shows the crawl status line', async () => {
    running = true;
    assert.match(await (await get('/')).text(), /Crawling: 12 pages fetched, 30 queued, 1 failed · 4.5 pages\/s/);
    running = false;
    assert.match(await (await get('/')).text(), /Crawl idle · 12 pages fetched/);
  });

  it('helps when nothing is found', async () => {
    const html = await (await get('/?q=zzzunknownzzz')).text();
    assert.match(html, /No results for “zzzunknownzzz”/);
  });

  it('answers a bad query with a 400 page, not a 500', async () => {
    const res = await get(`/?q=${'word '.repeat(200)}`);
    assert.equal(res.status, 400);
    assert.match(await res.text(), /could not be run/);
  });

  it('sends a Content-Security-Policy and the usual security headers', async () => {
    const res = await get('/');
    assert.match(res.headers.get('content-security-policy') ?? '', /default-src 'self'.*script-src 'self'/);
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('x-frame-options'), 'SAMEORIGIN');
  });
});

describe('other endpoints', () => {
  it('GET /api/status gives crawl and index counters and a summary line', async () => {
    const s = (await (await get('/api/status')).json()) as { crawl: Record<string, unknown>; index: Record<string, unknown>; summary: string };
    for (const k of ['running', 'fetched', 'queued', 'failed', 'pagesPerSecond']) assert.ok(k in s.crawl, k);
    for (const k of ['documents', 'lastFlushAt']) assert.ok(k in s.index, k);
    assert.equal(typeof s.summary, 'string');
  });

  it('GET /healthz', async () => {
    assert.deepEqual(await (await get('/healthz')).json(), { ok: true, documents: index.documentCount });
  });

  it('serves its static files and 404s the rest (JSON under /api)', async () => {
    assert.match((await get('/static/app.js')).headers.get('content-type') ?? '', /javascript/);
    assert.equal((await get('/static/nope.js')).status, 404);
    const api = await get('/api/nope');
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), { error: 'no such endpoint', code: 'not-found' });
  });
});

describe('documents in results', () => {
  const store = new Map<number, StoredDocument>();
  const idx = new SearchIndex((id) => store.get(id));
  const text = 'Page one words.\nPage two holds the flywheel governor.\nPage three ends.';
  const doc: StoredDocument = {
    id: 1,
    url: 'http://e.org/engines.pdf',
    title: 'Steam Engines',
    description: '',
    headings: [],
    text,
    contentType: 'application/pdf',
    bytes: 1,
    truncated: false,
    httpStatus: 200,
    fetchedAt: Date.UTC(2026, 0, 2),
    hash: '',
    document: { format: 'pdf', pages: 3, pageOffsets: [0, 16, 54] },
  };
  const slides: StoredDocument = {
    ...doc,
    id: 2,
    url: 'http://e.org/deck.pptx',
    title: 'Deck',
    text: 'Slide one.\nSlide two: the flywheel again.',
    contentType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
    document: { format: 'pptx', pages: 2, pageOffsets: [0, 11] },
  };
  for (const d of [doc, slides]) {
    store.set(d.id, d);
    idx.upsert(d);
  }
  const docsApp = createApp({ ...serverDefaults(), searcher: idx, status: async () => statusNow(), version: 't', processMetrics: false });

  it('gives each hit its type, pages and the page of its snippet, in JSON', async () => {
    const body = (await (await docsApp.request('/api/search?q=governor')).json()) as { hits: { type?: string; pages?: number; page?: number }[] };
    assert.deepEqual(
      body.hits.map((h) => [h.type, h.pages, h.page]),
      [['pdf', 3, 2]],
    );
  });

  it('shows a badge and "PDF · 3 pages · p. 2", and links a PDF at its page', async () => {
    const html = await (await docsApp.request('/?q=governor')).text();
    assert.match(
      html,
      /<span class="badge" data-type="pdf">PDF<\/span> <a class="result-title" href="http:\/\/e\.org\/engines\.pdf#page=2">Steam Engines<\/a>/,
    );
    assert.match(html, /<span class="result-doc">PDF · 3 pages · p\. 2<\/span>/);
    const both = await (await docsApp.request('/?q=flywheel')).text();
    assert.match(both, /<span class="result-doc">PowerPoint · 2 slides · slide 2<\/span>/);
    assert.match(both, /href="http:\/\/e\.org\/deck\.pptx">Deck</, 'only a PDF gets #page=');
  });
});
