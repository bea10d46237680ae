// The halves of a query set (split.ts): fixed by the query alone, and about half each.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { fnv1a32 } from '../hash.ts';
import { HALVES, halfOf } from './split.ts';

describe('the tuning and held-out halves of a query set', () => {
  it('hash with FNV-1a as its published test vectors say', () => {
    assert.equal(fnv1a32(''), 0x811c9dc5);
    assert.equal(fnv1a32('a'), 0xe40c292c);
    assert.equal(fnv1a32('foobar'), 0xbf9cf968);
  });

  it('put a query in one half whatever its case, its spaces around it, or the queries beside it', () => {
    for (const q of ['drop index', 'window functions', 'vacuum full']) {
      assert.equal(halfOf(q), halfOf(`  ${q.toUpperCase()} `));
      assert.ok(HALVES.includes(halfOf(q)));
    }
  });

  it('give each half between a third and two thirds of every set in bench/relevance', () => {
    const dir = new URL('./', import.meta.url);
    const sets = readdirSync(dir).filter((f) => f.endsWith('.json'));
    assert.ok(sets.length >= 4, sets.join(', '));
    for (const file of sets) {
      const queries = (JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { queries: { q: string }[] }).queries;
      const tuning = queries.filter((x) => halfOf(x.q) === 'tuning').length;
      assert.ok(tuning >= queries.length / 3 && tuning <= (2 * queries.length) / 3, `${file}: ${tuning} of ${queries.length} tune`);
    }
  });
});
