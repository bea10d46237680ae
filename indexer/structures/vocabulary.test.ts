import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { analyze } from '../ingest/analyze.ts';
import { flushIndex, loadIndex } from '../persistence/snapshot.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { IndexContents } from './index-contents.ts';
import { Vocabulary } from './vocabulary.ts';

const doc = (id: number, text: string) => storedDocument(id, { url: `http://e.org/${id}`, title: '', text });

/** A dictionary and a vocabulary kept beside it, as SearchIndex keeps them. */
function stats(small: number) {
  const contents = new IndexContents();
  const s = contents.dictionary;
  const v = new Vocabulary(s, small);
  const add = (id: number, text: string) => v.added(contents.add(id, analyze(doc(id, text))).termIds);
  const held = (term: string) => v.typos.has(s.termId(term) ?? -1);
  return { s, v, add, held };
}

describe('Vocabulary', () => {
  it('holds in the typo index the words of letters, 3 to 32 characters, not CJK', () => {
    const { add, held } = stats(1e9);
    add(1, `postgres 12345 ab abc x1y2 東京都 ${'a'.repeat(40)}`);
    assert.ok(held('postgr') && held('abc') && held('x1y2'));
    assert.ok(!held('12345') && !held('ab') && !held('東京') && !held('a'.repeat(40)));
  });

  it('leaves identifiers out of the typo index (no query word holds "_"), not out of the prefixes', () => {
    const { add, held, v, s } = stats(1e9);
    add(1, 'set search_path');
    assert.ok(held('search') && !held('search_path'));
    assert.deepEqual(
      v.prefixes.complete('search_', (id) => s.docFrequencyOf(id), 5),
      [s.termId('search_path')],
    );
  });

  it('once the vocabulary is large, holds a word from its second document on', () => {
    const { add, held, v, s } = stats(0);
    add(1, 'singleton shared');
    assert.ok(!held('singleton') && !held('share'), 'each in one document');
    add(2, 'shared');
    assert.ok(held('share') && !held('singleton'), 'share is in two now');
    assert.deepEqual(
      v.prefixes.complete('sin', (id) => s.docFrequencyOf(id), 5),
      [s.termId('singleton')],
      'every term completes, whatever its frequency',
    );
  });

  it('is rebuilt when a flushed index is loaded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-vocabulary-'));
    try {
      const pages = [doc(1, 'streaming replication'), doc(2, 'replication slots')];
      const byId = new Map(pages.map((p) => [p.id, p]));
      const index = new SearchIndex((id) => byId.get(id));
      for (const p of pages) index.upsert(p);
      await flushIndex(dir, index, 1);
      const loaded = new SearchIndex((id) => byId.get(id));
      loadIndex(dir, loaded);
      assert.equal(loaded.vocabulary.prefixes.size, index.vocabulary.prefixes.size);
      assert.deepEqual((await loaded.search('replicaton slots')).corrected, [{ from: 'replicaton', to: 'replication' }]);
      assert.deepEqual(await loaded.suggest('stre'), ['streaming']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
