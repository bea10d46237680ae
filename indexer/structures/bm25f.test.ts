// BM25F (bm25f.ts) against a naive reference written from the formulas, over a few small
// documents given as words per field: IDF, saturation, length normalisation, field weights, the
// per-field part, the title bonus and the link prior; and the slot scorer against the plain one.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIELDS, type Field } from '../ingest/fields.ts';
import {
  COVERAGE_POWER,
  FIELD_B,
  FIELD_MATCH,
  FIELD_WEIGHT,
  fieldNorms,
  idf,
  impactFunction,
  K1,
  LINK_PRIOR,
  LINK_PRIOR_FULL_AT,
  linkScale,
  scorer,
  type SlotWeights,
  slotScorer,
  TITLE_BONUS,
  titleBonus,
} from './bm25f.ts';
import { indexOf, packFreqs, type DocVector } from './vector.ts';

const F = FIELDS.length;

/** A document as words per field, and the pages linking to it. */
type Doc = { readonly fields: Partial<Record<Field, string>>; readonly inlinks?: number };

const words = (d: Doc, field: Field) => (d.fields[field] ?? '').split(' ').filter(Boolean);

/** The corpus's term ids (by first appearance) and each document's vector. */
function corpus(docs: readonly Doc[]) {
  const ids = new Map<string, number>();
  for (const d of docs) for (const f of FIELDS) for (const w of words(d, f)) if (!ids.has(w)) ids.set(w, ids.size);
  const vectors = docs.map((d): DocVector => {
    const terms = [...new Set(FIELDS.flatMap((f) => words(d, f)))].sort((a, b) => ids.get(a)! - ids.get(b)!);
    const full = new Uint8Array(terms.length * F);
    terms.forEach((t, row) => {
      FIELDS.forEach((f, k) => {
        full[row * F + k] = words(d, f).filter((w) => w === t).length;
      });
    });
    return {
      termIds: Uint32Array.from(terms, (t) => ids.get(t)!),
      freqs: packFreqs(full, terms.length),
      lengths: Uint32Array.from(FIELDS, (f) => words(d, f).length),
      inlinks: d.inlinks ?? 0,
      source: 0,
    };
  });
  const lengthSum = Float64Array.from(FIELDS, (_, k) => vectors.reduce((n, v) => n + v.lengths[k]!, 0));
  const df = (t: string) => docs.filter((d) => FIELDS.some((f) => words(d, f).includes(t))).length;
  return { ids, vectors, impact: impactFunction(fieldNorms(lengthSum, docs.length)), df };
}

/** The score of `d` for the query `terms`, straight from the formulas (bm25f.ts's header). */
function reference(docs: readonly Doc[], d: Doc, terms: readonly string[]): number {
  const n = docs.length;
  const average = (f: Field) => docs.reduce((s, x) => s + words(x, f).length, 0) / n || 1;
  const idfOf = (t: string) => {
    const df = docs.filter((x) => FIELDS.some((f) => words(x, f).includes(t))).length;
    return Math.log(1 + (n - df + 0.5) / (df + 0.5));
  };
  let score = 0;
  let inTitle = 0;
  let covered = 0;
  for (const t of terms) {
    let pseudo = 0;
    let perField = 0;
    for (const f of FIELDS) {
      const tf = words(d, f).filter((w) => w === t).length;
      if (!tf) continue;
      const norm = 1 - FIELD_B[f] + (FIELD_B[f] * words(d, f).length) / average(f);
      pseudo += (FIELD_WEIGHT[f] * tf) / norm;
      perField += (FIELD_WEIGHT[f] * tf * (K1 + 1)) / (tf + K1 * norm);
    }
    if (words(d, 'title').includes(t)) inTitle++;
    if (pseudo > 0) covered += idfOf(t);
    score += idfOf(t) * (pseudo / (K1 + pseudo) + FIELD_MATCH * perField);
  }
  const idfSum = terms.reduce((s, t) => s + idfOf(t), 0);
  if (inTitle) score += TITLE_BONUS * idfSum * (inTitle / terms.length) * Math.min(1, inTitle / words(d, 'title').length);
  // The link prior, in full from an IDF mass of LINK_PRIOR_FULL_AT, in proportion below; a page
  // missing some of the words scores × the share of the IDF mass it holds, to COVERAGE_POWER.
  const coverage = (covered / idfSum) ** COVERAGE_POWER;
  return (score + LINK_PRIOR * Math.min(1, idfSum / LINK_PRIOR_FULL_AT) * Math.log1p(d.inlinks ?? 0)) * coverage;
}

