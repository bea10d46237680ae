import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { joinTextItems, textInRect, type PdfTextItem } from './pdf-text.ts';

/** An item of `str` at (x, y), 10 pt, about 5 pt per character. */
const item = (str: string, x: number, y: number, hasEOL = false): PdfTextItem => ({
  str,
  hasEOL,
  transform: [10, 0, 0, 10, x, y],
  width: str.length * 5,
  height: 10,
});

describe('joinTextItems', () => {
  it('keeps line ends and the spaces PDF.js gives', () => {
    assert.equal(joinTextItems([item('one two', 0, 100), item(' three', 35, 100, true), item('four', 0, 88)]), 'one two three\nfour');
  });

  it('keeps apart items that touch nothing in between: table cells, the next line', () => {
    assert.equal(joinTextItems([item('cell', 0, 100), item('other', 100, 100), item('below', 0, 80)]), 'cell other\nbelow');
  });

  it('joins items of one word (a change of font mid-word)', () => {
    assert.equal(joinTextItems([item('Bold', 0, 100), item('face', 20, 100)]), 'Boldface');
  });

  it('joins words hyphenated at a line end, and keeps a hyphen before a capital or inside a line', () => {
    assert.equal(joinTextItems([item('the infor-', 0, 100, true), item('mation age', 0, 88)]), 'the information\nage');
    assert.equal(joinTextItems([item('Jean-', 0, 100, true), item('Paul', 0, 88)]), 'Jean-\nPaul');
    assert.equal(joinTextItems([item('well-known', 0, 100)]), 'well-known');
  });
});

describe('textInRect', () => {
  it('takes the items whose origin lies in the rectangle', () => {
    assert.equal(textInRect([item('out', 0, 0), item('in', 50, 100), item('side', 70, 100)], [45, 95, 200, 115]), 'in side');
  });
});
