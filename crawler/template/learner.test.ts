import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { COUNTERS, TemplateLearner, type Template } from './learner.ts';
import { Extraction } from './extraction.ts';

const CHROME = [101, 102, 103];
/** Page i's blocks: the chrome, then blocks of its own. */
const page = (i: number, own = 5) => Uint32Array.from([...CHROME, ...Array.from({ length: own }, (_, k) => 1_000_000 + i * 1000 + k)]);

function record(l: TemplateLearner) {
  const learned: [string, Template][] = [];
  const stale: [string, number][] = [];
  l.on('learned', (h, t) => learned.push([h, t]));
  l.on('stale', (h, id) => stale.push([h, id]));
  return { learned, stale };
}

describe('the template learner', () => {
  it('calls a block template once it is on a share of at least minPages pages, and says so once', () => {
    const l = new TemplateLearner({ minPages: 20, share: 0.3, maxHosts: 10 });
    const { learned } = record(l);
    for (let i = 0; i < 19; i++) l.parsed('a.org', page(i), 0, i);
    assert.equal(l.of('a.org').version, 0, 'not before minPages');
    l.parsed('a.org', page(19), 0, 19);
    assert.deepEqual([...l.of('a.org').blocks], CHROME);
    assert.deepEqual(
      learned.map(([h, t]) => [h, t.version]),
      [['a.org', 1]],
    );
    // Decided again at 40 pages, 80… — the same template is not announced again.
    for (let i = 20; i < 80; i++) l.parsed('a.org', page(i), 1, i);
    assert.equal(learned.length, 1);
    assert.deepEqual(l.of('b.org'), { blocks: new Uint32Array(0), version: 0 }, 'per host');
  });

  it('keeps out blocks on fewer pages than the share, and keeps in a template block that dips a little (hysteresis)', () => {
    const l = new TemplateLearner({ minPages: 10, share: 0.5, maxHosts: 10 });
    // Block 7 on 6 of the first 10 pages (template), then on none of the next 10: 6 of 20 = 30 %, above half the share.
    for (let i = 0; i < 20; i++) l.parsed('a.org', Uint32Array.from([...CHROME, ...(i < 6 ? [7] : []), ...(i % 4 === 0 ? [8] : [])]), 0, undefined);
    assert.deepEqual(
      [...l.of('a.org').blocks],
      [7, ...CHROME].sort((a, b) => a - b),
    );
  });

  it('says which pages were parsed with an older template than their host has now', () => {
    const l = new TemplateLearner({ minPages: 2, share: 0.5, maxHosts: 10 });
    const { stale } = record(l);
    l.parsed('a.org', page(0), 0, 10);
    l.parsed('a.org', page(1), 0, 11);
    // Page 12 was in the parser while the template was learned; page 13 was not stored.
    l.parsed('a.org', page(2), 0, 12);
    l.parsed('a.org', page(3), 0, undefined);
    l.parsed('a.org', page(4), 1, 14);
    assert.deepEqual(stale, [
      ['a.org', 11],
      ['a.org', 12],
    ]);
  });

  it('keeps at most COUNTERS block counts per host: a host of ever-new blocks still finds its template', () => {
    const l = new TemplateLearner({ minPages: 20, share: 0.3, maxHosts: 10 });
    for (let i = 0; i < 200; i++) l.parsed('big.org', page(i, 250), 0, undefined);
    const counts = (l as unknown as { hosts: Map<string, { counts: Map<number, number> }> }).hosts.get('big.org')!.counts;
    assert.ok(counts.size <= COUNTERS, `${counts.size} counters`);
    assert.deepEqual([...l.of('big.org').blocks], CHROME);
  });

  it('forgets the least recently seen host beyond maxHosts, and counts it', () => {
    const l = new TemplateLearner({ minPages: 1, share: 0.5, maxHosts: 2 });
    for (const h of ['a.org', 'b.org', 'a.org', 'c.org']) l.parsed(h, page(0), 0, undefined);
    assert.equal(l.of('b.org').version, 0, 'b.org was forgotten');
    assert.ok(l.of('a.org').version > 0 && l.of('c.org').version > 0);
    assert.deepEqual(l.figures(), { hosts: 2, blocks: 2 * (CHROME.length + 5), forgotten: 1 });
  });
});

describe('what a parse job is told', () => {
  it('the selectors of the page\u2019s host and of every host, and its host\u2019s template', () => {
    const learner = new TemplateLearner({ minPages: 1, share: 0.5, maxHosts: 10 });
    const e = new Extraction({ '*': ['[role=complementary]'], 'docs.example.org': ['.sidebar', 'table.navheader'], 'other.org:8080': ['#ads'] }, learner);
    assert.deepEqual(e.forPage('docs.example.org', 'http://docs.example.org/x'), { version: 0, exclude: '[role=complementary], .sidebar, table.navheader' });
    assert.deepEqual(e.forPage('other.org:8080', 'http://other.org:8080/'), { version: 0, exclude: '[role=complementary], #ads' });
    e.parsed('docs.example.org', Uint32Array.from([5, 3]), 0, undefined);
    assert.deepEqual(e.forPage('docs.example.org', 'http://docs.example.org/y'), {
      version: 1,
      template: Uint32Array.from([3, 5]),
      exclude: '[role=complementary], .sidebar, table.navheader',
    });
    assert.deepEqual(new Extraction({}, undefined).forPage('a.org', 'http://a.org/'), { version: 0 });
  });
});
