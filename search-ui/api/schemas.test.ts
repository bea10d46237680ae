import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ApplianceStatus } from '../../model/index.ts';
import { SearchIndex } from '../../indexer/index.ts';
import { createApp } from '../app.ts';
import { serverDefaults } from '../server-fixture.ts';
import { statusLine } from '../status-line.ts';
import { ExplanationSchema } from './schemas.ts';
import { StatusSchema } from './status-schema.ts';

/** A status with every field the model has, optional ones included. */
export const FULL_STATUS: ApplianceStatus = {
  crawl: {
    running: true,
    paused: false,
    fetched: 40,
    indexed: 38,
    queued: 120,
    inFlight: 3,
    failed: 2,
    retrying: 1,
    dead: 1,
    excluded: 7,
    redirected: 1,
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
        suspendedUntil: '2027-01-15T08:00:00.000Z',
        suspensions: 1,
        lastError: 'timeout',
      },
    ],
    rejections: [{ reason: 'out of scope', count: 31 }],
    linksCut: { pages: 1, links: 9 },
    brokenLinks: { count: 1, shown: [{ url: 'http://docs.e.org/gone', status: 404, foundOn: 'http://docs.e.org/', links: 2 }] },
    fetchFailures: {
      count: 1,
      shown: [{ url: 'http://docs.e.org/slow', state: 'failed', error: 'timeout', reason: 'no answer in 30 s', httpStatus: null, attempts: 1 }],
    },
  },
  seeds: [{ url: 'http://docs.e.org/', state: 'indexed', fetched: true, error: null, reason: null }],
  recrawl: { continuous: true, due: 7, nextDueAt: '2026-11-22T11:00:00.000Z', revisited: 31, changed: 4, unchanged: 26, removed: 1 },
  focus: { classifier: 'topic coins', cutoff: 10, relevant: 12, notRelevant: 30 },
  auth: [
    {
      scope: 'HOST:^wiki$',
      kind: 'form',
      logins: 2,
      loginFailures: 0,
      renewals: 1,
      refused: 0,
      lastProblem: null,
      requests: 40,
      loginRedirectsOutside: 0,
      hostsOutside: [],
    },
  ],
  history: [
    { at: '2026-11-22T10:00:00.000Z', pagesPerSecond: 0, pages: 0, failures: 0 },
    { at: '2026-11-22T10:00:01.000Z', pagesPerSecond: 12.5, pages: 12, failures: 1 },
  ],
  render: {
    mode: 'auto',
    rendered: 5,
    failed: 1,
    waiting: 2,
    rendering: 1,
    meanMs: 420,
    browserRssBytes: 250_000_000,
    restarts: 0,
    unavailable: null,
    wouldRender: 0,
    renderingHosts: ['app.e.org'],
  },
  shards: [
    { url: 'http://10.0.0.5:8081/', shard: '1/2', up: true, documents: 20, checkedAt: '2026-11-22T10:00:01.000Z', ms: 2, error: null },
    {
      url: 'http://10.0.0.6:8082/',
      shard: null,
      up: false,
      documents: 0,
      checkedAt: '2026-11-22T10:00:01.000Z',
      ms: 2000,
      error: 'no answer within 2000 ms (cluster.shardTimeoutMs)',
    },
  ],
  index: {
    documents: 38,
    terms: 1234,
    lastFlushAt: '2026-11-22T10:00:00.000Z',
    lastFlushMs: 12,
    lastFlushBytes: 2_500_000,
    byType: [
      { type: 'html', count: 30 },
      { type: 'pdf', count: 8 },
    ],
  },
  recent: [{ url: 'http://docs.e.org/a', status: 200, ms: 35, bytes: 1200, outcome: 'indexed', held: true, change: 'changed' }],
};

const app = createApp({
  ...serverDefaults(),
  searcher: new SearchIndex(() => undefined),
  status: async () => FULL_STATUS,
  version: '9.9.9',
  processMetrics: false,
});

