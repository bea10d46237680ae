// Forgiving search, end to end through SearchIndex: completions of the last word, typos
// corrected, what stays exact, and "did you mean" on the same machinery.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { SearchIndex } from '../search-index.ts';
import { storedDocument } from '../test-document.ts';
import { MAX_COMPLETIONS } from './completions.ts';
import { forgive, FREQUENCY_WEIGHT, WHOLE_ENOUGH, withinBudget } from './forgive.ts';
import { type DocsWith, SHARE_CHECKS, SHARE_SAMPLE } from './shares.ts';
import { parseQuery } from './parse.ts';
import { slotWeights } from './weights.ts';

/** An index over pages given as [title, text], ids from 1. */
function indexOf(pages: readonly (readonly [string, string])[]) {
  const docs = new Map<number, StoredDocument>();
  const index = new SearchIndex((id) => docs.get(id));
  const add = (title: string, text: string) => {
    const d = storedDocument(docs.size + 1, { url: `http://e.org/${docs.size + 1}`, title, text });
    docs.set(d.id, d);
    index.upsert(d);
  };
  for (const [title, text] of pages) add(title, text);
  const ids = async (q: string, exact = false) => (await index.search(q, { exact })).hits.map((h) => h.id);
  return { index, add, ids };
}

/** `q` forgiven over the index as it stands (a view closed at once: forgiving is synchronous). */
function forgiven(index: SearchIndex, q: string, docsWith?: DocsWith) {
  const view = index.view();
  try {
    return forgive(parseQuery(q), { stats: view, documents: view, vocabulary: index.vocabulary, docsWith }, false);
  } finally {
    view.close();
  }
}

/** The postings of the index, for the pages a completion is checked on. */
const postingsOf =
  (index: SearchIndex): DocsWith =>
  (t, n) =>
    index.postings.docsWith(t, n);

/** `n` filler pages holding `text` (to make a word frequent). */
const many = (n: number, text: string) => Array.from({ length: n }, (_, i) => [`Filler ${i}`, text] as const);

