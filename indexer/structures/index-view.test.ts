// A query's view of the index (index-view.ts): what it reads after updates is what it would have
// read before them, entry by entry; closed, it is told of no more updates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from '../ingest/analyze.ts';
import { storedDocument } from '../test-document.ts';
import { IndexContents } from './index-contents.ts';

const page = (id: number, text: string, lang = 'en') => storedDocument(id, { url: `http://e.org/${id}`, title: 'T', text, lang });
const source = (lang: string) => ({ host: 'e.org', lang, type: 'html', topics: '' });

function contents() {
  const c = new IndexContents();
  const add = (id: number, text: string, lang = 'en') => c.add(id, analyze(page(id, text, lang)), { inlinks: 0, source: source(lang) });
  add(1, 'alpha beta');
  add(2, 'beta gamma gamma');
  add(3, 'gamma', 'de');
  return { c, add };
}

describe('IndexView', () => {
  it('answers after updates as it would have before them', () => {
    const { c, add } = contents();
    const view = c.view();
    const read = () => ({
      documents: view.documentCount,
      lengths: view.fieldLengths(),
      df: ['alpha', 'beta', 'gamma'].map((t) => view.docFrequency(t)),
      idf: view.idf(view.termId('beta')!),
      vector: view.vector(2),
      source: view.source(view.sourceOf(3)).lang,
      holds: view.contains(1, view.termId('alpha')!),
      norms: view.impactFunction()(view.vector(2)!, 0),
    });
    const before = read();
    assert.ok(view.fresh);
    add(2, 'alpha delta');
    add(4, 'alpha beta gamma delta');
    c.remove(1);
    c.setField(3, 4, ['beta'], 2);
    assert.ok(!view.fresh, 'an update straddled it');
    assert.deepEqual(read(), before);
    assert.equal(view.termId('delta'), undefined, 'a term interned since is unknown to it');
    assert.equal(view.docFrequency('delta'), 0);
    assert.equal(c.dictionary.docFrequency('delta'), 2);
    assert.deepEqual(
      ['alpha', 'beta', 'gamma'].map((t) => c.dictionary.docFrequency(t)),
      [2, 2, 2],
      'the index itself has moved',
    );
  });

  it('lets the first pass read the per-id arrays only while no update has straddled it', () => {
    const { c, add } = contents();
    const view = c.view();
    assert.equal(view.byId().source[1], 0);
    assert.deepEqual([...view.documentIds()], [1, 2, 3]);
    add(5, 'epsilon');
    assert.throws(() => view.byId(), /after an update straddled/);
    assert.throws(() => view.documentIds(), /after an update straddled/);
  });

  it('is told of no more updates once closed, and leaves the others open', () => {
    const { c, add } = contents();
    const closed = c.view();
    const open = c.view();
    assert.equal(c.openViews, 2);
    closed.close();
    assert.equal(c.openViews, 1);
    add(1, 'omega');
    assert.ok(closed.fresh, 'nothing told');
    assert.equal(closed.docFrequency('beta'), 1, 'it reads the index as it stands');
    assert.equal(open.docFrequency('beta'), 2);
    open.close();
    assert.equal(c.openViews, 0);
  });
});
