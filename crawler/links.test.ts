// Link admission (links.ts): a page's links in turns of the main thread's slices, with the same
// result as in one go.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { normalizerOf } from '../appliance/wiring.ts';
import { DEFAULT_CONFIG } from '../config/defaults.ts';
import { Slices } from '../lib/slices.ts';
import { LinkAdmitter, type LinkBatch } from './links.ts';
import { buildScope, defaultFilters, type UrlPolicy } from './urls/index.ts';

const policy: UrlPolicy = {
  normalize: normalizerOf(DEFAULT_CONFIG),
  filters: defaultFilters(buildScope({ allow: [], exclude: [], seeds: ['http://a.org/'] }), { ...DEFAULT_CONFIG.limits, maxUrlLength: 2048, maxDepth: 5 }),
};
/** A page of many links: in scope, out of scope (playground URLs full of escapes, as rustdoc's), repeated. */
const page: LinkBatch = {
  depth: 1,
  base: 'http://a.org/index.html',
  source: 'http://a.org/index.html',
  tunnel: 0,
  links: Array.from({ length: 1000 }, (_, i) =>
    i % 3 === 0 ? { url: `https://play.example/?code=fn%20main()%20%7B%7D%0A%2F%2F%20${i}`, text: 'Run' } : { url: `page-${i % 500}.html`, text: `Page ${i}` },
  ),
};

describe('LinkAdmitter', () => {
  it("admits a page's links in turns of the thread's slices when the slice is spent, with the same result as in one go", async () => {
    const whole = await new LinkAdmitter(policy).admit([page]);
    // A clock that says each slice is spent at once: every LINKS_PER_TURN links wait for a turn.
    let now = 0;
    const slices = new Slices(3, () => (now += 10));
    let turns = 0;
    const turn = slices.turn.bind(slices);
    slices.turn = () => {
      const t = turn();
      if (t) turns++;
      return t;
    };
    const sliced = await new LinkAdmitter(policy).admit([page], slices);
    assert.ok(turns >= 10, `${turns} turns for 1,000 links`);
    const { ms: _a, ...a } = whole;
    const { ms: _b, ...b } = sliced;
    assert.deepEqual(b, a);
    assert.equal(a.urls.length, 666, "every in-scope link (the store's seen-set drops those it has)");
    assert.equal(a.rejected.get('out-of-scope'), 334);
    assert.ok(whole.ms > 0 && sliced.ms > 0);
  });
});
