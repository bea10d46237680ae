// What analyze() makes of a page's fields: the headings field's length, by which BM25F normalizes
// it — an HTML page's is one heading's (each heading stands for its section), a document's the sum.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyze } from './analyze.ts';
import { FIELDS } from './fields.ts';

const HEADINGS = FIELDS.indexOf('headings');
const page = (headings: string[], document?: { format: 'pdf' }) => ({
  url: 'http://e.org/error-index.html',
  title: 'Error index',
  description: '',
  headings,
  text: 'the body',
  ...(document ? { document } : {}),
});

describe('analyze: the headings field', () => {
  it('is as long as one of an HTML page\u2019s headings, on average, however many it has', () => {
    const codes = Array.from({ length: 500 }, (_, i) => `E${String(i).padStart(4, '0')} explained`);
    assert.equal(analyze(page(codes)).lengths[HEADINGS], 2, 'two words a heading');
    assert.equal(analyze(page(['One two three', 'four'])).lengths[HEADINGS], 2, 'four words over two headings');
    assert.equal(analyze(page(['Only one heading here'])).lengths[HEADINGS], 4);
    // Every heading's words are still counted: E0382's heading is a match, not drowned by 499 others.
    const a = analyze(page(codes));
    const row = a.terms.indexOf('e0382');
    assert.ok(row >= 0 && a.tf[row * FIELDS.length + HEADINGS] === 1);
  });

  it('is the sum of a document\u2019s headings (its outline): a manual is not the answer to each chapter\u2019s title', () => {
    const chapters = Array.from({ length: 40 }, (_, i) => `Chapter ${i} title`);
    assert.equal(analyze(page(chapters, { format: 'pdf' })).lengths[HEADINGS], 120);
    assert.equal(analyze(page(chapters)).lengths[HEADINGS], 3);
  });
});
