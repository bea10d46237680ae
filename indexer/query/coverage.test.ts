// Which words a query's candidates may miss (coverage.ts): the bare words of a long enough query,
// never a phrase's or a +word; and the groups every admissible candidate holds one of.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { bitCount, MAY_MISS_FROM, MAY_MISS_TWO_FROM, missable, sourceGroups } from './coverage.ts';
import { parseQuery } from './parse.ts';

describe('missable', () => {
  it('requires every word of a short query', () => {
    assert.equal(MAY_MISS_FROM, 3);
    assert.deepEqual(missable(parseQuery('copy clone')), { optional: [false, false], maxMissing: 0 });
    assert.deepEqual(missable(parseQuery('vacuum')), { optional: [false], maxMissing: 0 });
  });

  it('lets a query of three bare words or more miss one, and of six or more two', () => {
    assert.deepEqual(missable(parseQuery('sleep for second')), { optional: [true, true, true], maxMissing: 1 });
    const long = parseQuery('exit the program with status code');
    assert.equal(long.groups.length, MAY_MISS_TWO_FROM);
    assert.equal(missable(long).maxMissing, 2);
  });

  it('never lets a phrase word or a +word be missed', () => {
    assert.deepEqual(missable(parseQuery('"foreign data" wrapper postgres')), { optional: [false, false, true, true], maxMissing: 1 });
    assert.deepEqual(missable(parseQuery('+sleep for second')), { optional: [false, true, true], maxMissing: 1 });
    // (A word both in a phrase and typed bare stays required.)
    assert.deepEqual(missable(parseQuery('"data wrapper" data')).optional, [false, false]);
    // Nothing bare to spare: every word required.
    assert.equal(missable(parseQuery('"one two three"')).maxMissing, 0);
  });
});

describe('sourceGroups', () => {
  it('reads the rarest required group, or the rarest maxMissing + 1 when every group may be missed', () => {
    assert.deepEqual(sourceGroups([{ optional: true }, { optional: false }, { optional: false }], 1), [1]);
    assert.deepEqual(sourceGroups([{ optional: true }, { optional: true }, { optional: true }], 1), [0, 1]);
    assert.deepEqual(sourceGroups([{ optional: true }, { optional: true }, { optional: true }], 2), [0, 1, 2]);
    assert.deepEqual(sourceGroups([{ optional: false }, { optional: false }], 0), [0]);
  });

  it('counts bits', () => {
    assert.deepEqual([0, 1, 3, 0b1011, 0x7fffffff, 1 << 27].map(bitCount), [0, 1, 2, 3, 31, 1]);
  });
});
