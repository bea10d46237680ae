import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setStemming } from '../ingest/tokenize.ts';
import { locate } from './locate.ts';
import { FIRST_SCAN_CHARS, makeSnippet, snippetOf } from './snippet.ts';
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

  // A long page: "connection pool" near its start, and a passage holding both words more often
  // past FIRST_SCAN_CHARS.
  const filler = (n: number) => 'lorem ipsum dolor sit amet. '.repeat(Math.ceil(n / 28));
  const long = `${filler(2000)}Set the connection pool here. ${filler(FIRST_SCAN_CHARS)}connection pool, connection pool, pool connection. ${filler(4000)}`;
  const terms = parseQuery('connection pool').terms;

  it("takes a long page's passage from its start when one there holds as many terms as the query has words", () => {
    const s = snippetOf(long, terms, { enough: 2 });
    assert.match(s.html, /Set the <mark>connection<\/mark> <mark>pool<\/mark> here/);
    assert.ok(s.at! < FIRST_SCAN_CHARS, String(s.at));
    // Asked for the best passage of all (no `enough`), the page is read on to the denser one.
    assert.ok(snippetOf(long, terms).at! > FIRST_SCAN_CHARS);
  });

  it('reads a long page on when its start holds fewer terms than the query has words', () => {
    const later = `${filler(2000)}only the pool here. ${filler(FIRST_SCAN_CHARS)}the connection pool is far. ${filler(4000)}`;
    const s = snippetOf(later, terms, { enough: 2 });
    assert.match(s.html, /the <mark>connection<\/mark> <mark>pool<\/mark> is far/);
    assert.ok(s.at! > FIRST_SCAN_CHARS, String(s.at));
  });

  it('finds the passage further on by its characters, or token by token past words outside ASCII, alike', () => {
    const far = (between: string) => `${filler(2000)}only the pool here. ${filler(FIRST_SCAN_CHARS)}${between}the Connection pool is far. ${filler(4000)}`;
    for (const between of ['', 'une crème brûlée, ']) {
      const text = far(between);
      const s = snippetOf(text, terms, { enough: 2 });
      assert.match(s.html, /the <mark>Connection<\/mark> <mark>pool<\/mark> is far/, between);
      assert.equal(s.at, text.indexOf('Connection'), between);
    }
  });

  it("starts from what was already located in the text's start", () => {
    // (Occurrences of the first 5,000 characters, as phrase evidence located them: proximity.ts bodyStart.)
    const found = locate(long.slice(0, 5000), terms);
    const s = snippetOf(long, terms, { found, foundChars: 5000, enough: 2 });
    assert.equal(s.html, snippetOf(long, terms, { enough: 2 }).html);
    // Located in a start that holds no term, they are not the whole page: it is read on.
    const none = locate(long.slice(0, 100), terms);
    assert.match(snippetOf(long, terms, { found: none, foundChars: 100, enough: 2 }).html, /<mark>connection<\/mark> <mark>pool<\/mark>/);
    // With no foundChars, the occurrences are the whole text's.
    assert.doesNotMatch(snippetOf(long, terms, { found: none, enough: 2 }).html, /<mark>/);
  });

  it('falls back to the start of a page holding no term, its white space flattened, cut at a word', () => {
    const s = makeSnippet(`\n  Intro${' \n\t word'.repeat(50_000)}`, ['absent']);
    assert.match(s, /^Intro word word .* word …$/);
    assert.ok(s.length <= 242, String(s.length));
    assert.equal(makeSnippet(' a \n b ', ['absent']), 'a b');
  });

  it('falls back to the description, escaped, when no term occurs', () => {
    assert.equal(makeSnippet('body', ['absent'], { fallback: 'A <desc>' }), 'A &#60;desc&#62;');
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