describe('as you type: the last word also matches as a prefix', () => {
  it('finds pages by the start of the last word, below pages holding the word as typed', async () => {
    const { ids, index } = indexOf([
      ['Vacuum', 'reclaims storage'],
      ['Vacuumdb', 'a wrapper program'],
      ['Vacuums', 'vacuum cleaners for the house'],
      ['Values', 'nothing else'],
    ]);
    assert.deepEqual((await ids('vacu')).sort(), [1, 2, 3], 'vacuum (1, 3) and vacuumdb (2)');
    assert.deepEqual(await ids('va', true), [], 'exact: no completion');
    const r = await index.search('vacuum');
    assert.deepEqual(
      r.hits
        .map((h) => h.id)
        .slice(0, 2)
        .sort(),
      [1, 3],
      'the word as typed first',
    );
    assert.equal(r.hits.at(-1)!.id, 2, 'a completion of the same strength (a one-word title) below');
    assert.equal(r.corrected, undefined, 'a completion is no correction');
  });

  it('completes only the last word: the others match whole', async () => {
    const { ids, index } = indexOf([
      ['Create index', 'how to create an index'],
      ['Createdb', 'the createdb program and its index'],
      ['Drop index', 'how to drop an index'],
    ]);
    assert.deepEqual(await ids('creat ind'), [1], '"creat" (not last) is the stem of create, whole; "ind" completes to index');
    assert.deepEqual(await ids('index creat'), [1, 2], 'last: creat → create, createdb');
    const quoted = await index.search('creat ind "drop"');
    assert.ok(quoted.partial, 'the last item is quoted: "ind" is not completed, and no page has all three');
  });

  it('takes a word typed past its stem for that stem ("replicati" for replication)', async () => {
    const { ids } = indexOf([
      ['Replication', 'streaming replication between servers'],
      ['Other', 'nothing'],
    ]);
    for (const typed of ['repl', 'replic', 'replica', 'replicat', 'replicati', 'replicatio', 'replication']) assert.deepEqual(await ids(typed), [1], typed);
  });

  it('does not take a word the index knows for the stem it goes past ("nextval" is not "next")', async () => {
    const { index } = indexOf([...many(3, 'nextval of a sequence'), ...many(30, 'the next page')]);
    assert.equal((await index.search('nextval')).total, 3);
  });

  it('takes a short known word for one being typed when a completion is as frequent or more ("bool")', async () => {
    const { index } = indexOf([['Boolean', 'boolean type'], ...many(3, 'a bool column'), ...many(3, 'a boolean value')]);
    const [slot] = forgiven(index, 'bool').slots;
    assert.ok(slot!.blend && slot!.alone === undefined, 'boolean, in 4 pages (bool in 3), is likelier meant: its pages are not marked down for lacking "bool"');
    const r = await index.search('bool');
    assert.equal(r.total, 7);
    assert.equal(r.hits[0]!.id, 1);
  });

  it('lets the completions of a word on nearly every page decide ("next": nextval)', async () => {
    const { index } = indexOf([['Sequences', 'nextval advances a sequence, next'], ...many(20, 'next page')]);
    const r = await index.search('next');
    assert.equal(r.total, 21);
    assert.equal(r.hits[0]!.id, 1, '"next" tells nothing about a page: nextval is not capped at its weight');
  });

  it('does not complete a word typed whole in WHOLE_ENOUGH pages or more: its own pages are the answer', async () => {
    const { index } = indexOf([['Tablespaces', 'tablespace search_path_extra'], ...many(WHOLE_ENOUGH - 1, 'a table, set search_path')]);
    const table = () => forgiven(index, 'table');
    const alternatives = () => table().slots[0]!.alternatives.map((a) => a.term);
    assert.deepEqual(alternatives(), ['tabl', 'tablespac'], 'in WHOLE_ENOUGH − 1 pages: completed');
    assert.equal(table().cost.completionPostings, 1, 'tablespace, in one page');
    index.upsert(storedDocument(WHOLE_ENOUGH + 1, { url: 'http://e.org/last', title: 'Last', text: 'a table, set search_path' }));
    assert.deepEqual(alternatives(), ['tabl']);
    assert.equal(table().cost.completionPostings, 0, 'no completion read');
    const identifier = forgiven(index, 'search_path')
      .slots.at(-1)!
      .alternatives.map((a) => a.term);
    assert.deepEqual(identifier, ['path', 'search_path'], 'an identifier typed whole still counts beside its last word; search_path_extra is not read');
    assert.equal((await index.search('table')).total, WHOLE_ENOUGH, 'the page holding only tablespace is left out');
  });

  it('takes a short known word for one being typed when a completion is twice as frequent ("expr")', async () => {
    const { index } = indexOf([['Expression', 'expression value'], ...many(2, 'an expr node'), ...many(10, 'an expression')]);
    const r = await index.search('expr');
    assert.equal(r.total, 13);
    assert.equal(r.hits[0]!.id, 1, 'the page titled with the completion is not marked down for lacking "expr"');
  });

  it('reads completions, the most frequent first, within a budget of postings (always the first)', () => {
    const { index } = indexOf([...many(6, 'value'), ...many(3, 'valid'), ...many(2, 'vale')]);
    const { dictionary } = index.stats;
    const ids = ['valu', 'valid', 'vale'].map((t) => dictionary.termId(t)!);
    const view = index.view();
    const terms = (budget: number) => withinBudget(ids, view, budget).map((id) => dictionary.term(id));
    assert.deepEqual(terms(100), ['valu', 'valid', 'vale'], '(stems)');
    assert.deepEqual(terms(9), ['valu', 'valid']);
    assert.deepEqual(terms(1), ['valu']);
    view.close();
  });

  it('bounds what weighing many completions by the other words costs: SHARE_CHECKS pages checked in all', () => {
    // 60 words beginning with "qx", each in 40 of 400 pages, all of which hold "harbor": checked
    // alone, each completion's 40 pages would be 2,000 checks for the 50 completions read.
    const words = Array.from({ length: 60 }, (_, k) => `qx${'bcdfghjklm'[k % 10]}${'npqrstvwz'[Math.floor(k / 10)]}`);
    const pages = Array.from(
      { length: 400 },
      (_, i) => [`Page ${i}`, `harbor ${Array.from({ length: 6 }, (_, j) => words[(i * 6 + j) % 60]).join(' ')}`] as const,
    );
    const { index } = indexOf(pages);
    const f = forgiven(index, 'harbor qx', postingsOf(index));
    const completions = f.slots[1]!.alternatives.filter((a) => a.term !== 'qx');
    assert.equal(completions.length, MAX_COMPLETIONS);
    assert.equal(f.cost.completionPostings, MAX_COMPLETIONS * 40, 'their postings, for the first pass');
    assert.ok(f.cost.shareChecks > SHARE_CHECKS / 2 && f.cost.shareChecks <= SHARE_CHECKS, `${f.cost.shareChecks} pages checked`);
    assert.ok(
      completions.every((a) => a.share === 1),
      'every completion is found with "harbor" on every page checked',
    );
  });

  it('shares the checks out rarest completion first: a frequent one among rare ones is still checked on SHARE_SAMPLE pages', () => {
    // 49 words beginning with "qx" in 3 pages each, and qxzz in 512 pages (read all, every other one checked).
    const words = Array.from({ length: 49 }, (_, k) => `qx${'bcdfghjkl'[k % 9]}${'npqrstvw'[Math.floor(k / 9)]}`);
    const { index } = indexOf([...words.flatMap((w) => many(3, `harbor ${w}`)), ...many(512, 'harbor qxzz')]);
    const f = forgiven(index, 'harbor qx', postingsOf(index));
    assert.equal(f.slots[1]!.alternatives.filter((a) => a.term !== 'qx').length, 50);
    assert.equal(f.cost.shareChecks, 49 * 3 + SHARE_SAMPLE, 'not an equal part of SHARE_CHECKS each');
  });

  it('needs two characters', async () => {
    const { ids } = indexOf([['Apple', 'apple pie']]);
    assert.deepEqual(await ids('a'), []);
    assert.deepEqual(await ids('ap'), [1]);
  });

  it('completes one character joined to the word before ("max_c": max_connections)', async () => {
    const { ids } = indexOf([['Connections', 'max_connections limits clients'], ['Max', 'the max value'], ...many(3, 'connections and clients')]);
    assert.deepEqual(await ids('max_c'), [1]);
    assert.deepEqual(await ids('c'), [], 'alone, one character completes nothing');
  });

  it('lets the other words tell which completion was meant ("pg_du": dump, not due)', async () => {
    const { index, ids } = indexOf([
      ['Pg dump', 'pg_dump writes a database out'],
      ['Pg restore', 'pg_restore reads a pg_dump file'],
      ['Pg ctl', 'pg_ctl stops, due to a signal'],
      ...many(20, 'due to the load'),
    ]);
    const shares = (q: string) => {
      const f = forgiven(index, q, postingsOf(index));
      return Object.fromEntries(
        f.slots
          .at(-1)!
          .alternatives.filter((a) => !a.own)
          .map((a) => [a.term, a.share]),
      );
    };
    assert.deepEqual(shares('pg du'), { due: 0.5, dump: 1 }, 'dump is found with pg in 2 pages, due in 1');
    assert.deepEqual(shares('du'), { due: 1, dump: 1 - FREQUENCY_WEIGHT * (1 - 2 / 21) }, 'no other word: by frequency (due in 21 pages, dump in 2), a little');
    const f = forgiven(index, 'pg du', postingsOf(index));
    const view = index.view();
    const w = slotWeights(view, f.slots);
    const weight = (t: string) => w.weights[[...w.termIds].indexOf(view.termId(t)!)]!;
    assert.ok(weight('dump') > 2 * weight('due'), 'blended at dump, not at the more frequent due');
    assert.equal(weight('dump'), view.idf(view.termId('dump')!), '"du" is no word: the completion meant counts fully');
    view.close();
    assert.deepEqual((await ids('pg du')).slice(0, 2).sort(), [1, 2]);
  });
});

