// The outcome policy (outcome.ts) as a table: each row is one situation a fetch can end in, and
// what decideOutcome makes of it — the outcome's kind, its reason or error, when the URL is tried
// or revisited again, and the effects the crawler then writes in one commit. Pure: no store, no
// network, a fixed clock.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { QueuedUrl } from '../model/index.ts';
import type { FetchResponse } from './fetch/fetcher.ts';
import type { Focus, Verdict } from './focus/focus.ts';
import type { Decision, FetchFacts, OutcomeRules } from './decision.ts';
import { decideOutcome } from './outcome.ts';
import type { Extracted, ParsedPage } from './parse/index.ts';
import { urlPolicy } from './settings-fixture.ts';
import { admit } from './urls/index.ts';

const NOW = 1_700_000_000_000;
const HOUR = 3_600_000;
const URL_ = 'http://a.org/docs/page';
const RETRY = { maxAttempts: 3, baseDelayMs: 10_000 };

const policy = urlPolicy(['http://a.org/'], { limits: { maxDepth: 10 } });
/** A focused crawl that follows no link of a page off topic (the decision has the verdict already: the classifier is not asked). */
const focus: Focus = {
  cutoff: 10,
  tunnel: 0,
  sitesOK: [],
  classifier: { name: 'topic test (plain scorer)', classify: () => assert.fail('the policy classifies nothing') },
};
const rules: OutcomeRules = {
  admit: (raw, depth, base) => admit(policy, raw, depth, base),
  maxRedirects: 2,
  followNofollow: false,
  retry: RETRY,
  revisit: { minMs: HOUR, maxMs: 1000 * HOUR },
};

const queued = (extra: Partial<QueuedUrl> = {}): QueuedUrl => ({ id: 7, url: URL_, fetchUrl: URL_, host: 'a.org', depth: 1, hops: 0, attempts: 1, ...extra });
/** A response; its Cache-Control says a page is fresh for two hours (the first revisit interval). */
const response = (status: number, extra: Partial<FetchResponse> = {}): FetchResponse => ({
  kind: 'response',
  status,
  contentType: 'text/html; charset=utf-8',
  headers: { 'cache-control': 'max-age=7200' },
  body: Buffer.from('<title>t</title><p>the page text</p>'),
  truncated: false,
  wireBytes: 40,
  ...extra,
});
const page = (extra: Partial<ParsedPage> = {}): Extracted => ({
  kind: 'page',
  encoding: 'utf-8',
  page: {
    url: URL_,
    title: 'A page',
    description: '',
    headings: [],
    text: 'the page text',
    links: [
      { url: '/docs/next', text: 'next', nofollow: false },
      { url: '/docs/hidden', text: 'hidden', nofollow: true },
    ],
    noindex: false,
    nofollow: false,
    ...extra,
  },
});
const verdict = (relevant: boolean, score: number): Verdict => ({ score, relevant, classes: [], matches: [] });

/** What a row expects; what it leaves out is not checked. */
type Expected = {
  readonly kind: Decision['outcome']['kind'];
  readonly reason?: string | RegExp;
  readonly error?: string;
  /** When a failed URL is tried again. */
  readonly retryAt?: number;
  /** The revisit interval scheduled (ms), or null for none. */
  readonly revisitMs?: number | null;
  readonly change?: Decision['change'];
  /** The effects, as booleans and counts. */
  readonly unindex?: boolean;
  readonly document?: boolean;
  readonly touch?: boolean;
  readonly duplicateOf?: number;
  /** Raw links handed to admission, over all batches. */
  readonly links?: number;
  readonly enqueue?: readonly string[];
  readonly rejected?: Readonly<Record<string, number>>;
  readonly sitemap?: boolean;
};

type Row = { readonly situation: string; readonly facts: Partial<FetchFacts>; readonly rules?: Partial<OutcomeRules>; readonly expect: Expected };

