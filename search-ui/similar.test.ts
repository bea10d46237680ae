// Near-duplicates in the search UI and the API ("3 similar pages", opened without JavaScript), and
// the dashboard's counts of near-duplicates and learned templates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SearchIndex } from '../indexer/index.ts';
import { simhash } from '../lib/simhash.ts';
import type { ApplianceStatus, StoredDocument } from '../model/index.ts';
import { SearchResponseSchema } from './api/schemas.ts';
import { StatusSchema } from './api/status-schema.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';
import { liveStatus } from './status-page.ts';
import { statusLine } from './status-line.ts';

const WORDS = (
  'standby primary streaming slot lag archive segment timeline promote failover replica cascade sync async quorum wal sender receiver ' +
  'apply conflict hot feedback delay recovery target'
).split(' ');
/** Thirty sentences of the replication guide, each its own mix of words. */
const TEXT = Array.from(
  { length: 30 },
  (_, i) => `The replication guide on ${Array.from({ length: 8 }, (_, k) => WORDS[(i * 7 + k * k * 3 + k) % WORDS.length]).join(' ')}.`,
).join('\n');
const docs = new Map<number, StoredDocument>();
const index = new SearchIndex((id) => docs.get(id));
const put = (id: number, url: string, title: string, text: string) => {
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
    hash: String(id),
    simhash: simhash(text)!,
  };
  docs.set(id, d);
  index.upsert(d);
};
put(1, 'https://docs.example.org/15/replication.html', 'Replication <15>', `Version 15.\n${TEXT}`);
put(2, 'https://mirror.example.net/15/replication.html', 'Replication (mirror)', `Version 15.\n${TEXT}`);
put(3, 'https://docs.example.org/16/replication.html', 'Replication <16>', `Version 16.\n${TEXT}`);
put(4, 'javascript:alert(1)', 'Replication print view', `Version 15.\n${TEXT}`);
put(5, 'https://docs.example.org/15/other.html', 'Elsewhere', 'Another page about replication and nothing else it shares with the guide at all, none.');

const status = (): ApplianceStatus => ({
  crawl: {
    running: false,
    fetched: 5,
    indexed: 5,
    queued: 0,
    inFlight: 0,
    failed: 0,
    retrying: 0,
    dead: 0,
    excluded: 0,
    redirected: 0,
    pagesPerSecond: 0,
    stats: null,
    hosts: [],
    paused: false,
    rejections: [],
    templates: { hosts: 2, blocks: 17, pagesCleaned: 41, hostsForgotten: 0 },
  },
  recrawl: { continuous: false, due: 0, nextDueAt: null, revisited: 0, changed: 0, unchanged: 0, removed: 0 },
  focus: null,
  index: {
    documents: 5,
    terms: 40,
    lastFlushAt: null,
    lastFlushMs: null,
    lastFlushBytes: null,
    nearDuplicates: { maxDistance: 3, documents: 4, clusters: 1, countedAt: '2026-01-02T03:04:05.000Z' },
  },
  recent: [],
});
const app = createApp({ ...serverDefaults(), searcher: index, status: async () => status(), version: '0.0.0-test' });

describe('similar pages', () => {
  it('shows a result\u2019s near-duplicates in a <details> under it, escaped, links only to http(s)', async () => {
    const page = await (await app.request('/?q=replication')).text();
    assert.equal(page.match(/<li[^>]*>\s*<h2 class="result-h">/g)?.length, 2, 'two results: the guide and the other page');
    assert.match(page, /<details class="similar"><summary>3 similar pages<\/summary><ul>/);
    assert.match(page, /<a href="https:\/\/mirror\.example\.net\/15\/replication\.html">Replication \(mirror\)<\/a>/);
    assert.match(page, /Replication &lt;16&gt;/);
    assert.doesNotMatch(page, /href="javascript:/);
    assert.match(page, /<li>Replication print view <span class="result-url">javascript:alert\(1\)<\/span><\/li>/);
  });

  it('says so in the API: each hit\u2019s similar pages, as its schema describes', async () => {
    const r = (await (await app.request('/api/search?q=replication')).json()) as { hits: { url: string; similar?: { url: string; title: string }[] }[] };
    assert.doesNotThrow(() => SearchResponseSchema.parse(r));
    const guide = r.hits.find((h) => h.similar)!;
    assert.equal(guide.similar!.length, 3);
    assert.deepEqual(new Set([guide.url, ...guide.similar!.map((s) => s.url)]).size, 4);
    assert.equal(r.hits.find((h) => h.url.endsWith('other.html'))!.similar, undefined);
  });
});

describe('the dashboard', () => {
  it('counts near-duplicates and the templates learned, in the page and /api/status', async () => {
    const live = String(await liveStatus(status(), []));
    assert.match(live, /<dd data-figure="near-duplicates"[^>]*>4 <span class="why">in 1 cluster<\/span>/);
    assert.match(live, /<dd data-figure="templates"[^>]*>2 hosts <span class="why">\(17 blocks, 41 pages cleaned\)<\/span>/);
    const s = status();
    assert.deepEqual(StatusSchema.parse({ ...s, summary: statusLine(s) }), { ...s, summary: statusLine(s) });
    const api = (await (await app.request('/api/status')).json()) as ApplianceStatus;
    assert.deepEqual(api.index.nearDuplicates, s.index.nearDuplicates);
    assert.deepEqual(api.crawl.templates, s.crawl.templates);
  });
});
