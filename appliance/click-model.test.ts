// The click model (click-model.ts): clicks over the clicks expected at each position, per query and
// page, smoothed, bounded, once a session — on hand-made logs where the answer is known.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LoggedSearch, SearchClick } from '../model/index.ts';
import { CLICK_MODEL, ClickModel, queryKey } from './click-model.ts';

const SHOWN = Array.from({ length: 10 }, (_, i) => `http://e.org/${i + 1}`);
let n = 0;
function search(query: string, session: string, shown = SHOWN): LoggedSearch {
  return { id: `s${n++}`, at: n, session, source: 'page', query, understood: query, filters: {}, page: 1, total: 10, shown, tookMs: 1, prefixes: [] };
}
const click = (s: LoggedSearch, position: number): SearchClick => ({ searchId: s.id, at: s.at + 1, position, url: s.shown[position - 1]! });
/** A deterministic stream in [0, 1). */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}
const factorOf = (m: ClickModel, q: string, url: string) => m.factors(q).find((f) => f.url === url)?.factor ?? 1;

describe('the click model', () => {
  it('raises the page searchers choose over the pages shown above it, and sinks those passed over, within bounds', () => {
    const m = new ClickModel();
    // (Other queries' clicks fall mostly on the first positions: the position bias.)
    for (let i = 0; i < 200; i++) {
      const s = search(`other ${i % 20}`, `o${i}`);
      m.add(s, [click(s, i % 3 === 0 ? 2 : 1)]);
    }
    for (let i = 0; i < 30; i++) {
      const s = search('kill query', `k${i}`);
      m.add(s, [click(s, 4)]);
    }
    const chosen = factorOf(m, 'kill query', SHOWN[3]!);
    assert.ok(chosen > 3 && chosen <= CLICK_MODEL.rise, `the chosen page's factor: ${chosen}`);
    const first = factorOf(m, 'kill query', SHOWN[0]!);
    assert.ok(first < 1 && first >= CLICK_MODEL.sink, `the first, never chosen: ${first}`);
    // Close variants are one query; others learn nothing from it.
    assert.equal(factorOf(m, 'Query  KILL', SHOWN[3]!), chosen);
    assert.equal(queryKey('kill query site:e.org -lang:de'), 'kill query');
    assert.equal(queryKey('String::from_utf8 "vec"'), 'string::from_utf8 vec');
    assert.deepEqual(m.factors('kill'), []);
  });

  it("reads a page's results by rank: page 2's first is the 11th, shown and clicked there", () => {
    const m = new ClickModel();
    const second = SHOWN.map((u) => `${u}/deeper`);
    const page2 = (q: string, session: string) => ({ ...search(q, session, second), page: 2 });
    // (Elsewhere, the 11th result is often chosen: its rate is high.)
    for (let i = 0; i < 100; i++) {
      const s = page2(`other ${i % 10}`, `o${i}`);
      m.add(s, [click(s, 1)]);
    }
    // Here it never is, in 30 sessions that looked at page 2: it sinks; the 12th, always chosen, rises.
    for (let i = 0; i < 30; i++) {
      m.add(search('deep', `d${i}`), []);
      const s = page2('deep', `d${i}`);
      m.add(s, [click(s, 2)]);
    }
    assert.ok(factorOf(m, 'deep', second[0]!) < 1, `the 11th, passed over: ${factorOf(m, 'deep', second[0]!)}`);
    assert.ok(factorOf(m, 'deep', second[1]!) > 1, `the 12th, chosen: ${factorOf(m, 'deep', second[1]!)}`);
  });

  it('counts a session once: one session (a bot) searching and clicking again and again moves nothing', () => {
    const m = new ClickModel();
    for (let i = 0; i < 1000; i++) {
      const s = search('vacuum', 'bot');
      m.add(s, [click(s, 9)]);
    }
    assert.deepEqual(m.factors('vacuum'), [], 'one session is below minSessions');
    for (let i = 0; i < 10; i++) m.add(search('vacuum', `person${i}`), []);
    assert.ok(factorOf(m, 'vacuum', SHOWN[8]!) < 1.6, `one session's click weighs as one: ${factorOf(m, 'vacuum', SHOWN[8]!)}`);
  });

  it('learns nothing below minSessions, and changes little from clicks that fall at random', () => {
    const m = new ClickModel();
    for (let i = 0; i < CLICK_MODEL.minSessions - 1; i++) {
      const s = search('rare', `r${i}`);
      m.add(s, [click(s, 5)]);
    }
    assert.deepEqual(m.factors('rare'), []);
    const next = random(7);
    for (let i = 0; i < 400; i++) {
      const s = search(`query ${i % 20}`, `x${i}`);
      m.add(s, next() < 0.5 ? [click(s, 1 + Math.floor(next() * 10))] : []);
    }
    for (let q = 0; q < 20; q++) for (const f of m.factors(`query ${q}`)) assert.ok(f.factor > 0.5 && f.factor < 2.5, `${q} ${f.url}: ${f.factor}`);
  });
});