const TABLE: readonly Row[] = [
  {
    situation: 'a 200 page seen for the first time: indexed and stored, its followed links admitted, revisited as its headers say',
    facts: { res: response(200), extracted: page() },
    expect: { kind: 'indexed', document: true, links: 1, revisitMs: 2 * HOUR, change: 'new', unindex: false },
  },
  {
    situation: 'a held page with the same text: indexed "unchanged", only touched, revisited later than before',
    facts: { q: queued({ hash: 'same', revisitMs: 4 * HOUR, linksHash: 'other' }), held: true, hash: 'same', res: response(200), extracted: page() },
    expect: { kind: 'indexed', reason: undefined, touch: true, document: false, revisitMs: 8 * HOUR, change: 'unchanged' },
  },
  {
    situation: 'a held page whose text changed: stored again, revisited sooner',
    facts: { q: queued({ hash: 'before', revisitMs: 4 * HOUR }), held: true, res: response(200), extracted: page() },
    expect: { kind: 'indexed', document: true, revisitMs: 2 * HOUR, change: 'changed' },
  },
  {
    situation: 'a 304 to a conditional GET: not modified, only touched',
    facts: { q: queued({ revisitMs: 4 * HOUR }), held: true, conditional: true, res: response(304) },
    expect: { kind: 'not-modified', touch: true, document: false, revisitMs: 8 * HOUR, change: 'unchanged' },
  },
  {
    situation: 'a 404 of a page never held: dead at once, not retried',
    facts: { res: response(404) },
    expect: { kind: 'dead', error: 'http-4xx', reason: 'HTTP 404', revisitMs: null, unindex: false },
  },
  {
    situation: 'a 404 of a held page, the first time: failed, to be confirmed before it leaves the index',
    facts: { held: true, res: response(404) },
    expect: { kind: 'failed', error: 'http-4xx', reason: /to be confirmed/, retryAt: NOW + RETRY.baseDelayMs, unindex: false, revisitMs: null },
  },
  {
    situation: 'a 410 of a held page, confirmed: dead, and the page leaves the index',
    facts: { q: queued({ attempts: 2 }), held: true, res: response(410) },
    expect: { kind: 'dead', error: 'http-4xx', reason: 'HTTP 410 2 times: gone from the site, removed from the index', unindex: true, change: 'gone' },
  },
  {
    situation: 'a 429 with Retry-After: failed, tried again no sooner than the server asked',
    facts: { res: response(429, { retryAfterMs: 120_000 }) },
    expect: { kind: 'failed', error: 'http-429', reason: 'HTTP 429', retryAt: NOW + 120_000 },
  },
  {
    situation: 'a 503 with attempts left: failed, retried after the back-off (doubled at the second attempt)',
    facts: { q: queued({ attempts: 2 }), res: response(503) },
    expect: { kind: 'failed', error: 'http-5xx', reason: 'HTTP 503', retryAt: NOW + 2 * RETRY.baseDelayMs },
  },
  {
    situation: 'a 500 at the last attempt: dead, saying it gave up',
    facts: { q: queued({ attempts: 3 }), res: response(500) },
    expect: { kind: 'dead', error: 'http-5xx', reason: 'HTTP 500 (gave up after 3 attempts)' },
  },
  {
    situation: 'a fetch error (a timeout): failed, retried, its message as the reason',
    facts: { res: { kind: 'error', code: 'timeout', message: 'headers timeout' } },
    expect: { kind: 'failed', error: 'timeout', reason: 'timeout: headers timeout', retryAt: NOW + RETRY.baseDelayMs },
  },
  {
    situation: 'a fetch error with a very long message: the reason is cut to what a record keeps',
    facts: { res: { kind: 'error', code: 'tls', message: 'x'.repeat(2000) } },
    expect: { kind: 'dead', error: 'tls', reason: `tls: ${'x'.repeat(495)}` },
  },
  {
    situation: 'a redirect within maxRedirects: redirected, the target queued as the next hop, a held copy removed',
    facts: { q: queued({ hops: 1 }), held: true, res: response(301, { location: '/docs/moved' }) },
    expect: { kind: 'redirected', reason: undefined, unindex: true, enqueue: ['http://a.org/docs/moved'], change: 'gone' },
  },
  {
    situation: 'a redirect beyond maxRedirects: dead, too many redirects',
    facts: { q: queued({ hops: 2 }), res: response(302, { location: '/docs/again' }) },
    expect: { kind: 'dead', error: 'too-many-redirects', reason: 'more than 2 redirects', enqueue: [] },
  },
  {
    situation: 'a redirect out of scope: redirected, not followed, the rejection counted',
    facts: { res: response(302, { location: 'http://elsewhere.org/' }) },
    expect: { kind: 'redirected', enqueue: [], rejected: { 'out-of-scope': 1 } },
  },
  {
    situation: 'a meta refresh: followed like a redirect, the stub not indexed',
    facts: { res: response(200), extracted: page({ refresh: 'http://a.org/docs/real' }) },
    expect: { kind: 'redirected', unindex: true, document: false, enqueue: ['http://a.org/docs/real'] },
  },
  {
    situation: 'a noindex page: excluded, left out of the index, its links still followed',
    facts: { res: response(200), extracted: page({ noindex: true }) },
    expect: { kind: 'excluded', reason: 'noindex', unindex: true, document: false, links: 1 },
  },
  {
    situation: 'X-Robots-Tag: noindex, nofollow: excluded, no link followed',
    facts: { res: response(200, { headers: { 'x-robots-tag': 'noindex, nofollow' } }), extracted: page() },
    expect: { kind: 'excluded', reason: 'noindex (X-Robots-Tag)', links: 0 },
  },
  {
    situation: 'a nofollow page: indexed, none of its links followed',
    facts: { res: response(200), extracted: page({ nofollow: true }) },
    expect: { kind: 'indexed', document: true, links: 0 },
  },
  {
    situation: 'rel=nofollow links followed when followNofollow is set',
    facts: { res: response(200), extracted: page() },
    rules: { followNofollow: true },
    expect: { kind: 'indexed', links: 2 },
  },
  {
    situation: 'a canonical link to another page in scope: excluded, the canonical page queued instead',
    facts: { res: response(200), extracted: page({ canonical: 'http://a.org/docs/canonical' }) },
    expect: { kind: 'excluded', reason: 'canonical is http://a.org/docs/canonical', unindex: true, links: 2 },
  },
  {
    situation: 'duplicate content (the content-seen test found another URL with it): excluded as its duplicate',
    facts: { res: response(200), extracted: page(), sameContent: { id: 3, url: 'http://a.org/docs/original' } },
    expect: { kind: 'excluded', reason: 'duplicate of http://a.org/docs/original', duplicateOf: 3, unindex: true, document: false },
  },
  {
    situation: 'the same content found under its own URL: not a duplicate of itself',
    facts: { res: response(200), extracted: page(), sameContent: { id: 7, url: URL_ } },
    expect: { kind: 'indexed', document: true },
  },
  {
    situation: 'the login page of an auth scope: excluded, never indexed',
    facts: { res: response(200), extracted: page(), loginPage: true },
    expect: { kind: 'excluded', reason: 'the login page of an auth scope (never indexed)', unindex: true, document: false },
  },
  {
    situation: 'credentials refused: failed, auth-failed (retried: a session may come back)',
    facts: { res: response(401, { authFailure: 'the server refused the credentials of scope wiki' }) },
    expect: { kind: 'failed', error: 'auth-failed', reason: 'the server refused the credentials of scope wiki', retryAt: NOW + RETRY.baseDelayMs },
  },
  {
    situation: "a focused crawl's page below the cutoff: excluded off topic, its links not followed past the tunnel",
    facts: { res: response(200), extracted: page(), verdict: verdict(false, 4) },
    rules: { focus },
    expect: { kind: 'excluded', reason: 'off topic: score 4 below the cutoff 10', links: 0, document: false },
  },
  {
    situation: "a focused crawl's relevant page: indexed with its topic",
    facts: { res: response(200), extracted: page(), verdict: verdict(true, 25) },
    rules: { focus },
    expect: { kind: 'indexed', document: true, links: 1 },
  },
  {
    situation: 'a failure on a host given up in this run: dead with the host\u2019s cause, not retried',
    facts: { res: response(503), deadHost: { error: 'host-suspended', reason: 'suspended 3 times; last error: http-5xx' } },
    expect: { kind: 'dead', error: 'host-suspended', reason: 'suspended 3 times; last error: http-5xx' },
  },
  {
    situation: 'a truncated body: the page is indexed as far as it was read, the cut recorded',
    facts: { res: response(200, { truncated: true }), extracted: page() },
    expect: { kind: 'indexed', document: true },
  },
  {
    situation: 'a damaged document: dead, unparsable, a held copy removed',
    facts: { held: true, res: response(200), extracted: { kind: 'refused', reason: 'damaged', detail: 'bad xref table', format: 'pdf' } },
    expect: { kind: 'dead', error: 'unparsable', reason: 'damaged: bad xref table', unindex: true },
  },
  {
    situation: 'an encrypted document: excluded with the refusal',
    facts: { res: response(200), extracted: { kind: 'refused', reason: 'encrypted', detail: 'a password is needed', format: 'pdf' } },
    expect: { kind: 'excluded', reason: 'encrypted: a password is needed', unindex: true },
  },
  {
    situation: 'a content type Trawl does not read: excluded, saying which',
    facts: { res: response(200, { contentType: 'image/png' }), extracted: { kind: 'unsupported', type: 'image/png' } },
    expect: { kind: 'excluded', reason: 'unsupported content type image/png', document: false },
  },
  {
    situation: 'a sitemap: fetched, its pages and sitemaps admitted, revisits looked for at once',
    facts: {
      res: response(200, { contentType: 'application/xml' }),
      extracted: { kind: 'sitemap', pages: [{ url: 'http://a.org/docs/a' }, { url: 'http://a.org/docs/b' }], sitemaps: ['http://a.org/more.xml'] },
    },
    expect: { kind: 'fetched', reason: undefined, links: 3, sitemap: true, revisitMs: 2 * HOUR },
  },
  {
    situation: 'a page that needed a browser whose rendering failed: failed, render-failed',
    facts: { res: response(200), renderFailed: 'the page did not settle within its time budget' },
    expect: { kind: 'failed', error: 'render-failed', reason: 'the page did not settle within its time budget' },
  },
];

