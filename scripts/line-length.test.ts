import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { longLines, MAX_LINE } from './line-length.ts';

describe('scripts/line-length: lines over the formatter width', () => {
  it('names each line over the limit by its number and length, and none at the limit', () => {
    const text = ['short', 'x'.repeat(MAX_LINE), 'y'.repeat(MAX_LINE + 1), '', 'z'.repeat(MAX_LINE + 40)].join('\n');
    assert.deepEqual(longLines(text), [
      { line: 3, length: MAX_LINE + 1 },
      { line: 5, length: MAX_LINE + 40 },
    ]);
  });

  it('counts characters as an editor does, not bytes: a line of CJK text is its characters long', () => {
    // (60 characters of three UTF-8 bytes each: 180 bytes, under the limit.)
    assert.deepEqual(longLines('日本語'.repeat(20)), []);
    assert.deepEqual(longLines('日'.repeat(MAX_LINE + 1)), [{ line: 1, length: MAX_LINE + 1 }]);
  });
});