describe('two words the pages write as one', () => {
  it('finds the compound for the words typed apart ("named tuple": namedtuple), as fully as the words', async () => {
    const { ids, index } = indexOf([
      ['Collections', 'namedtuple() makes subclasses with fields by name'],
      ['Tuples', 'a tuple is a sequence'],
      ['Named things', 'named arguments and a tuple; sort it, sorta'],
    ]);
    assert.deepEqual((await ids('named tuple')).sort(), [1, 3], 'page 1 holds neither word apart: the compound stands for both');
    const f = forgiven(index, 'named tuple');
    const others = f.slots.map((s) => s.alternatives.filter((a) => !a.own).map((a) => `${a.term} ${a.factor}`));
    assert.deepEqual(others, [['namedtupl 1'], ['namedtupl 1']]);
    assert.deepEqual(forgiven(index, 'tuple named sequence').slots[0]!.alternatives.slice(1), [], 'in this order, the words make no word the index knows');
    assert.ok(!forgiven(index, 'sort a tuple').query.terms.includes('sorta'), 'a word of one letter joins nothing');
    assert.deepEqual(await ids('named tuple', true), [3], 'exact=1: the words as typed');
    assert.deepEqual(await ids('"named tuple"'), [], 'a phrase stays exact');
  });
});

describe('as you type an identifier', () => {
  it('completes it to the identifiers it begins ("pg_lo": pg_locks), not to a page\u2019s words', async () => {
    const { ids, index } = indexOf([
      ['Locks', 'the pg_locks view'],
      ['Large objects', 'lo_import and the pg library'],
      ['Logical', 'pg_logical_emit_message'],
    ]);
    assert.deepEqual((await ids('pg_lo')).sort(), [1, 3], 'not page 2, which holds "pg" and "lo" apart');
    assert.deepEqual(await index.suggest('show pg_lo'), ['show pg_locks', 'show pg_logical_emit_message']);
    assert.deepEqual(await index.suggest('pg_'), ['pg_locks', 'pg_logical_emit_message'], 'an underscore typed: identifiers only');
  });

  it('keeps an identifier typed whole a query of its words, the identifier counting as much as its last', async () => {
    const { ids, index } = indexOf([
      ['Connections', 'max_connections limits clients'],
      ['Settings', 'the max number of connections'],
    ]);
    assert.deepEqual((await ids('max_connections')).sort(), [1, 2], 'pages with its words apart too');
    const f = forgiven(index, 'max_connections');
    assert.deepEqual(
      f.slots.at(-1)!.alternatives.map((a) => [a.term, a.factor]),
      [
        ['connect', 1],
        ['max_connections', 1],
      ],
    );
  });

  it('breaks near ties by how often each completion is found ("pg_re": pg_restore before pg_rewrite)', async () => {
    const { ids } = indexOf([['pg_rewrite', 'pg_rewrite stores rules'], ['pg_restore', 'pg_restore reads an archive'], ...many(4, 'then run pg_restore')]);
    assert.equal((await ids('pg_re'))[0], 2);
  });

  it('marks the words of an identifier completed in snippets', async () => {
    const { index } = indexOf([['Locks', 'the pg_locks view']]);
    assert.match((await index.search('pg_lo')).hits[0]!.snippet, /<mark>locks<\/mark>/);
  });

  it('marks only the words typed of an identifier a plain word completes to ("text": text_to_name)', async () => {
    const { index } = indexOf([['Casts', 'cast varchar to name with text_to_name; varchar is text in all but name']]);
    const f = forgiven(index, 'varchar text');
    assert.ok(f.query.terms.includes('text_to_name'), 'the identifier is a completion of "text"');
    assert.deepEqual(f.marked.filter((t) => !t.includes('_')).sort(), ['text', 'varchar']);
    assert.doesNotMatch((await index.search('varchar text')).hits[0]!.snippet, /<mark>(to|name)<\/mark>/);
  });
});

