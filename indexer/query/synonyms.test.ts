import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SYNONYMS, parseSynonym, type SynonymRule } from '../../model/curation.ts';
import type { StoredDocument } from '../../model/index.ts';
import { stemmerFor } from '../ingest/tokenize.ts';
import { SearchIndex, type IndexTuning } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { parseQuery } from './parse.ts';
import { Synonyms } from './synonyms.ts';

const rules = (...lines: string[]) => Synonyms.of(lines.map((l) => parseSynonym(l) as SynonymRule));
/** What the synonyms add to query `q`: by slot, each term (with the others it needs, if any). */
const added = (s: Synonyms, q: string) => {
  const found = s.forQuery(parseQuery(q), [stemmerFor(undefined)]);
  return Object.fromEntries([...found.bySlot].map(([slot, ts]) => [slot, ts.map((t) => (t.together ? `${t.term}+${t.together.join('+')}` : t.term))]));
};

describe('a set of synonyms', () => {
  it('is made of the rules or of their lines, and keeps the lines (what goes to shards)', () => {
    const lines = ['kill => terminate, cancel', 'k8s, kubernetes'];
    const s = Synonyms.fromLines(lines);
    assert.equal(s.size, 2);
    assert.deepEqual(s.lines, lines);
    assert.deepEqual(added(s, 'kill'), added(rules(...lines), 'kill'));
    assert.throws(() => Synonyms.fromLines(['kill']), RangeError, 'a bad line');
    assert.throws(() => Synonyms.fromLines(Array.from({ length: MAX_SYNONYMS + 1 }, (_, i) => `a${i}, b${i}`)), RangeError);
  });

  it('applies a one-way rule forwards only, a group every way; by the words’ stems', () => {
    const s = rules('kill => terminate, cancel', 'k8s, kubernetes, kube');
    assert.deepEqual(added(s, 'kill query'), { kill: ['termin', 'cancel'] });
    assert.deepEqual(added(s, 'killed'), { kill: ['termin', 'cancel'] }, 'a word stems as the rule’s does');
    assert.deepEqual(added(s, 'terminate query'), {}, 'one way');
    assert.deepEqual(added(s, 'k8s'), { k8s: ['kubernet', 'kube'] });
    assert.deepEqual(added(s, 'kubernetes pods'), { kubernet: ['k8s', 'kube'] });
    assert.deepEqual(s.forQuery(parseQuery('kill'), [stemmerFor(undefined)]).applied, [{ from: 'kill', to: ['terminate', 'cancel'] }]);
  });

  it('leaves phrases and +words exact', () => {
    const s = rules('kill => terminate');
    assert.deepEqual(added(s, '+kill query'), {});
    assert.deepEqual(added(s, '"kill query"'), {});
  });

  it('matches an entry of several words on consecutive words only, each of them taking its synonyms', () => {
    const s = rules('"long running" => statement_timeout');
    assert.deepEqual(added(s, 'long running query'), { long: ['statement_timeout'], run: ['statement_timeout'] }, 'an identifier is its term');
    assert.deepEqual(added(s, 'query long running'), { long: ['statement_timeout'], run: ['statement_timeout'] });
    for (const q of ['running long', 'long query running', 'long OR running', 'long +x running', 'long "x y" running', 'long', 'running']) {
      assert.deepEqual(added(s, q), {}, q);
    }
  });

  it('adds an entry of several words on the right as terms a page must hold together', () => {
    assert.deepEqual(added(rules('kill => "terminate backend"'), 'kill'), { kill: ['termin+backend', 'backend+termin'] });
    assert.deepEqual(added(rules('stop => pg_terminate_backend'), 'stop'), { stop: ['pg_terminate_backend'] });
  });
});

const docs = new Map<number, StoredDocument>();
function indexOf(pages: readonly [string, string][], tuning: Partial<IndexTuning>): SearchIndex {
  const index = new SearchIndex((id) => docs.get(id), undefined, tuning);
  pages.forEach(([title, text], i) => {
    const d = storedDocument(i + 1, { url: `http://example.org/${i + 1}`, title, text });
    docs.set(d.id, d);
    index.upsert(d);
  });
  return index;
}

