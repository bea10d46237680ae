import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FIELDS } from '../ingest/fields.ts';
import { inTitle, packFreqs, tfAt, unpackFreqs, type DocVector } from './vector.ts';

const F = FIELDS.length;
const BODY = FIELDS.indexOf('body');

/** A vector of `rows` terms whose frequencies are `full` (row-major, F a row). */
const vectorOf = (full: Uint8Array, rows: number): DocVector => ({
  termIds: Uint32Array.from({ length: rows }, (_, i) => i),
  freqs: packFreqs(full, rows),
  lengths: new Uint32Array(F),
  inlinks: 0,
  source: 0,
});

describe('packed frequencies', () => {
  it('give back every frequency of every field, rows past 65,535 included, at one byte a body-only row', () => {
    const rows = 70_000;
    const full = new Uint8Array(rows * F);
    for (let r = 0; r < rows; r++) full[r * F + BODY] = (r % 255) + 1;
    // Some rows in other fields too: the first, the last, rows past 2^16, one with 255s.
    const others = [0, 1, 7, 300, 65_535, 65_536, 69_998, rows - 1];
    others.forEach((r, i) => {
      for (let f = 0; f < BODY; f++) full[r * F + f] = (i * 7 + f * 13) % 256;
    });
    for (let f = 0; f < F; f++) full[300 * F + f] = 255;
    const v = vectorOf(full, rows);
    assert.equal(v.freqs.length, rows + 8 * others.length);
    assert.deepEqual(unpackFreqs(v), full);
    for (const r of [...others, 2, 12_345, 65_537, 69_999 - 2]) {
      for (let f = 0; f < F; f++) assert.equal(tfAt(v, r, f), full[r * F + f], `row ${r}, field ${FIELDS[f]}`);
      assert.equal(inTitle(v, r), full[r * F + FIELDS.indexOf('title')] !== 0);
    }
  });

  it('handle a vector with no term, and one with no body', () => {
    assert.deepEqual(unpackFreqs(vectorOf(new Uint8Array(0), 0)), new Uint8Array(0));
    const full = Uint8Array.from({ length: 3 * F }, (_, i) => (i % F === BODY ? 0 : i + 1));
    const v = vectorOf(full, 3);
    assert.deepEqual(unpackFreqs(v), full);
    assert.equal(tfAt(v, 2, BODY), 0);
    assert.equal(tfAt(v, 2, 0), 2 * F + 1);
  });
});
