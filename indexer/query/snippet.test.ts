import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setStemming } from '../ingest/tokenize.ts';
import { makeSnippet } from './snippet.ts';
import { parseQuery } from './parse.ts';

describe('makeSnippet', () => {
  it('picks the passage with the most distinct query terms', () => {
    const text = `${'intro words here. '.repeat(40)}Configure the connection pool size carefully. ${'outro filler. '.repeat(40)}pool alone`;
    const s = makeSnippet(text, parseQuery('connection pool').terms);
    assert.match(s, /<mark>connection<\/mark> <mark>pool<\/mark>/);
    assert.ok(s.startsWith('… '), s);
    assert.ok(s.endsWith(' …'), s);
  });

  it('highlights the original spelling of folded words', () => {
    assert.match(makeSnippet('Une crème brûlée.', ['creme']), /<mark>crème<\/mark>/);
  });

  it('falls back to the description, escaped, when no term occurs', () => {
    assert.equal(makeSnippet('body', ['absent'], 'A <desc>'), 'A &#60;desc&#62;');
  });
});

describe('parseQuery', () => {
  before(() => setStemming('none'));
  after(() => setStemming('language'));

  it('splits words, phrases and exclusions', () => {
    const q = parseQuery('Foo "bar baz" -qux -"no way" foo');
    assert.deepEqual(q.terms, ['foo', 'bar', 'baz']);
    assert.deepEqual(q.excluded, ['qux', 'no', 'way']);
  });
});
