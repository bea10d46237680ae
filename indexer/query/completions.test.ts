// The stems a word typed halfway goes past, when words also begin with it (completions.ts endsAt),
// through SearchIndex: a word being typed stands for a stem only if a word it begins may stem to it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { endsAt } from './completions.ts';

function indexOf(pages: readonly (readonly [string, string])[]) {
  const docs = new Map<number, StoredDocument>();
  const index = new SearchIndex((id) => docs.get(id));
  for (const [title, text] of pages) {
    const d = storedDocument(docs.size + 1, { url: `http://e.org/${docs.size + 1}`, title, text });
    docs.set(d.id, d);
    index.upsert(d);
  }
  return async (q: string) => (await index.search(q)).hits.map((h) => h.id);
}

describe('a word typed past a stem, when words begin with it', () => {
  it('knows which stems a word being typed may end at', () => {
    const mayEnd: [string, string][] = [
      ['sett', 'set'],
      ['replica', 'replic'],
      ['replicati', 'replic'],
      ['replicatio', 'replic'],
    ];
    for (const [typed, stemmed] of mayEnd) assert.ok(endsAt(typed, stemmed), `${typed} may be ${stemmed}`);
    const mayNot: [string, string][] = [
      ['mute', 'mut'],
      ['thre', 'thr'],
      ['erro', 'err'],
    ];
    for (const [typed, stemmed] of mayNot) assert.ok(!endsAt(typed, stemmed), `no word "${typed}…" stems to ${stemmed}`);
  });

  it('does not take "mute" for the keyword mut when it begins mutex', async () => {
    const ids = indexOf([
      ['Mutex', 'a mutex guards data; lock the mutex'],
      ['mut', 'the mut keyword: let mut x'],
      ['mut references', 'mut and mut and mut'],
      ['Bindings', 'let mut y; mut z'],
    ]);
    assert.deepEqual(await ids('Mute'), [1]);
  });

  it('still takes "sett" for settings when it also begins settle', async () => {
    const ids = indexOf([
      ['Settings', 'the settings of the server'],
      ['Payments', 'payments settle overnight'],
      ['Other', 'nothing here'],
    ]);
    assert.deepEqual((await ids('sett')).sort(), [1, 2]);
  });
});
