// Identifiers written whole: found while a text is tokenized, terms of their own beside their
// words (not tokens: no field's length, no token sequence), and as typed at a query's end.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze, fieldTerms } from './analyze.ts';
import { FIELDS } from './fields.ts';
import { identifierTerm, isIdentifier, MAX_IDENTIFIER_LENGTH } from './identifiers.ts';
import { stem, typedIdentifier, words } from './tokenize.ts';
import { storedDocument } from '../test-document.ts';

const identifiersOf = (text: string) => {
  const out: string[] = [];
  const w = words(text, undefined, out);
  return { words: w, identifiers: out };
};

describe('identifiers in a text', () => {
  it('are runs of words joined by single underscores, folded, besides the words themselves', () => {
    const { words: w, identifiers } = identifiersOf('Set search_path, then SHARED_BUFFERS and pg_stat_activity.');
    assert.deepEqual(w, ['set', 'search', 'path', 'then', 'shared', 'buffers', 'and', 'pg', 'stat', 'activity'], 'the words are split as before');
    assert.deepEqual(identifiers, ['search_path', 'shared_buffers', 'pg_stat_activity']);
  });

  it('are not made of words joined otherwise, nor of a word between underscores', () => {
    assert.deepEqual(identifiersOf('x-forwarded-for os.path a__b a _b __init__ c_ d').identifiers, []);
    assert.deepEqual(identifiersOf('_PG_init').identifiers, ['pg_init'], 'a leading underscore is no word');
  });

  it('start with a letter and are not too long', () => {
    assert.deepEqual(identifiersOf('2024_01_05 v_2').identifiers, ['v_2']);
    const long = Array.from({ length: 20 }, () => 'abcd').join('_');
    assert.equal(identifierTerm(long.split('_')), undefined, `over ${MAX_IDENTIFIER_LENGTH} characters`);
    assert.deepEqual(identifiersOf(long).identifiers, []);
  });

  it('are told from words by their underscore', () => {
    assert.ok(isIdentifier('search_path'));
    assert.ok(!isIdentifier('search'));
  });
});

describe('identifiers in an analysis', () => {
  it('count in their field, in no field length and no token sequence', () => {
    const plain = analyze(storedDocument(1, { url: 'http://e.org/1', title: 'Schemas', text: 'the search path is set' }));
    const joined = analyze(storedDocument(1, { url: 'http://e.org/1', title: 'Schemas', text: 'the search_path is set' }));
    assert.ok(!plain.terms.includes('search_path'));
    const row = joined.terms.indexOf('search_path');
    assert.ok(row >= 0);
    assert.equal(joined.tf[row * FIELDS.length + FIELDS.indexOf('body')], 1);
    assert.deepEqual(joined.lengths, plain.lengths, 'the same tokens: search, path');
    assert.deepEqual(joined.sequence, plain.sequence, 'phrases see the words');
  });

  it('come from text made on the main thread too (anchor text), counted apart from its length', () => {
    const { terms, length } = fieldTerms('see max_connections', stem);
    assert.deepEqual(terms, ['see', 'max', 'connect', 'max_connections']);
    assert.equal(length, 3);
  });
});

describe('an identifier typed at the end of a query', () => {
  it('is the run of words the text ends with, and a trailing underscore', () => {
    assert.equal(typedIdentifier('pg_st'), 'pg_st');
    assert.equal(typedIdentifier('PG_'), 'pg_', 'a word and an underscore already say an identifier');
    assert.equal(typedIdentifier('x.pg_st'), 'pg_st');
    assert.equal(typedIdentifier('max_connections'), 'max_connections');
  });

  it('is none when the text ends otherwise', () => {
    assert.equal(typedIdentifier('pg'), undefined, 'one word');
    assert.equal(typedIdentifier('pg_st.x'), undefined, 'another word last');
    assert.equal(typedIdentifier('pg_st,'), undefined);
    assert.equal(typedIdentifier('b_a.a'), undefined, 'the run is not the last word\u2019s');
    assert.equal(typedIdentifier('_'), undefined);
  });
});