describe('the API schemas', () => {
  it('describe /api/status fully: every field of a full status, and nothing else', async () => {
    const body = await (await app.request('/api/status')).json();
    assert.deepEqual(StatusSchema.parse(body), body);
    assert.equal(
      StatusSchema.safeParse({ ...FULL_STATUS, summary: statusLine(FULL_STATUS), extra: 1 }).success,
      false,
      'a field the schema does not describe is refused',
    );
    const crawl = { ...FULL_STATUS.crawl, undescribed: true };
    assert.equal(StatusSchema.safeParse({ ...FULL_STATUS, crawl, summary: '' }).success, false, '… at any depth');
    const { seeds: _, ...noSeeds } = FULL_STATUS;
    assert.equal(StatusSchema.safeParse({ ...noSeeds, summary: '' }).success, true, 'optional fields may be left out');
  });

  it('describe a URL record', () => {
    const record = {
      known: true,
      url: 'http://e.org/',
      state: 'indexed',
      indexed: true,
      reason: null,
      error: null,
      httpStatus: 200,
      attempts: 1,
      depth: 0,
      discoveredAt: '2026-11-22T09:00:00.000Z',
      fetchedAt: null,
      nextAttemptAt: null,
      revisitAt: null,
      changedAt: null,
      contentType: 'text/html',
      lang: 'en',
      topicScore: null,
      relevant: null,
      classes: [],
      linksCut: 3,
    };
    assert.deepEqual(ExplanationSchema.parse(record), record);
    assert.equal(ExplanationSchema.safeParse({ ...record, known: false }).success, false);
  });

  it('generate the OpenAPI document: parameters with their bounds, answers with their schemas', async () => {
    type Doc = {
      openapi: string;
      info: { version: string };
      paths: Record<
        string,
        Record<string, { parameters?: { name: string; schema: Record<string, unknown> }[]; security?: unknown[]; responses: Record<string, unknown> }>
      >;
      components: { schemas: Record<string, { properties?: Record<string, unknown> }>; securitySchemes: Record<string, unknown> };
    };
    const doc = (await (await app.request('/api/openapi.json')).json()) as Doc;
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '9.9.9');
    const page = doc.paths['/api/search']!.get!.parameters!.find((p) => p.name === 'page')!;
    assert.deepEqual([page.schema.type, page.schema.minimum, page.schema.maximum, page.schema.default], ['integer', 1, 1000, 1]);
    assert.deepEqual(
      Object.keys(doc.components.schemas.Status!.properties!).sort(),
      ['auth', 'crawl', 'focus', 'history', 'index', 'recent', 'recrawl', 'render', 'seeds', 'shards', 'summary', 'workers'].sort(),
    );
    for (const [path, method] of [
      ['/api/seeds', 'post'],
      ['/api/pause', 'post'],
      ['/api/resume', 'post'],
      ['/api/recrawl', 'post'],
      ['/api/documents', 'delete'],
    ] as const) {
      assert.deepEqual(doc.paths[path]![method]!.security, [{ bearer: [] }], path);
      assert.ok(doc.paths[path]![method]!.responses['401'], path);
    }
    assert.ok(doc.components.securitySchemes.bearer);
    for (const p of ['/api/events', '/metrics', '/healthz', '/opensearch.xml', '/api/document', '/widget.js', '/static/{file}'])
      assert.ok(doc.paths[p]?.get, p);
    for (const p of ['/api/search', '/api/status', '/api/document']) assert.ok(doc.paths[p]!.get!.responses['304'], `${p}: 304 on If-None-Match`);
  });

  it('validate what comes in, with the messages and codes the API promises', async () => {
    const answer = async (path: string) => {
      const res = await app.request(path);
      return { status: res.status, ...((await res.json()) as { error: string; code: string }) };
    };
    assert.deepEqual(await answer('/api/search?q=x&page=abc'), {
      status: 400,
      error: 'parameter page must be a whole number from 1 to 1000',
      code: 'bad-parameter',
    });
    assert.deepEqual(await answer('/api/search?q=x&size=0'), {
      status: 400,
      error: 'parameter size must be a whole number from 1 to 100',
      code: 'bad-parameter',
    });
    assert.deepEqual(await answer('/api/search?q=x&page=2&page=3'), {
      status: 400,
      error: 'parameter page must be a whole number from 1 to 1000',
      code: 'bad-parameter',
    });
    assert.deepEqual(await answer('/api/search?q=%20'), { status: 400, error: 'parameter q is required, e.g. /api/search?q=install', code: 'missing-query' });
    assert.equal((await answer('/api/document')).code, 'bad-parameter');
    assert.match(
      await (await app.request('/?q=x&page=0')).text(),
      /parameter page must be a whole number from 1 to 1000/,
      'the search page checks page with the same schema',
    );
  });
});
