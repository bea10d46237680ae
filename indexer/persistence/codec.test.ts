import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FIELDS } from '../ingest/fields.ts';
import { decodeTerms, decodeVectors, IndexFormatError } from './codec.ts';
import { sealManifest, type Manifest } from './manifest.ts';
import { changed, flushed, newIndex, page, recordEnds, refused, resign } from './snapshot-fixture.ts';
import { flushIndex, loadIndex } from './snapshot.ts';

/** A copy of `buf` with the 32-bit word at byte `at` set to `value`. */
const withWord = (buf: Buffer, at: number, value: number) => changed(buf, (b) => b.writeUInt32LE(value, at));

describe('the vectors.bin decoder (without checksums: what they would not catch)', () => {
  it('refuses records that run past the end, term ids out of range or out of order, a document twice', async () => {
    const a = newIndex();
    for (let i = 1; i <= 3; i++) a.upsert(page(i, `alpha beta word${i}`));
    const dir = mkdtempSync(join(tmpdir(), 'trawl-codec-'));
    const info = await flushIndex(dir, a, 1);
    const buf = readFileSync(join(dir, `gen-${info.generation}`, 'vectors.bin'));
    const terms = info.terms;
    const [first, second] = recordEnds(buf) as [number, number, number];
    assert.equal(decodeVectors(buf, terms, 1).length, 3);
    assert.throws(() => decodeVectors(buf, 2, 1), /term id \d+ \(of 2;/, 'term ids beyond the dictionary');
    assert.throws(() => decodeVectors(buf, terms, 0), /source 0 of 0/);
    assert.throws(() => decodeVectors(withWord(buf, 0, 0x12345678), terms, 1), /not a Trawl index file/);
    assert.throws(() => decodeVectors(withWord(buf, 4, 5), terms, 1), /format 5, not 6/);
    assert.throws(() => decodeVectors(withWord(buf, 12, FIELDS.length + 1), terms, 1), /fields, not/);
    assert.throws(() => decodeVectors(withWord(buf, 8, 4), terms, 1), /runs past the end/, 'four documents announced, three present');
    assert.throws(() => decodeVectors(withWord(buf, 8, 2), terms, 1), /bytes after the last of 2 documents/);
    assert.throws(() => decodeVectors(withWord(buf, 16 + 4, 0x7fffffff), terms, 1), /past the end of the file/, "the first document's term count");
    // The second record's id made the first's.
    assert.throws(() => decodeVectors(withWord(buf, first, buf.readUInt32LE(16)), terms, 1), /document 1 twice/);
    // The third record's first two term ids swapped.
    const ids = second + 4 * (4 + FIELDS.length);
    const swapped = withWord(withWord(buf, ids, buf.readUInt32LE(ids + 4)), ids + 4, buf.readUInt32LE(ids));
    assert.throws(() => decodeVectors(swapped, terms, 1), /ids sorted, each once/);
    assert.throws(() => decodeVectors(buf.subarray(0, second), terms, 1), /document 2 of 3 runs past the end/, 'cut at a record boundary');
    assert.throws(() => decodeVectors(buf.subarray(0, 10), terms, 1), /10 bytes is not a whole file/);
    for (const bad of [withWord(buf, 0, 0), buf.subarray(0, second), Buffer.alloc(0)]) {
      assert.throws(
        () => decodeVectors(bad, terms, 1, '/x/vectors.bin'),
        (e: unknown) => e instanceof IndexFormatError && e.message.startsWith('/x/vectors.bin: '),
      );
    }
  });
});

describe('the terms.json decoder', () => {
  it('refuses what is not JSON, not the dictionaries, or holds a term or a source twice', () => {
    const source = { host: 'e.org', lang: 'en', type: 'html', topics: '' };
    const ok = decodeTerms(JSON.stringify({ sources: [source, { ...source, topics: 'x' }], terms: ['a', 'b'] }));
    assert.deepEqual(ok.terms, ['a', 'b']);
    assert.equal(ok.sources.length, 2);
    const cases: [string, RegExp][] = [
      ['{"sources":[],"terms":["a"', /not JSON/],
      ['null', /not the term and source dictionaries/],
      ['{"sources":[],"terms":{}}', /not the term and source dictionaries/],
      ['{"terms":[]}', /not the term and source dictionaries/],
      ['{"sources":[],"terms":["a",7]}', /term 1 is not a string/],
      ['{"sources":[],"terms":["a","b","a"]}', /term 2 \("a"\) twice/],
      [JSON.stringify({ sources: [null], terms: [] }), /source 0 is not/],
      [JSON.stringify({ sources: [{ ...source, lang: 1 }], terms: [] }), /source 0 is not/],
      [JSON.stringify({ sources: [{ ...source, topics: 5 }], terms: [] }), /source 0 is not/],
      [JSON.stringify({ sources: [source, { ...source }], terms: [] }), /source 1 twice/],
    ];
    for (const [text, problem] of cases) {
      assert.throws(
        () => decodeTerms(text, '/x/terms.json'),
        (e: unknown) => e instanceof IndexFormatError && e.message.startsWith('/x/terms.json: ') && problem.test(e.message),
        text,
      );
    }
  });
});

describe('a snapshot damaged behind valid checksums (a file re-signed)', () => {
  it('is refused by the decoders, through loadIndex, naming the file', async () => {
    const { dir, gen } = await flushed();
    const vectors = readFileSync(join(gen, 'vectors.bin'));
    const terms = JSON.parse(readFileSync(join(gen, 'terms.json'), 'utf8')) as { sources: unknown[]; terms: string[] };
    const ends = recordEnds(vectors);
    // What was damaged, the file changed, its bytes, and the file the refusal names.
    const damages: [string, 'vectors.bin' | 'terms.json', Buffer | string, string][] = [
      ['a wrong magic', 'vectors.bin', withWord(vectors, 0, 0), 'vectors.bin'],
      ['a document twice', 'vectors.bin', withWord(vectors, ends[3]!, vectors.readUInt32LE(16)), 'vectors.bin'],
      ['cut at a record boundary', 'vectors.bin', vectors.subarray(0, ends[30]!), 'vectors.bin'],
      ['cut inside the header', 'vectors.bin', vectors.subarray(0, 8), 'vectors.bin'],
      ['a term id past the dictionary', 'terms.json', JSON.stringify({ ...terms, terms: terms.terms.slice(0, 3) }), 'terms.json holds 3 terms'],
      ['a source id past the dictionary', 'terms.json', JSON.stringify({ ...terms, sources: [] }), 'vectors.bin: document 1 has source 0 of 0'],
      ['a term twice', 'terms.json', JSON.stringify({ ...terms, terms: [...terms.terms.slice(0, -1), terms.terms[0]] }), 'terms.json'],
      ['dictionaries of the wrong shape', 'terms.json', JSON.stringify({ terms: 5 }), 'terms.json'],
      ['not JSON', 'terms.json', '{"sources":', 'terms.json'],
    ];
    const originals = { 'vectors.bin': vectors, 'terms.json': readFileSync(join(gen, 'terms.json')) };
    for (const [what, name, bytes, names] of damages) {
      resign(dir, name, bytes);
      refused(dir, names, what);
      resign(dir, name, originals[name]);
    }
    assert.equal(loadIndex(dir, newIndex())?.documents, 60, 'restored and re-signed, it loads');
  });

  it('refuses a manifest whose own checksum matches but whose fields are of the wrong shape', async () => {
    const { dir } = await flushed();
    const file = join(dir, 'manifest.json');
    const { crc32: _seal, ...m } = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
    for (const wrong of [{ generation: 'two' }, { lastSeq: -1 }, { files: { 'terms.json': m.files['terms.json'] } }, { createdAt: 5 }]) {
      writeFileSync(file, JSON.stringify(sealManifest({ ...m, ...(wrong as object) } as Manifest)));
      refused(dir, 'manifest.json', JSON.stringify(wrong));
      assert.throws(() => loadIndex(dir, newIndex()), /a field is missing or of the wrong type/);
    }
  });

  it('either loads into a working index or throws IndexFormatError, whatever one byte becomes (300 + 100 seeded trials)', async () => {
    const { dir, gen } = await flushed();
    let seed = 11;
    const random = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    const outcomes = { refused: 0, loaded: 0 };
    for (const [name, trials] of [
      ['vectors.bin', 300],
      ['terms.json', 100],
    ] as const) {
      const good = readFileSync(join(gen, name));
      for (let t = 0; t < trials; t++) {
        const at = random(good.length);
        const value = (good[at]! + 1 + random(255)) & 0xff;
        // Every fifth trial cuts the file there instead.
        const bytes = t % 5 === 4 ? good.subarray(0, at) : changed(good, (b) => (b[at] = value));
        resign(dir, name, bytes);
        const index = newIndex();
        const what = `${name}: ${t % 5 === 4 ? `cut at ${at}` : `byte ${at} made ${value}`}`;
        try {
          loadIndex(dir, index);
        } catch (e) {
          assert.ok(e instanceof IndexFormatError, `${what}: ${String(e)}`);
          assert.equal(index.documentCount + index.stats.termCount, 0, `${what}: refused, the index is untouched`);
          outcomes.refused++;
          continue;
        }
        // Damage the decoders cannot tell (a frequency, a length, an id, a letter of a term) still makes a working index.
        assert.equal(index.documentCount, 60, `${what}: loaded, every document is there`);
        await index.search('damage text', { size: 5 });
        await index.search('"test word3"', { size: 5 });
        outcomes.loaded++;
      }
      resign(dir, name, good);
    }
    assert.equal(outcomes.refused + outcomes.loaded, 400);
    assert.ok(outcomes.refused > 100, `refused ${outcomes.refused} of 400`);
    assert.equal(loadIndex(dir, newIndex())?.documents, 60);
  });
});
