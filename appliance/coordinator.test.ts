// A coordinator and its shards over real HTTP on loopback (issue 22): shards behind server.auth
// answer a coordinator that carries the admin token (or their login), and count no rate limit
// against the admin token; refused, they are missing from the answer, which says why. The merged
// answer is one index's over all the documents.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { loadConfig } from '../config/index.ts';
import { SearchIndex } from '../indexer/index.ts';
import { ShardNode } from '../indexer/shards/index.ts';
import { storedDocument } from '../indexer/test-document.ts';
import { silentLog } from '../lib/log.ts';
import { Secret } from '../lib/secret.ts';
import { shardOf } from '../lib/shard.ts';
import { MAX_SYNONYMS } from '../model/curation.ts';
import type { StoredDocument } from '../model/index.ts';
import { createApp, listen, type RunningServer } from '../search-ui/index.ts';
import { serverDefaults } from '../search-ui/server-fixture.ts';
import { idleStatus } from '../search-ui/status-fixture.ts';
import { Coordinator } from './coordinator.ts';

const ADMIN = 'cluster-admin-token-0123456789';
const WORDS = ['harbor', 'lantern', 'copper', 'meadow', 'signal', 'orchard', 'granite', 'velvet'];
const DOCS: StoredDocument[] = Array.from({ length: 80 }, (_, i) =>
  storedDocument(i + 1, {
    url: `http://site${i % 4}.test/page/${i + 1}`,
    title: `${WORDS[i % 8]} ${WORDS[(i * 3) % 8]}`,
    text: `${WORDS[i % 8]} and ${WORDS[(i * 5) % 8]} ${'filler '.repeat(i % 13)} ${WORDS[(i * 7) % 8]}`,
  }),
);
const byId = new Map(DOCS.map((d) => [d.id, d]));
const indexOf = (docs: readonly StoredDocument[]) => {
  const index = new SearchIndex((id) => byId.get(id));
  for (const d of docs) index.upsert(d);
  return index;
};

describe('a coordinator over shards behind a login', () => {
  const whole = indexOf(DOCS);
  const servers: RunningServer[] = [];
  let urls: string[] = [];
  before(async () => {
    for (const k of [1, 2]) {
      const index = indexOf(DOCS.filter((d) => shardOf(d.url, 2) === k));
      const app = createApp({
        ...serverDefaults(),
        searcher: index,
        shard: new ShardNode(index, `${k}/2`),
        status: async () => idleStatus(),
        version: 't',
        processMetrics: false,
        adminToken: ADMIN,
        apiRate: 2,
        serverAuth: { basic: { username: 'reader', password: Secret.of('pw-1234', 'test') } },
      });
      servers.push(await listen(app, '127.0.0.1', 0));
    }
    urls = servers.map((s) => s.url);
  });
  after(async () => {
    for (const s of servers) await s.close();
  });
  const coordinator = async (server: Record<string, unknown>, env: Record<string, string> = {}) => {
    const c = new Coordinator(loadConfig({ env, overrides: { cluster: { shards: urls, shardTimeoutMs: 2000 }, server } }), silentLog);
    await c.start();
    return c;
  };

  it('answers as one index with the admin token, however often it asks', async () => {
    const c = await coordinator({ adminToken: ADMIN });
    try {
      assert.deepEqual(
        c.shards().map((s) => [s.up, s.shard]),
        [
          [true, '1/2'],
          [true, '2/2'],
        ],
      );
      // Far more than the shards' rate limit (2 a second for one address): the admin token is not counted.
      for (let i = 0; i < 12; i++) {
        const q = `${WORDS[i % 8]} ${WORDS[(i + 3) % 8]}`;
        const [one, merged] = [await whole.search(q), await c.searcher.search(q)];
        assert.deepEqual(merged.shards, { asked: 2, answered: 2, partial: false, missing: [] }, q);
        assert.deepEqual(
          merged.hits.map((h) => [h.url, h.score]),
          one.hits.map((h) => [h.url, h.score]),
          q,
        );
        assert.equal(merged.total, one.total, q);
      }
    } finally {
      await c.stop();
    }
  });

  it("with the shards' login and no admin token, answers until their rate limit refuses it, and says so", async () => {
    const c = await coordinator({ auth: { basic: { username: 'reader', passwordEnv: 'SHARD_PASSWORD' } } }, { SHARD_PASSWORD: 'pw-1234' });
    try {
      assert.deepEqual(
        c.shards().map((s) => s.up),
        [true, true],
        'the login passes',
      );
      let limited: string | undefined;
      for (let i = 0; i < 10 && !limited; i++) limited = (await c.searcher.search('harbor')).shards!.missing[0]?.error;
      assert.match(limited ?? '', /^HTTP 429: too many requests/);
    } finally {
      await c.stop();
    }
  });

  it('without a login, has every shard missing, and says why', async () => {
    const c = await coordinator({});
    try {
      const r = await c.searcher.search('harbor');
      assert.deepEqual([r.total, r.hits.length, r.shards!.answered, r.shards!.partial], [0, 0, 0, true]);
      for (const m of r.shards!.missing) assert.match(m.error, /^HTTP 401: this search needs a login/);
      assert.deepEqual(
        c.shards().map((s) => s.up),
        [false, false],
      );
      const ui = createApp({
        ...serverDefaults(),
        searcher: c.searcher,
        status: async () => c.status(),
        shards: () => c.shards(),
        version: 't',
        processMetrics: false,
      });
      const dashboard = await (await ui.request('/status')).text();
      for (const u of urls)
        assert.match(dashboard, new RegExp(`<tr class="trouble"><td><code>${u}</code></td><td>—</td><td>down</td>`), 'the dashboard shows each shard down');
      const partial = await ui.request('/api/search?q=harbor');
      assert.equal(((await partial.json()) as { shards: { partial: boolean } }).shards.partial, true);
      assert.doesNotMatch(partial.headers.get('etag') ?? '', /^W\//, 'a partial answer is not tagged with the index version (a digest of its body instead)');
      const health = await ui.request('/healthz');
      assert.equal(health.status, 503, 'no shard answers: out of rotation');
      assert.equal(((await health.json()) as { ok: boolean }).ok, false);
    } finally {
      await c.stop();
    }
  });

  it('refuses a shard request that is not what the API takes', async () => {
    const post = (body: string) =>
      fetch(`${urls[0]}api/shard/search`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body });
    for (const [body, message] of [
      ['not json', /the body must be JSON/],
      ['{"q":"x"}', /^page: /],
      ['{"q":"x","page":1,"size":10,"corpus":{"documents":-1}}', /^corpus\.documents: /],
      // The site's synonyms, as their lines: each as the config takes it, MAX_SYNONYMS at most.
      ['{"q":"x","page":1,"size":10,"synonyms":["a, b","kill"]}', /^synonyms\.1: synonyms "kill": a group has two entries/],
      [JSON.stringify({ q: 'x', page: 1, size: 10, synonyms: Array.from({ length: MAX_SYNONYMS + 1 }, () => 'a, b') }), /^synonyms: /],
    ] as const) {
      const res = await post(body);
      assert.equal(res.status, 400, body);
      const answer = (await res.json()) as { error: string; code: string };
      assert.equal(answer.code, 'bad-body');
      assert.match(answer.error, message, body);
    }
    const coordinatorApp = createApp({ ...serverDefaults(), searcher: whole, status: async () => idleStatus(), version: 't', processMetrics: false });
    assert.equal((await coordinatorApp.request('/api/shard/info')).status, 404, 'a server without a shard node answers no coordinator');
  });
});
