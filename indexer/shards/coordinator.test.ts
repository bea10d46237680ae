// Search over shards, in one process (the HTTP side: cli/shards.test.ts): the documentation of the
// installed npm packages, split over two indexes by URL hash, merged by the coordinator with the
// corpus's statistics, answers as one index over all of it does — the same hits in the same
// order with the same scores, totals, facets, suggestions — and with each shard's own statistics
// it would not.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { shardOf } from '../../lib/shard.ts';
import { simhash } from '../../lib/simhash.ts';
import type { StoredDocument } from '../../model/index.ts';
import { tokenize } from '../ingest/tokenize.ts';
import { Synonyms } from '../query/synonyms.ts';
import { SearchIndex, type IndexTuning, type SearchResponse } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { ShardedSearcher, type ShardTransport } from './coordinator.ts';
import { mergeAnswers } from './merge.ts';
import { answerSearch, answerSuggest, hitsOf, reportTerms } from './shard-node.ts';

const MODULES = new URL('../../node_modules/', import.meta.url).pathname;

/** Each package's README, a document per `## ` section: a few hundred pages of real prose. */
function corpus(): StoredDocument[] {
  const docs: StoredDocument[] = [];
  for (const name of readdirSync(MODULES).sort()) {
    const file = join(MODULES, name, 'README.md');
    if (name.startsWith('.') || !existsSync(file)) continue;
    const sections = readFileSync(file, 'utf8').split(/^## +/m);
    sections.forEach((section, i) => {
      const [heading, ...rest] = section.split('\n');
      const text = rest
        .join('\n')
        .replace(/```[\s\S]*?```/g, ' ')
        .trim();
      if (text.length < 200) return;
      const id = docs.length + 1;
      const host = `docs${id % 3}.test`;
      docs.push(
        storedDocument(id, {
          url: `http://${host}/${name}/${i}`,
          title: i === 0 ? name : `${name}: ${heading!.trim()}`,
          text,
          lang: id % 7 === 0 ? 'fr' : 'en',
        }),
      );
    });
  }
  return docs;
}

const DOCS = corpus();
const byId = new Map(DOCS.map((d) => [d.id, d]));
const indexOf = (docs: readonly StoredDocument[], tuning: Partial<IndexTuning>) => {
  const index = new SearchIndex((id) => byId.get(id), undefined, tuning);
  for (const d of docs) index.upsert(d);
  return index;
};
/** As the wire carries it: JSON both ways. */
const wire = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T;

/** One index over every document, two over a shard each, and a coordinator over the two (as HTTP would, minus HTTP). */
function cluster(tuning: Partial<IndexTuning>) {
  const whole = indexOf(DOCS, tuning);
  const shards = [1, 2].map((k) =>
    indexOf(
      DOCS.filter((d) => shardOf(d.url, 2) === k),
      tuning,
    ),
  );
  const transport: ShardTransport = {
    shards: ['one', 'two'],
    terms: async (i, asked) => wire(await reportTerms(shards[i]!, wire(asked))),
    search: async (i, asked) => wire(await answerSearch(shards[i]!, wire(asked))),
    suggest: async (i, asked) => wire(await answerSuggest(shards[i]!, asked.q, asked.limit, wire(asked.corpus))),
    hits: async (i, asked) => wire(await hitsOf(shards[i]!, asked.ids, asked.marked)),
    info: async (i) => ({ documents: shards[i]!.documentCount, version: shards[i]!.version }),
  };
  return { whole, shards, transport, coordinator: new ShardedSearcher(transport, whole.foldDistance) };
}

/** What must be equal: each hit's URL, score, title, snippet and near-duplicates; totals, facets, words. */
function seen(r: SearchResponse) {
  return {
    total: r.total,
    partial: r.partial,
    lowerBound: r.totalIsLowerBound ?? false,
    facets: r.facets,
    // (Spelled as a page of its shard spells the word: the words' terms must be the same.)
    suggestion: r.suggestion === undefined ? undefined : tokenize(r.suggestion),
    corrected: r.corrected?.map((c) => ({ from: c.from, to: tokenize(c.to) })),
    synonyms: r.synonyms,
    hits: r.hits.map((h) => ({ url: h.url, title: h.title, snippet: h.snippet, score: h.score, similar: h.similar, moreSimilar: h.moreSimilar })),
  };
}

/** Queries of every kind: words, several, as typed so far, mistyped, phrases, filters, OR, exclusions. */
const QUERIES = [
  'parser',
  'stream',
  'install',
  'options',
  'error handling',
  'typescript types',
  'command line interface',
  'file system path',
  'async function callback',
  'http request headers',
  'json schema validation',
  'performance benchmark results',
  'node module resolution',
  'configur',
  'request hea',
  'pars',
  'instal',
  'stremas',
  'recieve data',
  'optoins parse',
  '"command line"',
  '"the default"',
  '"of the"',
  '"you can"',
  'license OR copyright',
  'parse -json',
  'site:docs1.test options',
  'lang:fr install',
  'api usage example',
  'buffer encoding utf8',
  'promise resolve reject',
  'test runner coverage',
  // Regression: terms that are names of Object.prototype's properties ("constructor": a
  // completion here) were read from the prototype when summed, and the shards refused the sum.
  'class constr',
  'tostring constructor',
];

for (const [how, tuning] of [
  ['scored exactly', {}],
  ['scored in two passes (impact lists first)', { exactLimit: 10, headDf: 10 }],
] as const) {
  describe(`a coordinator over two shards, ${how}`, () => {
    const { whole, shards, transport, coordinator } = cluster(tuning);

    it('splits the corpus in two by URL hash', () => {
      assert.equal(shards[0]!.documentCount + shards[1]!.documentCount, DOCS.length);
      assert.ok(DOCS.length > 300 && shards.every((s) => s.documentCount > DOCS.length / 3), `${DOCS.length} documents: ${shards.map((s) => s.documentCount)}`);
    });

    it('answers every query as one index over all the documents does, page after page', async () => {
      for (const q of QUERIES) {
        for (const page of [1, 2]) {
          const one = await whole.search(q, { page });
          const merged = await coordinator.search(q, { page });
          assert.deepEqual(seen(merged), seen(one), `${q} (page ${page})`);
          assert.deepEqual(merged.shards, { asked: 2, answered: 2, partial: false, missing: [] }, `${q}: every statistic gathered`);
        }
        const exact = await coordinator.search(q, { exact: true, size: 20 });
        assert.deepEqual(seen(exact), seen(await whole.search(q, { exact: true, size: 20 })), `${q} (exact)`);
      }
    });

    it('applies synonyms as one index does: the shards are told them, and gather their terms', async () => {
      const synonyms = Synonyms.fromLines([
        'zzkill => parser',
        'install, setup',
        'error => exception, "stack trace"',
        '"command line" => cli',
        'options => configuration',
      ]);
      const without = await coordinator.search('zzkill options');
      assert.ok(without.partial && without.corrected === undefined, 'no page says "zzkill"');
      const found = await coordinator.search('zzkill options', { synonyms });
      assert.ok(found.hits.length > 0 && !found.partial, 'the synonym finds pages');
      assert.deepEqual(found.synonyms, [
        { from: 'zzkill', to: ['parser'] },
        { from: 'options', to: ['configuration'] },
      ]);
      // (Counting the second round's questions: a lookup the first round missed asks again.)
      let asked = 0;
      const counting = new ShardedSearcher({ ...transport, search: (i, a) => transport.search(i, a).finally(() => asked++) }, whole.foldDistance);
      for (const q of ['zzkill options', 'install', 'setup guide', 'error handling', 'command line interface', 'options parse', 'stack trace']) {
        for (const exact of [false, true]) {
          asked = 0;
          const merged = await counting.search(q, { synonyms, exact });
          assert.deepEqual(seen(merged), seen(await whole.search(q, { synonyms, exact })), `${q}${exact ? ' (exact)' : ''}`);
          assert.equal(asked, 2, `${q}: every statistic gathered in the first round`);
        }
      }
    });

    it('completes as one index does (each word spelled as a page of some shard spells it)', async () => {
      // (Two completions one node spells alike are one suggestion there; spelled otherwise, two here.)
      const terms = (list: readonly string[]) => [...new Set(list.map((s) => tokenize(s).join(' ')))];
      for (const q of ['pars', 'str', 'conf', 'error ha', 'http req', 'ty', 'json sch']) {
        const merged = await coordinator.suggest(q);
        assert.ok(merged.length > 0, q);
        assert.deepEqual(terms(merged), terms(await whole.suggest(q)), q);
      }
    });

    it("with each shard's own statistics, the same merge orders results otherwise", async () => {
      let reordered = 0;
      for (const q of QUERIES) {
        const one = await whole.search(q);
        const answers = await Promise.all([0, 1].map((i) => transport.search(i, { q, page: 1, size: 10 })));
        const merged = mergeAnswers(answers, { page: 1, size: 10, phrases: q.includes('"'), foldDistance: whole.foldDistance, last: true });
        assert.ok('response' in merged);
        if (JSON.stringify(merged.response.hits.map((h) => h.url)) !== JSON.stringify(one.hits.map((h) => h.url))) reordered++;
      }
      assert.ok(reordered >= 5, `local statistics reordered ${reordered} of ${QUERIES.length} queries' top ten`);
      console.log(`local statistics reordered ${reordered} of ${QUERIES.length} queries' top ten`);
    });
  });
}

describe('near-duplicates across shards', () => {
  // A mirror of one page under 40 URLs (either shard holds some), beside 40 pages of their own:
  // one node folds the mirrors under the best; the coordinator must too, though the results
  // shown then come from deep in each shard's list — deeper than they sent hits for.
  const mirror =
    'Tuning the write ahead log: checkpoints, the size of segments, and how often the buffers are flushed to disk ' +
    'decide how fast a crash is recovered and how much is written.';
  const docs = [
    ...Array.from({ length: 40 }, (_, i) =>
      storedDocument(i + 1, {
        url: `http://mirror${i % 5}.test/wal/${i}`,
        title: 'Write ahead log tuning',
        text: `${mirror} Mirror ${i}.`,
        simhash: simhash(`${mirror} Mirror ${i}.`)!,
      }),
    ),
    ...Array.from({ length: 40 }, (_, i) => {
      const text = `The write ahead log, page ${i}: ${'segments checkpoints buffers recovery replication archive standby '
        .split(' ')
        .slice(i % 6, (i % 6) + 3)
        .join(' ')} and ${i * 7} other things of its own about ${['vacuum', 'indexes', 'locks', 'joins'][i % 4]}.`;
      return storedDocument(41 + i, { url: `http://site${i % 3}.test/log/${i}`, title: `Log page ${i}`, text, simhash: simhash(text)! });
    }),
  ];
  const byId2 = new Map(docs.map((d) => [d.id, d]));
  const make = (ds: readonly StoredDocument[]) => {
    const index = new SearchIndex((id) => byId2.get(id));
    for (const d of ds) index.upsert(d);
    return index;
  };
  const whole = make(docs);
  const shards = [1, 2].map((k) => make(docs.filter((d) => shardOf(d.url, 2) === k)));
  let hitsAsked = 0;
  let searches = 0;
  const transport: ShardTransport = {
    shards: ['one', 'two'],
    terms: async (i, asked) => wire(await reportTerms(shards[i]!, wire(asked))),
    search: async (i, asked) => {
      searches++;
      return wire(await answerSearch(shards[i]!, wire(asked)));
    },
    suggest: async (i, asked) => wire(await answerSuggest(shards[i]!, asked.q, asked.limit, wire(asked.corpus))),
    hits: async (i, asked) => {
      hitsAsked++;
      return wire(await hitsOf(shards[i]!, asked.ids, asked.marked));
    },
    info: async (i) => ({ documents: shards[i]!.documentCount, version: shards[i]!.version }),
  };
  const coordinator = new ShardedSearcher(transport, whole.foldDistance);

  it('folds them as one node does, asking the shards for the results beyond the hits they sent', async () => {
    for (const q of ['write ahead log', 'log tuning', 'checkpoints buffers']) {
      for (const page of [1, 2, 3]) {
        const one = await whole.search(q, { page, size: 5 });
        assert.ok(page > 1 || one.hits.some((h) => (h.similar?.length ?? 0) >= 5), `${q}: the mirrors fold`);
        assert.deepEqual(seen(await coordinator.search(q, { page, size: 5 })), seen(one), `${q} (page ${page})`);
      }
    }
    assert.ok(hitsAsked > 0, 'some result on a page came from below the hits a shard sent');
    assert.ok(searches > 2 * 3 * 3, `the shards were asked deeper where the mirrors folded a page short (${searches} searches for 9 pages)`);
  });
});
