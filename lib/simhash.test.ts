import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { halves, hammingDistance, MIN_SHINGLES, popcount, simhash } from './simhash.ts';

const WORDS = (
  'table index vacuum query planner row column tuple page buffer cache write ahead log replica primary standby lock transaction commit ' +
  'rollback snapshot isolation level function trigger view schema role grant revoke sequence type array range json text number ' +
  'date time zone interval backup restore archive segment checkpoint statistics analyze cost estimate join hash merge nested ' +
  'loop scan bitmap heap toast storage tablespace cluster database server client connection session parameter setting memory disk'
).split(' ');

/** Deterministic prose: `n` sentences from a seeded generator. */
function prose(seed: number, n = 40): string {
  let x = seed;
  const next = () => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) >>> 8) % WORDS.length;
  const sentences: string[] = [];
  for (let s = 0; s < n; s++)
    sentences.push(
      `The ${Array.from({ length: 8 + (s % 5) }, next)
        .map((i) => WORDS[i])
        .join(' ')}.`,
    );
  return sentences.join(' ');
}

describe('simhash', () => {
  const text = prose(1);

  it('gives near-identical texts fingerprints a few bits apart', () => {
    const h = simhash(text)!;
    assert.match(h, /^[0-9a-f]{16}$/);
    assert.equal(simhash(text), h, 'the same text, the same fingerprint');
    assert.equal(hammingDistance(h, simhash(text.toUpperCase())!), 0, 'case does not count');
    assert.equal(hammingDistance(h, simhash(text.replace(/\. /g, '.\n  '))!), 0, 'nor spacing and line breaks');
    // A mirror that says where it is, a sentence changed: a few bits.
    const mirror = `Mirrored from docs.example.org. ${text.replace('The', 'A')}`;
    assert.ok(hammingDistance(h, simhash(mirror)!) <= 3, `mirror: ${hammingDistance(h, simhash(mirror)!)}`);
  });

  it('reads every number as the same word: the docs of version 15 and of version 16 are the same text', () => {
    const v15 = `PostgreSQL 15.4 documentation, released 2023-08-10. ${text} See chapter 25.1 of version 15.`;
    const v16 = `PostgreSQL 16.1 documentation, released 2023-11-09. ${text} See chapter 24.1 of version 16.`;
    assert.equal(hammingDistance(simhash(v15)!, simhash(v16)!), 0);
  });

  it('gives different texts fingerprints far apart', () => {
    const others = [2, 3, 4, 5, 6].map((seed) => simhash(prose(seed))!);
    for (const o of others) assert.ok(hammingDistance(simhash(text)!, o) > 12, `${hammingDistance(simhash(text)!, o)} bits`);
  });

  it('counts each shingle once: a page that repeats itself is the page', () => {
    const table = Array.from({ length: 500 }, (_, i) => `${i} ${i * 2} ${i * 3}`).join('\n');
    assert.ok(hammingDistance(simhash(text)!, simhash(`${text}\n${table}`)!) <= 3, 'a table of numbers does not outvote the prose');
    assert.ok(hammingDistance(simhash(`${text} ${text}`)!, simhash(text)!) <= 1);
  });

  it('gives no fingerprint to a text too short to tell', () => {
    assert.equal(simhash(''), undefined);
    assert.equal(simhash('Home'), undefined);
    const words = Array.from({ length: MIN_SHINGLES + 1 }, (_, i) => WORDS[i]).join(' ');
    assert.equal(simhash(words), undefined, `${MIN_SHINGLES + 1} words make ${MIN_SHINGLES - 1} shingles`);
    assert.notEqual(simhash(`${words} more words`), undefined);
  });

  it('counts bits', () => {
    assert.deepEqual([0, 1, 0xff, 0xffffffff, 0x80000001].map(popcount), [0, 1, 8, 32, 2]);
    assert.deepEqual(halves('ffffffff00000001'), [0xffffffff, 1]);
    assert.equal(hammingDistance('0000000000000000', 'ffffffffffffffff'), 64);
    assert.equal(hammingDistance('00000000000000f0', '0000000100000000'), 5);
  });
});
