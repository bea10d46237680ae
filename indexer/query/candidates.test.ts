// The candidates of a query (candidates.ts, first-pass.ts) over a small index: the exact path
// (every candidate from the rarest group's postings, checked in its vector) and the two passes
// (impact lists first) find the same documents, and the first pass's estimates rank them as the
// exact scores do; exclusions, filters, OR and partial matches hold on both.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { Candidates } from './candidates.ts';
import { ENOUGH_FULL } from './coverage.ts';
import { parseQuery } from './parse.ts';
import { topK } from './rank.ts';
import { scoreAll, slotWeights, type Slot } from './weights.ts';

const WORDS = ['harbour', 'light', 'boat', 'tide', 'sail', 'rope', 'lamp', 'anchor', 'gull', 'lantern', 'pier', 'fog', 'ladder', 'crab'];

/** 400 pages of a few words each, some far more frequent than others, on three hosts, in English and German. */
function corpus(): { index: SearchIndex; docs: Map<number, StoredDocument> } {
  const docs = new Map<number, StoredDocument>();
  const index = new SearchIndex((id) => docs.get(id), undefined, { exactLimit: 1e9, headDf: 8 });
  let s = 7;
  const next = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
  for (let id = 1; id <= 400; id++) {
    // (Word k is drawn about 1/(k + 1) as often as the first: a few in most pages, most in few.)
    const text = Array.from({ length: 6 + (id % 17) }, () => WORDS[Math.floor(WORDS.length * next() ** 2)]!).join(' ');
    const d = storedDocument(id, { url: `http://site${id % 3}.test/${id}`, title: WORDS[id % WORDS.length]!, text, lang: id % 5 ? 'en' : 'de' });
    docs.set(id, d);
    index.upsert(d);
  }
  return { index, docs };
}

const { index } = corpus();
/** Over the index's own postings and impact lists: one that scores every query exactly, one that always takes two passes. */
const exact = new Candidates(index.postings, index.impacts, { exactLimit: 1e9, headDf: 8 });
const twoPass = new Candidates(index.postings, index.impacts, { exactLimit: 5, headDf: 8 });

/** The query's candidates both ways, with the exact scores of each (read before any wait, as the index does). */
function bothWays(query: string, forgiving = false) {
  const view = index.view();
  try {
    const lens = index.lens(view);
    const plan = index.plan(query, !forgiving, lens);
    const q = plan.forgiven.query;
    const a = exact.match(q, plan.weights, lens);
    const one = { ids: Array.from(a.ids), partial: a.partial, estimated: a.estimates !== undefined };
    const b = twoPass.match(q, plan.weights, lens);
    const two = { ids: Array.from(b.ids), partial: b.partial, estimates: b.estimates ? [...b.estimates] : undefined };
    return { one, two, scores: (ids: readonly number[]) => [...plan.exactScores(ids)] };
  } finally {
    view.close();
  }
}

const sorted = (ids: readonly number[]) => [...ids].sort((x, y) => x - y);
const holds = (id: number, word: string) => index.stats.vectors.contains(id, index.stats.dictionary.termId(word) ?? -1);

