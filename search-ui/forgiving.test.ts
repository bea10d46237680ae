// Forgiving search through the server: "Including results for …" on the page and in the JSON,
// the exact search it offers, and /api/suggest (with its place in the OpenAPI document).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplianceStatus, StoredDocument } from '../model/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import { createApp } from './app.ts';
import { serverDefaults } from './server-fixture.ts';

const docs = new Map<number, StoredDocument>();
const index = new SearchIndex((id) => docs.get(id));
const put = (id: number, title: string, text: string) => {
  const d: StoredDocument = {
    id,
    url: `http://e.org/${id}`,
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
  };
  docs.set(id, d);
  index.upsert(d);
};
put(1, 'Routine vacuuming', 'Vacuum reclaims storage. Run vacuum regularly.');
put(2, 'Vacuumdb', 'vacuumdb is a wrapper around VACUUM.');
put(3, 'Value expressions', 'Values and <b>expressions</b>.');
for (let i = 10; i < 14; i++) put(i, `Vacuum notes ${i}`, 'vacuum again');
{
  // A page of sections, each heading with its fragment id.
  const d: StoredDocument = { ...docs.get(3)!, id: 20, url: 'http://e.org/errors', title: 'Error index', headings: ['E0382', 'E0499'], text: 'Errors.' };
  docs.set(20, {
    ...d,
    headingIds: [
      ['E0382', 'E0382'],
      ['E0499', 'E0499'],
    ],
  });
  index.upsert(docs.get(20)!);
}

const statusNow = (): ApplianceStatus => ({
  crawl: {
    running: false,
    fetched: 0,
    indexed: 0,
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
  },
  recrawl: { continuous: false, due: 0, nextDueAt: null, revisited: 0, changed: 0, unchanged: 0, removed: 0 },
  focus: null,
  index: { documents: index.documentCount, lastFlushAt: null, lastFlushMs: null, terms: 0, lastFlushBytes: null },
  recent: [],
});
const app = createApp({ ...serverDefaults(), searcher: index, status: async () => statusNow(), version: 't', processMetrics: false, apiRate: 1000 });
const get = (path: string) => app.request(path);