/** The reason, error and retry time an outcome carries, whatever its kind. */
function described(d: Decision): { reason?: string; error?: string; retryAt?: number } {
  const o = d.outcome as { reason?: string; to?: string; error?: string; retryAt?: number };
  return { ...(o.reason !== undefined ? { reason: o.reason } : {}), ...(o.error ? { error: o.error } : {}), ...(o.retryAt ? { retryAt: o.retryAt } : {}) };
}

describe('the outcome policy (decideOutcome), situation by situation', () => {
  for (const row of TABLE) {
    it(row.situation, () => {
      const facts: FetchFacts = { q: queued(), res: response(200), held: false, conditional: false, now: NOW, ...row.facts };
      const d = decideOutcome(facts, { ...rules, ...row.rules });
      const e = row.expect;
      const got = described(d);
      assert.equal(d.outcome.kind, e.kind);
      if ('reason' in e) {
        if (e.reason instanceof RegExp) assert.match(got.reason ?? '', e.reason);
        else assert.equal(got.reason, e.reason);
      }
      if (e.error !== undefined) assert.equal(got.error, e.error);
      if (e.kind === 'failed') assert.equal(got.retryAt, e.retryAt ?? got.retryAt);
      if (e.revisitMs !== undefined) assert.deepEqual(d.revisit, e.revisitMs === null ? null : { at: NOW + e.revisitMs, intervalMs: e.revisitMs });
      if (e.change !== undefined) assert.equal(d.change, e.change);
      const fx = d.effects;
      if (e.unindex !== undefined) assert.equal(fx.unindex ?? false, e.unindex, 'unindex');
      if (e.document !== undefined) assert.equal(fx.document !== undefined, e.document, 'document');
      if (e.touch !== undefined) assert.equal(fx.touch ?? false, e.touch, 'touch');
      if (e.duplicateOf !== undefined) assert.equal(fx.duplicateOf, e.duplicateOf);
      if (e.links !== undefined)
        assert.equal(
          fx.links.reduce((n, b) => n + b.links.length, 0),
          e.links,
          'links handed to admission',
        );
      if (e.enqueue !== undefined)
        assert.deepEqual(
          fx.enqueue.map((x) => x.url),
          e.enqueue,
        );
      if (e.rejected !== undefined) assert.deepEqual(Object.fromEntries(fx.rejected), e.rejected);
      if (e.sitemap !== undefined) assert.equal(fx.sitemap ?? false, e.sitemap);
    });
  }

  it('keeps what the fetch learned on the record: type, charset, validators, language, links hash', () => {
    const res = response(200, { headers: { etag: '"v1"', 'last-modified': 'Thu, 01 Jan 2026 00:00:00 GMT', 'content-language': 'de, en' } });
    const d = decideOutcome({ q: queued(), res, held: false, conditional: false, now: NOW, extracted: page() }, rules);
    assert.equal(d.outcome.kind, 'indexed');
    const meta = d.outcome.kind === 'indexed' ? d.outcome.meta! : undefined;
    assert.deepEqual(
      [meta?.contentType, meta?.charset, meta?.etag, meta?.lastModified, meta?.lang, typeof meta?.linksHash, meta?.linksCut],
      ['text/html', 'utf-8', '"v1"', 'Thu, 01 Jan 2026 00:00:00 GMT', 'de', 'string', 0],
    );
    assert.deepEqual(
      [d.effects.document?.lang, d.effects.document?.url, d.effects.document?.fetchedAt, d.effects.document?.truncated],
      ['de', URL_, NOW, false],
    );
  });

  it('does not follow again the links of a held page fetched again with the same links', () => {
    const first = decideOutcome({ q: queued(), res: response(200), held: false, conditional: false, now: NOW, extracted: page() }, rules);
    const linksHash = first.outcome.kind === 'indexed' ? first.outcome.meta?.linksHash : undefined;
    const again = decideOutcome(
      { q: queued({ hash: 'old', linksHash }), res: response(200), held: true, conditional: false, now: NOW, extracted: page() },
      rules,
    );
    assert.deepEqual([again.outcome.kind, again.effects.links.length], ['indexed', 0]);
  });
});
