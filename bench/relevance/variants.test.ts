import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { editDistance } from '../../lib/edit-distance.ts';
import { prefixVariant, typoVariant } from './variants.ts';

describe('relevance query variants', () => {
  it('cuts the last word after its first 4 letters or digits', () => {
    assert.equal(prefixVariant('create index'), 'create inde');
    assert.equal(prefixVariant('window functions'), 'window func');
    assert.equal(prefixVariant('pg_dump'), 'pg_du');
    assert.equal(prefixVariant('brin'), 'brin', 'a short word stays');
    assert.equal(prefixVariant('gin index'), 'gin inde');
  });

  it('makes one edit in one word of 5 letters or more, the same each time', () => {
    for (const q of ['window functions', 'point in time recovery', 'explain analyze', 'transaction isolation levels', 'pg_dump', 'row level security']) {
      const t = typoVariant(q);
      assert.equal(t, typoVariant(q), 'deterministic');
      const words = q.split(' ');
      const typoWords = t.split(' ');
      if (!words.some((w) => /^[a-z]{5,}$/i.test(w))) {
        assert.equal(t, q, 'no word long enough: unchanged');
        continue;
      }
      assert.equal(typoWords.length, words.length);
      const changed = words.filter((w, i) => w !== typoWords[i]);
      assert.equal(changed.length, 1, `${q} → ${t}`);
      const i = words.indexOf(changed[0]!);
      assert.ok(changed[0]!.length >= 5);
      assert.equal(editDistance(words[i]!, typoWords[i]!), 1, `${q} → ${t}`);
    }
  });
});