/** The query's scorer over the corpus, as the index makes it: each term's IDF, its id, the impact function. */
function scoreOf(docs: readonly Doc[], terms: readonly string[]): (k: number) => number {
  const c = corpus(docs);
  const known = terms.filter((t) => c.ids.has(t));
  const score = scorer(
    known.map((t) => idf(c.df(t), docs.length)),
    Uint32Array.from(known, (t) => c.ids.get(t)!),
    c.impact,
  );
  return (k) => score(c.vectors[k]!);
}

/** What one term adds to document `k` before its IDF. */
function impactOf(docs: readonly Doc[], k: number, term: string): number {
  const c = corpus(docs);
  const v = c.vectors[k]!;
  return c.impact(v, indexOf(v.termIds, c.ids.get(term)!));
}

const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} ≠ ${expected}`);

const DOCS: readonly Doc[] = [
  { fields: { title: 'vacuum', body: 'vacuum reclaims storage vacuum full rewrites the table' }, inlinks: 3 },
  { fields: { title: 'analyze', headings: 'vacuum analyze', body: 'analyze collects statistics about the table' } },
  { fields: { title: 'tables', body: 'a table holds rows and a table has columns of types' }, inlinks: 1 },
  { fields: { title: 'create table as', description: 'create a table from a query', body: 'create table as runs the query' } },
  { fields: { url: 'vacuum full', anchor: 'vacuum full', body: 'full vacuum locks the table' }, inlinks: 7 },
];

describe('BM25F', () => {
  it('is, by hand, log 2 × (2 / 3.2 + 0.1 × 4.4 / 3.2) for a word twice in a body of average length, in one of two pages', () => {
    // norm = 1 (the body is as long as the average): pseudo-frequency 2, saturated 2 / (1.2 + 2);
    // the per-field part 2 × 2.2 / (2 + 1.2); IDF log(1 + 1.5 / 1.5); no title match, no links.
    const docs: Doc[] = [{ fields: { title: 'one', body: 'word word x y' } }, { fields: { title: 'two', body: 'a b c d' } }];
    close(scoreOf(docs, ['word'])(0), Math.log(2) * (2 / 3.2 + (0.1 * 4.4) / 3.2), 'the score');
  });

  it('scores every document of a small corpus as the formulas do, for queries of one to three words', () => {
    for (const q of [['vacuum'], ['table'], ['vacuum', 'full'], ['create', 'table', 'as'], ['analyze', 'table'], ['rows', 'nowhere']]) {
      const score = scoreOf(DOCS, q);
      const known = q.filter((t) => corpus(DOCS).ids.has(t));
      for (const [k, d] of DOCS.entries()) close(score(k), reference(DOCS, d, known), `${q.join(' ')}: document ${k}`);
    }
  });

  it('weighs a rare term above a common one: IDF falls with the document frequency, and stays above 0', () => {
    const n = 100;
    for (let df = 1; df < n; df++) assert.ok(idf(df, n) > idf(df + 1, n), `df ${df}`);
    assert.ok(idf(n, n) > 0, 'a term in every document still counts a little');
    close(idf(1, 3), Math.log(1 + 2.5 / 1.5), 'idf(1, 3)');
  });

  it('saturates: each occurrence adds less than the one before, and never past 1 + the per-field part’s bound', () => {
    const gains = [];
    let last = 0;
    for (let tf = 1; tf <= 6; tf++) {
      const body = `${'tide '.repeat(tf)}${'x '.repeat(6 - tf)}`.trim();
      const x = impactOf([{ fields: { title: 't', body } }, { fields: { title: 'u', body: 'a b c d e f' } }], 0, 'tide');
      gains.push(x - last);
      last = x;
    }
    for (let i = 1; i < gains.length; i++) assert.ok(gains[i]! < gains[i - 1]! && gains[i]! > 0, `occurrence ${i + 1}`);
    assert.ok(last < 1 + FIELD_MATCH * FIELD_WEIGHT.body * (K1 + 1), `${last}`);
  });

  it('normalises by length: the same occurrences count less in a longer body, less than in proportion', () => {
    const docs = (filler: number): Doc[] => [
      { fields: { title: 't', body: `tide ${'x '.repeat(filler)}`.trim() } },
      { fields: { title: 'u', body: 'a b c d e f g h' } },
    ];
    const short = impactOf(docs(3), 0, 'tide');
    const long = impactOf(docs(30), 0, 'tide');
    assert.ok(long < short, `${long} < ${short}`);
    assert.ok(long > short / 8, 'b < 1: length counts less than in proportion');
  });

  it('weighs a field by its weight: the title over the headings, over the body', () => {
    const at = (field: Field) => {
      const d: Doc = { fields: { title: 'a', headings: 'b', body: 'c', [field]: 'tide' } };
      return impactOf([d, { fields: { title: 'x', headings: 'y', body: 'z' } }], 0, 'tide');
    };
    assert.ok(at('title') > at('headings') && at('headings') > at('body'), `${at('title')} > ${at('headings')} > ${at('body')}`);
  });

  it('gives a title the query fills a bonus of its IDF mass, and a page linked to more a higher prior', () => {
    assert.equal(titleBonus(4, 0, 2, 3), 0);
    close(titleBonus(4, 2, 2, 2), TITLE_BONUS * 4, 'the query is the title');
    close(titleBonus(4, 1, 2, 4), TITLE_BONUS * 4 * 0.5 * 0.25, 'half the query, a quarter of the title');
    const linked = scoreOf(DOCS, ['full']);
    // (Document 4 holds "full" in its URL and anchors and body; the reference says what links add.)
    const full = idf(corpus(DOCS).df('full'), DOCS.length);
    close(linked(4) - reference(DOCS, { fields: DOCS[4]!.fields }, ['full']), LINK_PRIOR * (full / LINK_PRIOR_FULL_AT) * Math.log1p(7), 'the link prior');
  });

  it('gives the link prior in full to a query whose words say enough, and in proportion to one whose words are on most pages', () => {
    assert.equal(linkScale(LINK_PRIOR_FULL_AT), 1);
    assert.equal(linkScale(2 * LINK_PRIOR_FULL_AT), 1);
    close(linkScale(LINK_PRIOR_FULL_AT / 4), 0.25, 'a quarter of the mass');
    // A common word's page with many links in no longer outranks the page titled the word.
    const docs: Doc[] = [
      { fields: { title: 'arc', body: 'arc shares ownership' }, inlinks: 2 },
      { fields: { title: 'arch', body: 'arc arch intrinsics' }, inlinks: 5000 },
      ...Array.from({ length: 8 }, (_, i) => ({ fields: { title: `page ${i}`, body: `arc in a sidebar ${i}` } })),
    ];
    const score = scoreOf(docs, ['arc']);
    assert.ok(score(0) > score(1), `${score(0)} > ${score(1)}`);
  });

  it('scores slots as the plain scorer when each word is its own only alternative, and a slot by its best alternative', () => {
    const c = corpus(DOCS);
    const terms = ['vacuum', 'table'];
    const idfs = terms.map((t) => idf(c.df(t), DOCS.length));
    const slots = (alternatives: readonly (readonly [string, number, number])[]): SlotWeights => ({
      termIds: Uint32Array.from(alternatives, ([t]) => c.ids.get(t)!),
      weights: Float64Array.from(alternatives, ([t, , factor]) => idf(c.df(t), DOCS.length) * factor),
      factors: Float64Array.from(alternatives, ([, , factor]) => factor),
      slotOf: Uint16Array.from(alternatives, ([, slot]) => slot),
      slots: 2,
      words: terms,
      idfSum: idfs[0]! + idfs[1]!,
      slotIdf: Float64Array.of(idfs[0]!, idfs[1]!),
      own: Uint8Array.from(alternatives, ([, , factor]) => (factor === 1 ? 1 : 0)),
      alone: Float64Array.of(1, 1),
    });
    const plain = scorer(
      idfs,
      Uint32Array.from(terms, (t) => c.ids.get(t)!),
      c.impact,
    );
    const bySlot = slotScorer(
      slots([
        ['vacuum', 0, 1],
        ['table', 1, 1],
      ]),
      c.impact,
    );
    for (const [k, v] of c.vectors.entries()) close(bySlot(v), plain(v), `document ${k}`);
    // "rows" stands for "table" at 0.5: a page holding both scores the better of the two, not their sum.
    const withAlternative = slotScorer(
      slots([
        ['vacuum', 0, 1],
        ['table', 1, 1],
        ['rows', 1, 0.5],
      ]),
      c.impact,
    );
    const v = c.vectors[2]!;
    const part = (t: string, factor: number) => factor * idf(c.df(t), DOCS.length) * c.impact(v, indexOf(v.termIds, c.ids.get(t)!));
    const prior = LINK_PRIOR * Math.min(1, (idfs[0]! + idfs[1]!) / LINK_PRIOR_FULL_AT) * Math.log1p(1);
    // (It holds no "vacuum": it scores × the share of the query's IDF that "table" is.)
    const coverage = (idfs[1]! / (idfs[0]! + idfs[1]!)) ** COVERAGE_POWER;
    assert.ok(part('rows', 0.5) > 0 && part('table', 1) > 0, 'document 2 holds both');
    close(withAlternative(v), (Math.max(part('table', 1), part('rows', 0.5)) + prior) * coverage, 'the better alternative');
    assert.ok(withAlternative(v) < (part('table', 1) + part('rows', 0.5) + prior) * coverage, 'not their sum');
  });
});