describe('"Including results for …"', () => {
  it('names the corrected words in the JSON, and not when asked for the words as typed (exact=1)', async () => {
    const body = (await (await get('/api/search?q=vacuun+regularly')).json()) as { total: number; corrected?: { from: string; to: string }[] };
    assert.deepEqual(body.corrected, [{ from: 'vacuun', to: 'vacuum' }]);
    assert.equal(body.total, 1);
    const exact = (await (await get('/api/search?q=vacuun+regularly&exact=1')).json()) as { corrected?: unknown; suggestion?: string };
    assert.equal(exact.corrected, undefined);
    assert.equal(exact.suggestion, 'vacuum regularly', '"did you mean" instead');
    assert.equal((await get('/api/search?q=x&exact=maybe')).status, 400);
  });

  it('says so on the page, links the corrected query and offers the exact search', async () => {
    const page = await (await get('/?q=Vacuun+regularly')).text();
    // The corrected query, then the search for the words as typed: one pattern, in parts.
    const corrected = [
      /<p class="corrected" id="corrected">Including results for /,
      /<a href="\/\?q=vacuum%20regularly"><strong>vacuum<\/strong> regularly<\/a>\. /,
      /<a href="\/\?q=Vacuun%20regularly&amp;exact=1" rel="nofollow">Search only for Vacuun regularly<\/a><\/p>/,
    ];
    assert.match(page, new RegExp(corrected.map((r) => r.source).join('')));
    const exact = await (await get('/?q=Vacuun+regularly&exact=1')).text();
    assert.doesNotMatch(exact, /Including results/);
    assert.match(exact, /Did you mean <a href="\/\?q=vacuum%20regularly">vacuum regularly<\/a>/);
  });

  it('escapes what it repeats of the query', async () => {
    const page = await (await get('/?q=%3Cscript%3Evacuun')).text();
    assert.doesNotMatch(page, /<script>vacuun/);
    assert.match(page, /Search only for &lt;script&gt;vacuun|Search only for &#60;script&#62;vacuun/);
  });
});

describe('GET /api/suggest', () => {
  it('completes the last word, the most frequent completion first, spelled as pages spell it', async () => {
    const res = await get('/api/suggest?q=routine+vacu');
    assert.equal(res.status, 200);
    assert.deepEqual(await res.json(), { query: 'routine vacu', suggestions: ['routine vacuum', 'routine vacuumdb'] });
    assert.deepEqual(((await (await get('/api/suggest?q=va&size=1')).json()) as { suggestions: string[] }).suggestions, ['vacuum']);
    assert.deepEqual(
      ((await (await get('/api/suggest?q=vacuum+')).json()) as { suggestions: string[] }).suggestions,
      ['vacuum', 'vacuumdb'],
      'the word itself first: it is the most frequent',
    );
    assert.deepEqual(((await (await get('/api/suggest?q=%22vacu%22')).json()) as { suggestions: string[] }).suggestions, [], 'a quoted word is not completed');
    assert.deepEqual(((await (await get('/api/suggest?q=v')).json()) as { suggestions: string[] }).suggestions, []);
  });

  it('is a 304 when asked again with its ETag, while the index has not changed', async () => {
    const first = await get('/api/suggest?q=vacu');
    const etag = first.headers.get('etag')!;
    assert.ok(etag);
    assert.equal((await app.request('/api/suggest?q=vacu', { headers: { 'if-none-match': etag } })).status, 304);
  });

  it('refuses a missing or overlong q with 400', async () => {
    assert.equal((await get('/api/suggest')).status, 400);
    assert.equal((await get(`/api/suggest?q=${'a'.repeat(501)}`)).status, 400);
  });

  it('is described in /api/openapi.json, with its parameters and answer', async () => {
    const doc = (await (await get('/api/openapi.json')).json()) as {
      paths: Record<
        string,
        { get?: { parameters?: { name: string }[]; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> } }
      >;
      components: { schemas: Record<string, { properties: Record<string, unknown> }> };
    };
    const op = doc.paths['/api/suggest']?.get;
    assert.ok(op, '/api/suggest is in the document');
    assert.deepEqual(op.parameters?.map((p) => p.name).sort(), ['q', 'size']);
    assert.equal(op.responses['200']?.content?.['application/json']?.schema.$ref, '#/components/schemas/Suggestions');
    assert.ok(doc.components.schemas.Suggestions?.properties.suggestions);
    assert.ok(doc.components.schemas.SearchResponse?.properties.corrected, 'the search answer describes corrected');
    assert.ok(doc.paths['/api/search']?.get?.parameters?.some((p) => p.name === 'exact'));
  });
});

describe('a result in a section of its page', () => {
  it('links the section the query found, in the JSON and on the page', async () => {
    const body = (await (await get('/api/search?q=E0499')).json()) as { hits: { url: string; section?: { heading: string; url: string } }[] };
    assert.deepEqual(body.hits[0], { ...body.hits[0], url: 'http://e.org/errors', section: { heading: 'E0499', url: 'http://e.org/errors#E0499' } });
    const page = await (await get('/?q=E0499')).text();
    assert.match(page, /<a class="result-title" href="http:\/\/e\.org\/errors#E0499">Error index<\/a>/);
    assert.match(page, /<div class="result-url">http:\/\/e\.org\/errors › <a class="result-section" href="http:\/\/e\.org\/errors#E0499">E0499<\/a><\/div>/);
    const whole = (await (await get('/api/search?q=error+index')).json()) as { hits: { url: string; section?: unknown }[] };
    assert.equal(whole.hits.find((h) => h.url === 'http://e.org/errors')?.section, undefined, 'the title says it: the page whole');
  });
});

describe('a result missing a word of a long query', () => {
  it('says which word, in the JSON and on the page, and leaves out pages missing more than one of three', async () => {
    type Hits = { hits: { url: string; missing?: string[] }[] };
    const body = (await (await get('/api/search?q=Vacuum+reclaims+Wrapper')).json()) as Hits;
    const byUrl = new Map(body.hits.map((h) => [h.url, h.missing]));
    assert.deepEqual(byUrl.get('http://e.org/1'), ['wrapper'], 'page 1 holds vacuum and reclaims');
    assert.deepEqual(byUrl.get('http://e.org/2'), ['reclaims'], 'page 2 holds vacuum and wrapper');
    assert.ok(!byUrl.has('http://e.org/10'), 'a page holding only vacuum is no result');
    const page = await (await get('/?q=Vacuum+reclaims+Wrapper')).text();
    assert.match(page, /<p class="missing">Missing: <s>wrapper<\/s><\/p>/);
    const all = (await (await get('/api/search?q=vacuum+reclaims+storage')).json()) as Hits;
    assert.equal(all.hits[0]!.missing, undefined, 'a page holding every word misses none');
  });
});