describe('candidates', () => {
  it('finds the same documents on the exact path and in two passes, with estimates only from the second', () => {
    for (const q of ['harbour', 'harbour light', 'light boat tide', 'crab lamp', 'gull OR pier', 'harbour -light', 'boat nowhere']) {
      const { one, two } = bothWays(q);
      assert.ok(one.ids.length > 0, `${q}: some candidates`);
      assert.deepEqual(sorted(two.ids), sorted(one.ids), q);
      assert.equal(two.partial, one.partial, `${q}: partial`);
      assert.ok(!one.estimated && two.estimates?.length === two.ids.length, `${q}: estimates aligned with the ids`);
    }
  });

  it('estimates in two passes what the exact scores say: the best ten of the best fifty by estimate are the best ten', () => {
    for (const q of ['harbour', 'harbour light', 'light boat', 'tide sail rope', 'boat OR fog']) {
      const { one, two, scores } = bothWays(q);
      assert.ok(one.ids.length > 50, `${q}: ${one.ids.length} candidates`);
      const best = topK(one.ids, Float64Array.from(scores(one.ids)), 10).map((r) => r.id);
      const first = topK(two.ids, Float64Array.from(two.estimates!), 50).map((r) => r.id);
      const rescored = topK(first, Float64Array.from(scores(first)), 10).map((r) => r.id);
      assert.deepEqual(rescored, best, q);
    }
  });

  it('leaves out the documents holding an excluded word, both ways', () => {
    const { one, two } = bothWays('boat -harbour');
    assert.ok(one.ids.length > 0);
    for (const id of [...one.ids, ...two.ids]) assert.ok(holds(id, 'boat') && !holds(id, 'harbour'), `${id}`);
    assert.deepEqual(sorted(two.ids), sorted(one.ids));
  });

  it('keeps the documents the filters allow, both ways, and only filters: every page they allow', () => {
    const site = (id: number) => id % 3 === 1;
    for (const q of ['site:site1.test harbour', 'lang:de boat tide', 'site:site1.test lang:de light']) {
      const { one, two } = bothWays(q);
      assert.ok(one.ids.length > 0, q);
      assert.ok(
        one.ids.every((id) => (!q.includes('site:') || site(id)) && (!q.includes('lang:') || id % 5 === 0)),
        `${q}: only what the filters allow`,
      );
      assert.deepEqual(sorted(two.ids), sorted(one.ids), q);
    }
    assert.deepEqual(sorted(bothWays('site:site1.test').one.ids), [...Array(400).keys()].map((i) => i + 1).filter(site));
  });

  it('falls back to the documents holding any word when none holds them all, and says so, both ways', () => {
    const { one, two } = bothWays('harbour zebra');
    assert.ok(one.partial && two.partial);
    assert.ok(one.ids.length > 50 && one.ids.every((id) => holds(id, 'harbour')), 'no page holds zebra: the pages holding harbour');
    assert.deepEqual(sorted(two.ids), sorted(one.ids));
    assert.deepEqual(bothWays('zebra').one, { ids: [], partial: false, estimated: false }, 'one word nowhere: nothing');
  });

  it('lets a candidate of a query of three words miss one, never two, both ways (no partial match: a candidate like any other)', () => {
    // (47 pages hold all three: fewer than ENOUGH_FULL.)
    const q = 'pier fog crab';
    const { one, two } = bothWays(q);
    const count = (id: number) => q.split(' ').filter((w) => holds(id, w)).length;
    assert.ok(one.ids.some((id) => count(id) === 3) && one.ids.some((id) => count(id) === 2), 'pages holding all three, and two');
    assert.ok(
      one.ids.every((id) => count(id) >= 2),
      'none holding only one',
    );
    const wanted = [...Array(400).keys()].map((i) => i + 1).filter((id) => count(id) >= 2);
    assert.deepEqual(sorted(one.ids), wanted);
    assert.deepEqual(sorted(two.ids), wanted);
    assert.ok(!one.partial && !two.partial);
    // 215 pages hold "harbour light boat" (ENOUGH_FULL or more): they are the candidates, both ways.
    const many = bothWays('harbour light boat');
    const every = [...Array(400).keys()].map((i) => i + 1).filter((id) => ['harbour', 'light', 'boat'].every((w) => holds(id, w)));
    assert.ok(every.length >= ENOUGH_FULL);
    assert.deepEqual(sorted(many.one.ids), every);
    assert.deepEqual(sorted(many.two.ids), every);
    // A phrase's words are required: a page missing "crab" is no candidate of '"harbour crab" gull'.
    const phrased = bothWays('"harbour crab" gull lamp');
    assert.ok(phrased.one.ids.length > 0 && phrased.one.ids.every((id) => holds(id, 'harbour') && holds(id, 'crab')));
    assert.deepEqual(sorted(phrased.two.ids), sorted(phrased.one.ids));
    // No page holds "zebra": the pages holding the other two.
    const spared = bothWays('harbour crab zebra');
    assert.ok(!spared.one.partial && !spared.two.partial);
    assert.ok(spared.one.ids.length > 0 && spared.one.ids.every((id) => holds(id, 'harbour') && holds(id, 'crab')));
    assert.deepEqual(sorted(spared.two.ids), sorted(spared.one.ids));
  });

  it('estimates in two passes the pages missing a word as they score exactly', () => {
    const { one, two, scores } = bothWays('pier fog crab');
    const best = topK(one.ids, Float64Array.from(scores(one.ids)), 10).map((r) => r.id);
    const first = topK(two.ids, Float64Array.from(two.estimates!), 50).map((r) => r.id);
    assert.deepEqual(
      topK(first, Float64Array.from(scores(first)), 10).map((r) => r.id),
      best,
    );
  });

  it('weighs a word being typed by its best completion in each page, as the exact scores do', () => {
    // "la" stands for lamp, lantern and ladder: each page weighed by the best it holds.
    const { one, two, scores } = bothWays('boat la', true);
    assert.ok(
      ['lamp', 'lantern', 'ladder'].every((w) => one.ids.some((id) => holds(id, w))),
      'every completion found',
    );
    assert.deepEqual(sorted(two.ids), sorted(one.ids));
    const best = topK(one.ids, Float64Array.from(scores(one.ids)), 10).map((r) => r.id);
    const first = topK(two.ids, Float64Array.from(two.estimates!), 50).map((r) => r.id);
    assert.deepEqual(
      topK(first, Float64Array.from(scores(first)), 10).map((r) => r.id),
      best,
    );
  });

  it('weighs each of two words with alternatives by the best one a page holds, as the exact scores do', () => {
    // boat (or fog, at 0.8) and lamp (or lantern, or ladder, at 0.9): a page holding several
    // alternatives of a word is weighed by the best, never their sum.
    const slot = (word: string, others: readonly string[], factor: number): Slot => ({
      term: word,
      alternatives: [{ term: word, factor: 1, own: true }, ...others.map((term) => ({ term, factor }))],
    });
    const slots = [slot('boat', ['fog'], 0.8), slot('lamp', ['lantern', 'ladder'], 0.9)];
    const q = { ...parseQuery('boat lamp'), groups: slots.map((x) => x.alternatives.map((a) => a.term)) };
    const view = index.view();
    try {
      const lens = index.lens(view);
      const weights = slotWeights(view, slots);
      const one = Array.from(exact.match(q, weights, lens).ids);
      const b = twoPass.match(q, weights, lens);
      const two = { ids: Array.from(b.ids), estimates: Float64Array.from(b.estimates!) };
      const scores = (ids: readonly number[]) => scoreAll(view, view, ids, weights);
      assert.ok(
        one.some((id) => holds(id, 'lantern') && holds(id, 'ladder') && holds(id, 'fog') && holds(id, 'boat')),
        'pages holding several',
      );
      assert.deepEqual(sorted(two.ids), sorted(one));
      const best = topK(one, scores(one), 10).map((r) => r.id);
      const first = topK(two.ids, two.estimates, 20).map((r) => r.id);
      assert.deepEqual(
        topK(first, scores(first), 10).map((r) => r.id),
        best,
      );
    } finally {
      view.close();
    }
  });

  it('estimates one word from its list as the general first pass does (a filter that allows every page takes that path)', () => {
    const alone = bothWays('harbour').two;
    const filtered = bothWays('harbour site:test').two;
    assert.deepEqual(filtered.ids, alone.ids);
    for (let i = 0; i < alone.ids.length; i++) assert.ok(Math.abs(alone.estimates![i]! - filtered.estimates![i]!) < 1e-12, `${alone.ids[i]}`);
  });
});
