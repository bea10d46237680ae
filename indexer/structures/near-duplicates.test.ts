import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hammingDistance } from '../../lib/simhash.ts';
import { countNearDuplicates, NearDuplicateCensus } from './near-duplicates.ts';
import { bandsFor, NO_FINGERPRINT, SimHashes } from './simhashes.ts';

/** A seeded 64-bit fingerprint, and one `bits` bits away from it. */
let seed = 42;
const rand32 = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0);
const hex = (hi: number, lo: number) => hi.toString(16).padStart(8, '0') + lo.toString(16).padStart(8, '0');
const random = () => hex(rand32(), rand32());
function flip(h: string, bits: number): string {
  let hi = parseInt(h.slice(0, 8), 16);
  let lo = parseInt(h.slice(8), 16);
  const used = new Set<number>();
  while (used.size < bits) used.add(rand32() % 64);
  for (const b of used)
    if (b < 32) lo ^= 1 << b;
    else hi ^= 1 << (b - 32);
  return hex(hi >>> 0, lo >>> 0);
}

/** The same figures, pair by pair. */
function bruteForce(prints: Map<number, string>, maxDistance: number): { documents: number; clusters: number } {
  const ids = [...prints.keys()];
  const parent = new Map(ids.map((i) => [i, i]));
  const root = (i: number): number => (parent.get(i) === i ? i : root(parent.get(i)!));
  const near = new Set<number>();
  for (let a = 0; a < ids.length; a++)
    for (let b = a + 1; b < ids.length; b++)
      if (hammingDistance(prints.get(ids[a]!)!, prints.get(ids[b]!)!) <= maxDistance) {
        near.add(ids[a]!).add(ids[b]!);
        parent.set(root(ids[a]!), root(ids[b]!));
      }
  return { documents: near.size, clusters: new Set([...near].map(root)).size };
}

describe('near-duplicate census', () => {
  it('counts the documents with a near-duplicate and their clusters, as pair-by-pair checking does', async () => {
    for (const maxDistance of [1, 3, 5]) {
      const prints = new Map<number, string>();
      let id = 1;
      for (let c = 0; c < 40; c++) {
        const base = random();
        prints.set(id++, base);
        // Clusters of 1–4 members, each a few bits from the first; and chains (a~b, b~c, a≁c).
        for (let k = c % 4; k > 0; k--) prints.set(id++, flip(base, 1 + (k % 4)));
      }
      for (let i = 0; i < 500; i++) prints.set(id++ * 3, random());
      const s = new SimHashes();
      for (const [i, h] of prints) s.set(i, h);
      const { documents, clusters } = await countNearDuplicates(s, maxDistance, 0);
      assert.deepEqual({ documents, clusters }, bruteForce(prints, maxDistance), `maxDistance ${maxDistance}`);
    }
  });

  it('cuts fingerprints into maxDistance + 1 bands, so that two near ones share one', () => {
    const bands = bandsFor(3);
    assert.equal(bands.length, 4);
    const a = [0x12345678, 0x9abcdef0] as const;
    assert.equal(new Set(bands.map((b) => b(a[0], a[1]))).size, 4, 'bands are told apart');
    const b = [a[0] ^ (1 << 31), a[1] ^ 0b1001] as const; // 3 bits, in two bands
    assert.equal(bands.filter((f) => f(a[0], a[1]) === f(b[0], b[1])).length, 2);
  });

  it('keeps fingerprints by id, and tells a missing one by its distance', () => {
    const s = new SimHashes();
    s.set(5, 'ffffffff00000000');
    s.set(60_000_001, 'ffffffff00000003');
    s.set(7, 'not a fingerprint');
    assert.equal(s.count, 2);
    assert.equal(s.distance(5, 60_000_001), 2);
    assert.equal(s.distance(5, 7), NO_FINGERPRINT);
    s.set(5, undefined);
    assert.equal(s.count, 1);
    assert.equal(s.get(5), undefined);
  });

  it('counts again when the fingerprints changed — at once when they grew by a tenth, else after the interval', async () => {
    const s = new SimHashes();
    const h = random();
    for (let i = 1; i <= 20; i++) s.set(i, i % 2 ? h : random());
    const census = new NearDuplicateCensus(s, 3, 60_000);
    assert.equal(census.figures(1000), undefined, 'the first census is under way');
    assert.equal((await census.count(1000)).documents, 10);
    s.set(21, h);
    assert.equal(census.figures(2000)?.documents, 10, 'one more of 20: counted after the interval');
    for (let i = 22; i <= 25; i++) s.set(i, h);
    census.figures(3000);
    assert.equal((await census.count(3000)).documents, 15);
  });
});