/** Filler pages: the query's words are rarer than the rest. */
const FILLER: [string, string][] = Array.from({ length: 30 }, (_, i) => [`Page ${i}`, `vacuum analyze index ${i} tables rows columns`]);

for (const [how, tuning] of [
  ['scored exactly', {}],
  ['in two passes', { exactLimit: 1, headDf: 1 }],
] as const) {
  describe(`synonyms in a search, ${how}`, () => {
    const index = indexOf(
      [
        ['Stopping a query', 'To kill a query, call pg_cancel_backend.'],
        ['Stopping a query', 'To pg_terminate_backend terminate a query.'],
        ['Deploying', 'Running kubernetes pods'],
        ['Cheat sheet', 'k8s pods'],
        ['Timeouts', 'statement_timeout aborts a statement'],
        ['Later', 'terminate the query later'],
        ['The backend', 'terminate the query, backend and all'],
        ['Backends', 'the query backend'],
        ...FILLER,
      ],
      tuning,
    );
    const ids = async (q: string, synonyms?: Synonyms, exact = false) => (await index.search(q, { synonyms, exact })).hits.map((h) => h.id);

    it('finds a page holding only the synonym, below the page holding the word itself', async () => {
      const s = rules('kill => terminate');
      assert.deepEqual(await ids('kill query'), [1], 'without the rule');
      const found = await ids('kill query', s);
      assert.deepEqual(found.slice(0, 2), [1, 2], `the word itself first: ${found}`);
      assert.deepEqual(await ids('kill query', s, true), found, 'exact: the synonyms apply all the same');
      const r = await index.search('kill query', { synonyms: s, explain: true });
      assert.deepEqual(r.synonyms, [{ from: 'kill', to: ['terminate'] }]);
      const kill = r.hits.find((h) => h.id === 2)!.explain!.words.find((w) => w.word === 'kill')!;
      assert.deepEqual([kill.term, kill.own, kill.synonymOf], ['termin', false, 'kill'], 'the explanation names the synonym');
      assert.equal(r.hits.find((h) => h.id === 1)!.explain!.words[0]!.synonymOf, undefined);
      assert.equal((await index.search('kill query')).synonyms, undefined);
    });

    it('does not apply a one-way rule backwards', async () => {
      assert.ok(!(await ids('cancel_backend call', rules('kill => terminate'))).includes(2));
      assert.deepEqual((await ids('terminate query', rules('kill => terminate'))).includes(1), false);
    });

    it('applies a group every way', async () => {
      const s = rules('k8s, kubernetes');
      assert.deepEqual(await ids('k8s'), [4]);
      assert.deepEqual(await ids('k8s', s), [4, 3]);
      assert.deepEqual(await ids('kubernetes', s), [3, 4]);
    });

    it('matches an entry of several words on consecutive words', async () => {
      const s = rules('"long running" => statement_timeout');
      assert.ok(!(await ids('long running')).includes(5));
      assert.deepEqual(await ids('long running', s), [5]);
      assert.match((await index.search('long running', { synonyms: s })).hits[0]!.snippet, /<mark>statement<\/mark>_<mark>timeout<\/mark>/);
      assert.deepEqual(await ids('running long', s), await ids('running long'));
    });

    it('finds a synonym of several words only where the page holds them all', async () => {
      const s = rules('kill => "terminate backend"');
      const found = await ids('kill query', s);
      assert.ok(found.includes(7) && found.includes(2), `the pages with both words (pg_terminate_backend has both): ${found}`);
      assert.ok(!found.includes(6) && !found.includes(8), `not those with one: ${found}`);
      const r = await index.search('kill query', { synonyms: s, explain: true });
      assert.equal(r.hits.find((h) => h.id === 7)!.explain!.words[0]!.synonymOf, 'kill');
      // (Three words: a page may miss one. Missing "kill", one word of its synonym counts nothing.)
      const score = async (synonyms?: Synonyms) => (await index.search('kill query later', { synonyms, explain: true })).hits.find((h) => h.id === 6)!;
      const [w, wo] = [await score(s), await score()];
      assert.equal(w.score, wo.score);
      assert.deepEqual(w.explain!.missing, ['kill']);
    });
  });
}
