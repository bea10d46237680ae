// The crawl's history kept for the dashboard's chart: bounded, thinned evenly, the latest figures always last.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CrawlStats } from '../model/index.ts';
import { CrawlHistory, HISTORY_SAMPLES } from './history.ts';

const T0 = Date.UTC(2026, 10, 22, 12);
/** The crawler's figures after `pages` pages and `failures` failed fetches. */
const stats = (pages: number, failures = 0, pagesPerSecond = 10): CrawlStats => ({
  requests: pages + failures,
  bytes: 0,
  pagesPerSecond,
  stages: {} as CrawlStats['stages'],
  outcomes: { indexed: pages - 1, fetched: 1, failed: failures, dead: 0, excluded: 5 },
});

describe('the crawl history', () => {
  it('keeps a sample a second: pages/s, pages fetched with success and failed fetches', () => {
    const h = new CrawlHistory();
    h.add(stats(10, 1, 4.5), T0);
    h.add(stats(20, 2, 9), T0 + 1000);
    assert.deepEqual(h.all, [
      { at: '2026-11-22T12:00:00.000Z', pagesPerSecond: 4.5, pages: 10, failures: 1 },
      { at: '2026-11-22T12:00:01.000Z', pagesPerSecond: 9, pages: 20, failures: 2 },
    ]);
  });

  it('replaces a sample that came early with the next, so the latest figures are last (the crawl’s end)', () => {
    const h = new CrawlHistory();
    h.add(stats(10), T0);
    h.add(stats(11), T0 + 300);
    h.add(stats(12), T0 + 600);
    assert.deepEqual(
      h.all.map((s) => s.pages),
      [10, 12],
    );
    h.add(stats(13), T0 + 1000);
    h.add(stats(14), T0 + 2000);
    assert.deepEqual(
      h.all.map((s) => s.pages),
      [10, 13, 14],
    );
  });

  it(`spans a long crawl with at most ${HISTORY_SAMPLES} samples, evenly, from its first to its last`, () => {
    const h = new CrawlHistory();
    const seconds = 10 * HISTORY_SAMPLES + 7;
    for (let s = 0; s <= seconds; s++) {
      h.add(stats(s + 1), T0 + s * 1000);
      assert.ok(h.all.length <= HISTORY_SAMPLES, `${h.all.length} samples after ${s} s`);
    }
    const at = h.all.map((x) => Date.parse(x.at) - T0);
    assert.equal(at[0], 0, 'the first second stays');
    assert.equal(at.at(-1), seconds * 1000, 'the last second is there');
    assert.ok(h.all.length > HISTORY_SAMPLES / 2, `${h.all.length} samples: thinned to half at most`);
    // Evenly: the gaps between samples kept (the last may be closer) differ by a factor of 2 at most.
    const gaps = at.slice(1, -1).map((t, i) => t - at[i]!);
    assert.ok(Math.max(...gaps) <= 2 * Math.min(...gaps), `gaps from ${Math.min(...gaps)} to ${Math.max(...gaps)} ms`);
  });
});
