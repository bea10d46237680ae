import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SeenCache } from './seen-cache.ts';

describe('SeenCache', () => {
  it('remembers what it was given', () => {
    const c = new SeenCache(10);
    c.add('http://a/1', 'http://a/1');
    assert.ok(c.has('http://a/1'));
    c.add('http://A/2', 'http://a/2');
    assert.equal(c.get('http://A/2'), 'http://a/2');
    assert.ok(!c.has('http://a/2'));
  });

  it('stays within its capacity, forgetting the least recently used keys first', () => {
    const c = new SeenCache(10);
    for (let i = 0; i < 1000; i++) {
      c.add(`http://a/${i}`, `http://a/${i}`);
      assert.ok(c.size <= 10, `size ${c.size}`);
    }
    assert.ok(c.has('http://a/999'));
    assert.ok(!c.has('http://a/0'));
  });

  it('keeps a key that is used again', () => {
    const c = new SeenCache(10);
    c.add('http://a/hot', 'http://a/hot');
    for (let i = 0; i < 100; i++) {
      c.add(`http://a/${i}`, `http://a/${i}`);
      assert.ok(c.has('http://a/hot'), `lost the hot key after ${i} others`);
    }
  });
});
