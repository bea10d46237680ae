import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hintedInterval, nextInterval } from './revisit.ts';

const H = 3_600_000;
const D = 24 * H;
const policy = { minMs: H, maxMs: 7 * D };
const now = Date.parse('2026-11-22T12:00:00Z');

describe('the revisit interval', () => {
  it('starts at the geometric mean of the bounds when the server says nothing', () => {
    assert.equal(nextInterval(policy, 'new', null, {}, now), Math.round(Math.sqrt(H * 7 * D)));
  });

  it('doubles when a revisit finds the page unchanged and halves when it changed, within the bounds', () => {
    assert.equal(nextInterval(policy, 'unchanged', 10 * H, {}, now), 20 * H);
    assert.equal(nextInterval(policy, 'changed', 10 * H, {}, now), 5 * H);
    assert.equal(nextInterval(policy, 'unchanged', 5 * D, {}, now), 7 * D, 'never beyond maxInterval');
    assert.equal(nextInterval(policy, 'changed', 1.5 * H, {}, now), H, 'never below minInterval');
    // A page that changes at every visit settles at the minimum; one that never does, at the maximum.
    let fast = 13 * H;
    let slow = 13 * H;
    for (let i = 0; i < 10; i++) {
      fast = nextInterval(policy, 'changed', fast, {}, now);
      slow = nextInterval(policy, 'unchanged', slow, {}, now);
    }
    assert.deepEqual([fast, slow], [H, 7 * D]);
  });

  it('takes its first value from Cache-Control max-age, else Expires − Date', () => {
    assert.equal(nextInterval(policy, 'new', null, { cacheControl: 'public, max-age=7200' }, now), 2 * H);
    assert.equal(hintedInterval({ cacheControl: 's-maxage=600, max-age=60' }, now), 600_000);
    assert.equal(hintedInterval({ expires: 'Sun, 22 Nov 2026 18:00:00 GMT', date: 'Sun, 22 Nov 2026 12:00:00 GMT' }, now), 6 * H);
    assert.equal(hintedInterval({ expires: 'Mon, 23 Nov 2026 00:00:00 GMT' }, now), 12 * H, 'without Date, from now');
    assert.equal(nextInterval(policy, 'new', null, { cacheControl: 'max-age=60' }, now), H, 'a short max-age is raised to minInterval');
    assert.equal(nextInterval(policy, 'new', null, { cacheControl: 'public, immutable' }, now), 7 * D);
  });

  it("else takes a tenth of the page's age, from Last-Modified or a sitemap's <lastmod>", () => {
    assert.equal(hintedInterval({ lastModified: 'Thu, 12 Nov 2026 12:00:00 GMT' }, now), D, 'ten days old: one day');
    assert.equal(hintedInterval({ lastmod: '2026-11-02T12:00:00Z' }, now), 2 * D);
    assert.equal(hintedInterval({ lastModified: 'Thu, 12 Nov 2026 12:00:00 GMT', lastmod: '2026-01-01' }, now), D, 'the header first');
    assert.equal(nextInterval(policy, 'new', null, { lastmod: '2020-01-01' }, now), 7 * D, 'an old page: the maximum');
  });

  it('ignores hints it cannot read, and ones that say nothing of freshness', () => {
    for (const h of [
      { cacheControl: 'no-cache' },
      { cacheControl: 'max-age=0' },
      { expires: '0' },
      { expires: 'Sun, 22 Nov 2026 11:00:00 GMT' },
      { lastModified: 'yesterday' },
      { lastmod: '2099-01-01' },
      { lastmod: null },
    ]) {
      assert.equal(hintedInterval(h, now), undefined, JSON.stringify(h));
    }
  });

  it('uses hints for the first interval only: later ones follow what revisits find', () => {
    assert.equal(nextInterval(policy, 'unchanged', 2 * H, { cacheControl: 'max-age=86400' }, now), 4 * H);
  });
});
