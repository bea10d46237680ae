// The levers as a search node applies them (curation.ts), over a real SQLite store and a real index:
// the config's synonyms put in the store once, the console's edits kept across restarts, rules
// checked and their URLs normalized, matched to queries, applied by the searcher, seen by a second node.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { SearchIndex } from '../indexer/index.ts';
import { storedDocument } from '../indexer/test-document.ts';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { silentLog } from '../lib/log.ts';
import { normalizerOf } from './wiring.ts';
import { openSqliteStore } from '../store/sqlite/store.ts';
import type { Store } from '../store/index.ts';
import { CuratedSearcher, Curation, CurationError, curationFor } from './curation.ts';

const normalize = normalizerOf(DEFAULT_CONFIG);

describe('the levers of a search node', () => {
  let dir: string;
  let store: Store;
  const opened: Curation[] = [];
  const open = async (synonyms: string[] = [], on: Store = store) => {
    const c = await Curation.open(on.curation, { synonyms }, normalize, silentLog);
    opened.push(c);
    return c;
  };
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'trawl-curation-'));
    store = openSqliteStore(dir);
  });
  afterEach(async () => {
    for (const c of opened.splice(0)) c.close();
    await store.close();
  });

  it("puts the config's synonyms in the store once: the console's edit outlives a restart, a new config wins", async () => {
    const first = await open(['k8s, kubernetes']);
    assert.deepEqual(first.current.synonyms, ['k8s, kubernetes']);
    await first.putSynonyms(['kill => terminate', '  '], 'admin token');
    assert.deepEqual((await open(['k8s, kubernetes'])).current.synonyms, ['kill => terminate']);
    assert.deepEqual((await open(['k8s, kubernetes', 'pg, postgres'])).current.synonyms, ['k8s, kubernetes', 'pg, postgres']);
    const history = await first.history(10);
    assert.deepEqual(
      history.map((h) => [h.what, h.by]),
      [
        ['synonyms', 'config'],
        ['synonyms', 'admin token'],
        ['synonyms', 'config'],
      ],
    );
    await assert.rejects(first.putSynonyms(['a => a'], 'x'), (e: Error) => e instanceof CurationError && /adds nothing/.test(e.message));
  });

  it('learns from clicks unless search.learnFromClicks is false (or there is no search log)', async () => {
    const settings = (learnFromClicks: boolean, enabled = true) => ({ search: { synonyms: [], learnFromClicks }, analytics: { enabled } });
    for (const [s, learns] of [
      [settings(true), true],
      [settings(false), false],
      [settings(true, false), false],
    ] as const) {
      const c = await curationFor(s, store, normalize, silentLog);
      opened.push(c);
      assert.equal(c.learner !== undefined, learns, JSON.stringify(s));
    }
  });

  it('checks rules, normalizes their URLs, and matches them to queries exactly or by their words', async () => {
    const c = await open();
    await assert.rejects(c.putRules({ queries: [{ match: { query: 'x' }, pin: [], hide: [] }], prefixes: [] }, 'a'), /pins or hides nothing/);
    await assert.rejects(c.putRules({ queries: [{ match: { query: 'x' }, pin: ['mailto:a@b.c'], hide: [] }], prefixes: [] }, 'a'), /not a URL/);
    await assert.rejects(c.putRules({ queries: [], prefixes: [{ prefix: 'http://e.org/', factor: 50 }] }, 'a'), /factor from 0.1 to 10/);
    await c.putRules(
      {
        queries: [
          { match: { query: '  Kill   Query ' }, pin: ['HTTP://E.org/a#top'], hide: [] },
          { match: { contains: ['vacuum'] }, pin: [], hide: ['http://e.org/old'] },
        ],
        prefixes: [{ prefix: 'http://e.org/blog/', factor: 0.5 }],
      },
      'admin token',
    );
    assert.deepEqual(c.adjustFor('kill query site:e.org'), {
      pin: ['http://e.org/a'],
      hide: [],
      prefixes: [{ prefix: 'http://e.org/blog/', factor: 0.5 }],
      learned: [],
    });
    assert.deepEqual(c.adjustFor('full VACUUM')?.hide, ['http://e.org/old']);
    assert.deepEqual(c.adjustFor('kill')?.pin, []);
    await c.putRules({ queries: [], prefixes: [] }, 'admin token');
    assert.equal(c.adjustFor('kill query'), undefined);
  });

  it('applies pins and synonyms to the next search, changes the version its ETags follow, and a second node sees it', async () => {
    const pages = [
      storedDocument(1, { url: 'http://e.org/kill', title: 'Kill a query', text: 'kill query kill' }),
      storedDocument(2, { url: 'http://e.org/terminate', title: 'pg_terminate_backend', text: 'terminate a backend' }),
    ];
    const index = new SearchIndex((id) => pages[id - 1]);
    index.idsOf = (urls) => new Map(urls.flatMap((u) => pages.filter((p) => p.url === u).map((p) => [u, p.id] as const)));
    for (const p of pages) index.upsert(p);
    const c = await open();
    const searcher = new CuratedSearcher(index, c);
    const urls = async (q: string) => (await searcher.search(q)).hits.map((h) => h.url);
    assert.deepEqual(await urls('kill'), ['http://e.org/kill']);
    const before = searcher.version;
    await c.putSynonyms(['kill => terminate'], 'admin token');
    assert.deepEqual(await urls('kill'), ['http://e.org/kill', 'http://e.org/terminate'], 'the synonym finds it, below the word itself');
    await c.putRules({ queries: [{ match: { query: 'kill' }, pin: ['http://e.org/terminate'], hide: [] }], prefixes: [] }, 'admin token');
    assert.deepEqual(await urls('kill'), ['http://e.org/terminate', 'http://e.org/kill']);
    assert.ok(searcher.version > before);

    const other = openSqliteStore(dir);
    try {
      const second = await open([], other);
      assert.deepEqual(second.current.synonyms, ['kill => terminate']);
      await c.putSynonyms([], 'admin token');
      await second.reload();
      assert.deepEqual(second.current.synonyms, []);
    } finally {
      for (const x of opened.splice(1)) x.close();
      await other.close();
    }
  });
});