describe('typos', () => {
  it('corrects an unknown word of 4 characters or more by one edit, and says so', async () => {
    const { index } = indexOf([
      ['Vacuum', 'vacuum reclaims storage'],
      ['Analyze', 'analyze collects statistics'],
    ]);
    const r = await index.search('vacuun storage');
    assert.deepEqual(
      r.hits.map((h) => h.id),
      [1],
    );
    assert.deepEqual(r.corrected, [{ from: 'vacuun', to: 'vacuum' }]);
    assert.match(r.hits[0]!.snippet, /<mark>vacuum<\/mark>/, 'the word taken is marked');
    assert.deepEqual((await index.search('anaylze storage')).corrected, [{ from: 'anaylze', to: 'analyze' }], 'a transposition');
    const exact = await index.search('vacuun storage', { exact: true });
    assert.ok(exact.corrected === undefined && exact.partial, 'exact: no correction (pages with "storage" only)');
  });

  it('corrects by two edits only words of 8 characters or more', async () => {
    const { index } = indexOf([
      ['PostgreSQL', 'postgresql and its tables'],
      ['Replication', 'replication of tables'],
      ['Tables', 'tables'],
    ]);
    assert.deepEqual((await index.search('potsgresq tables')).corrected, [{ from: 'potsgresq', to: 'postgresql' }], '9 characters, 2 edits');
    assert.deepEqual(
      (await index.search('replocatoin tables')).corrected,
      [{ from: 'replocatoin', to: 'replication' }],
      'one edit that changes the stem, one that does not',
    );
    assert.equal((await index.search('tabbelz tables')).corrected, undefined, '7 characters: one edit only');
    assert.deepEqual((await index.search('tabels tables')).corrected, [{ from: 'tabels', to: 'tables' }]);
    assert.deepEqual((await index.search('tabel')).corrected, [{ from: 'tabel', to: 'tables' }], 'the last word, when nothing begins with it');
  });

  it('leaves words of fewer than 4 characters alone', async () => {
    const { index } = indexOf([['Web', 'the web']]);
    assert.equal((await index.search('wbe web')).corrected, undefined);
  });

  it('finds a typo in a word\u2019s ending, which hides its stem ("replicatoin")', async () => {
    const { index } = indexOf([['Replication', 'streaming replication']]);
    const r = await index.search('replicatoin streaming');
    assert.deepEqual(r.corrected, [{ from: 'replicatoin', to: 'replication' }]);
    assert.equal(r.total, 1);
  });

  it('corrects a rare word when a close word is twenty times as frequent, and keeps the rare one first', async () => {
    const { index } = indexOf([['Recieve', 'recieve the data'], ...many(25, 'receive the data')]);
    const r = await index.search('recieve data');
    assert.deepEqual(r.corrected, [{ from: 'recieve', to: 'receive' }]);
    assert.equal(r.total, 26);
    assert.equal(r.hits[0]!.id, 1, 'the page holding the word as typed first');
    const { index: fewer } = indexOf([['Recieve', 'recieve the data'], ...many(10, 'receive the data')]);
    assert.equal((await fewer.search('recieve data')).corrected, undefined, 'only 10 times as frequent');
  });

  it('chooses by frequency against edits, and keeps the first letter', async () => {
    const { index } = indexOf([...many(3, 'server'), ...many(30, 'serve'), ...many(40, 'nerve')]);
    assert.deepEqual(
      (await index.search('serbe x', { page: 1 })).corrected,
      [{ from: 'serbe', to: 'serve' }],
      'serve (30) over nerve (40): the first letter kept',
    );
    assert.deepEqual((await index.search('sercer x')).corrected, [{ from: 'sercer', to: 'server' }], 'one edit from server, two from serve');
  });

  it('takes a word for nearly as likely ones too, and names the one the first result holds', async () => {
    const { index } = indexOf([...many(20, 'let it be'), ...many(3, 'delete rows')]);
    const r = await index.search('elete rows');
    assert.equal(r.total, 3, 'let (20 pages) and delete (3): the other word tells');
    assert.deepEqual(r.corrected, [{ from: 'elete', to: 'delete' }]);
  });

  it('ranks a word one edit away above one two edits away, however frequent, when the typed word is unknown', async () => {
    // graphword1 is on five pages (two edits from graphwrd7), graphword7 on one (one edit).
    const { index } = indexOf([['Seven', 'graphword7 page'], ...many(5, 'graphword1 page')]);
    const r = await index.search('graphwrd7 page');
    assert.equal(r.hits[0]?.id, 1, 'the page holding graphword7 first');
    assert.deepEqual(r.corrected, [{ from: 'graphwrd7', to: 'graphword7' }]);
  });

  it('corrects a last word being typed when a word one edit away is far more frequent ("typs")', async () => {
    const { index } = indexOf([['Typsend', 'typsend function'], ...many(30, 'data types')]);
    const r = await index.search('typs');
    assert.equal(r.total, 31, 'typsend (begun) and types (corrected)');
    assert.deepEqual(r.corrected, [{ from: 'typs', to: 'types' }]);
  });

  it('keeps phrases, -words, +words and "quoted" words exact', async () => {
    const { index } = indexOf([
      ['Vacuum', 'vacuum full reclaims storage'],
      ['Other', 'storage only'],
    ]);
    const uncorrected = async (q: string) => {
      const r = await index.search(q);
      return r.corrected === undefined && !r.hits.some((h) => h.snippet.includes('<mark>vacuum</mark>'));
    };
    assert.ok(await uncorrected('"vacuun full"'), 'a phrase');
    assert.ok(await uncorrected('+vacuun storage'), '+word');
    assert.ok(await uncorrected('"vacuun" storage'), 'a quoted word');
    assert.deepEqual((await index.search('storage -vacuun')).hits.map((h) => h.id).sort(), [1, 2], '-word: no page holds "vacuun"');
    assert.ok(!(await uncorrected('vacuun storage')), 'typed bare, it is corrected');
  });

  it('learns words as pages come (the typo index grows with the dictionary)', async () => {
    const { index, add } = indexOf([['First', 'nothing here']]);
    assert.equal((await index.search('postgress x')).corrected, undefined);
    add('Postgres', 'postgres x');
    assert.deepEqual((await index.search('postgress x')).corrected, [{ from: 'postgress', to: 'postgres' }]);
  });
});

describe('"did you mean" on the same machinery', () => {
  it('prefers a frequent completion to a correction ("semv" → semver, not serve)', async () => {
    const { index } = indexOf([...many(8, 'serve the files'), ...many(4, 'semver ranges')]);
    const r = await index.search('semv files', { exact: true });
    assert.equal(r.suggestion, 'semver files');
  });
});
