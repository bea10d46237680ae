import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { holds, parseShard, shardOf, shardProblem } from './shard.ts';

describe('shards by URL hash', () => {
  it('follows the documented rule: SHA-256 of the URL, first four bytes big-endian, modulo N, plus one', () => {
    // Worked out with coreutils: printf %s URL | sha256sum → 8198d1ba…, ffa848fc…, afa6bc9d…
    const vectors: [string, number[]][] = [
      ['https://example.org/', [1, 2, 3, 7]],
      ['http://127.0.0.1:8080/a?b=1', [1, 1, 1, 5]],
      ['https://docs.example.org/café', [2, 3, 2, 3]],
    ];
    for (const [url, shards] of vectors)
      assert.deepEqual(
        [2, 3, 4, 7].map((n) => shardOf(url, n)),
        shards,
        url,
      );
  });

  it('puts every document in exactly one of N shards, for any N, and spreads them evenly', () => {
    const urls = Array.from({ length: 4000 }, (_, i) => `https://host${i % 37}.example/${i}/page.html`);
    for (const n of [1, 2, 3, 4, 7, 16]) {
      const counts = new Array<number>(n).fill(0);
      for (const url of urls) {
        const held = Array.from({ length: n }, (_, k) => holds({ k: k + 1, n }, url));
        assert.equal(held.filter(Boolean).length, 1, `${url} in one of ${n}`);
        counts[held.indexOf(true)]!++;
      }
      for (const c of counts) assert.ok(Math.abs(c - urls.length / n) < 0.15 * (urls.length / n), `${n} shards: ${counts.join(', ')}`);
    }
  });

  it('is the same every time, whatever was asked before', () => {
    const url = 'https://example.org/some/page';
    const first = shardOf(url, 5);
    for (let i = 0; i < 100; i++) shardOf(`https://other.example/${i}`, 5);
    assert.equal(shardOf(url, 5), first);
  });

  it('reads K/N, K from 1 to N, and says what is wrong otherwise', () => {
    assert.deepEqual(parseShard('2/3'), { k: 2, n: 3 });
    assert.deepEqual(parseShard(' 1/1 '), { k: 1, n: 1 });
    for (const [text, problem] of [
      ['0/2', /K counts from 1 to N/],
      ['3/2', /K counts from 1 to N/],
      ['1/0', /N must be from 1/],
      ['1/2000', /N must be from 1 to 1024/],
      ['half', /not K\/N/],
      ['1-2', /not K\/N/],
    ] as const) {
      assert.match(shardProblem(text) ?? '', problem, text);
      assert.throws(() => parseShard(text), problem);
    }
  });
});
