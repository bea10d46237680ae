import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { IndexFormatError } from './codec.ts';
import { changed, flushed, lookup, newIndex, page as make, recordEnds, refused } from './snapshot-fixture.ts';
import { flushIndex, loadIndex } from './snapshot.ts';
import { SearchIndex } from '../search-index.ts';
import { setStemming } from '../ingest/tokenize.ts';

describe('flushIndex / loadIndex', () => {
  it('round-trips: the loaded index answers like the flushed one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    for (let i = 1; i <= 200; i++) a.upsert(make(i, `common word${i % 17} text ${i % 2 ? 'odd' : 'even'}`));
    const info = await flushIndex(dir, a, 42);
    assert.equal(info.lastSeq, 42);
    assert.equal(info.documents, 200);
    const b = newIndex();
    const m = loadIndex(dir, b);
    assert.equal(m?.lastSeq, 42);
    for (const q of ['common', 'word3 odd', 'even -word4', 'heading']) {
      assert.deepEqual(
        (await b.search(q, { size: 100 })).hits.map((h) => [h.id, h.score]),
        (await a.search(q, { size: 100 })).hits.map((h) => [h.id, h.score]),
        q,
      );
    }
  });

  it('rebuilds the postings on load: updates and removes stay fast and correct', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    for (let i = 1; i <= 50; i++) a.upsert(make(i, `shared unique${i}`));
    await flushIndex(dir, a, 1);
    const b = newIndex();
    loadIndex(dir, b);
    // Postings made from the vectors, FlexSearch keeping a set of ids and no register of references
    // (a remove is made from the document's terms, postings.ts; FlexSearch's own would scan the index).
    const flex = (b.postings.flex as unknown as { index: { reg: unknown; fastupdate: boolean } }).index;
    assert.ok(flex.reg instanceof Set);
    assert.equal(flex.fastupdate, false);
    b.remove(7);
    b.upsert(make(8, 'replaced'));
    assert.equal((await b.search('shared', { size: 100 })).total, 48);
    assert.equal((await b.search('unique7', { exact: true })).total, 0);
    assert.equal((await b.search('unique8', { exact: true })).total, 0);
    assert.deepEqual(
      (await b.search('replaced')).hits.map((h) => h.id),
      [8],
    );
  });

  it('lets searches run while it writes, holding the thread only for short slices', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    for (let i = 1; i <= 3000; i++) a.upsert(make(i, `bulk text number${i} ${'filler '.repeat(50)} word${i % 97}`));
    let searches = 0;
    let writing = true;
    const searching = (async () => {
      while (writing) {
        await new Promise((r) => setImmediate(r));
        if ((await a.search('word5')).total > 0) searches++;
      }
    })();
    const info = await flushIndex(dir, a, 1);
    writing = false;
    await searching;
    assert.ok(searches > 0, 'searches ran during the flush');
    assert.ok(info.maxPauseMs < 200, `longest slice ${info.maxPauseMs} ms`);
    const b = newIndex();
    loadIndex(dir, b);
    assert.equal((await b.search('bulk', { size: 1 })).total, 3000);
  });

  it('writes a consistent snapshot while the index changes under it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    for (let i = 1; i <= 2000; i++) a.upsert(make(i, `before ${'pad '.repeat(40)}`));
    const flushing = flushIndex(dir, a, 1);
    // Changes after the snapshot (they would be replayed from the change log on load).
    for (let i = 1; i <= 100; i++) a.remove(i);
    a.upsert(make(5000, 'after'));
    await flushing;
    const b = newIndex();
    loadIndex(dir, b);
    assert.equal((await b.search('before', { size: 1 })).total, 2000);
    assert.equal((await b.search('after')).total, 0);
  });

  it('replaces the manifest atomically and deletes older generations', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    a.upsert(make(1, 'one'));
    await flushIndex(dir, a, 1);
    a.upsert(make(2, 'two'));
    const second = await flushIndex(dir, a, 2);
    assert.equal(second.generation, 2);
    assert.deepEqual(readdirSync(dir).sort(), ['gen-2', 'manifest.json']);
  });

  it('never reads a half-written flush: files of an unfinished generation are ignored', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    a.upsert(make(1, 'committed'));
    await flushIndex(dir, a, 1);
    // A flush that crashed before renaming its manifest leaves gen-2 behind, half written.
    mkdirSync(join(dir, 'gen-2'));
    writeFileSync(join(dir, 'gen-2', 'terms.json'), '["trunc');
    writeFileSync(join(dir, 'manifest.json.tmp'), '{"format":1,"generation":2');
    const b = newIndex();
    assert.equal(loadIndex(dir, b)?.generation, 1);
    assert.deepEqual(
      (await b.search('committed')).hits.map((h) => h.id),
      [1],
    );
  });

  it('refuses a format it does not know', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ format: 99, generation: 1 }));
    assert.throws(() => loadIndex(dir, newIndex()), IndexFormatError);
  });

  it('refuses an index built with another stemming (the appliance then rebuilds it)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    a.upsert(make(1, 'indexes everywhere'));
    await flushIndex(dir, a, 1);
    setStemming('none');
    try {
      assert.throws(() => loadIndex(dir, newIndex()), /stemming "language"; index.stemming is now "none"/);
    } finally {
      setStemming('language');
    }
    assert.deepEqual(loadIndex(dir, newIndex())?.stemming, 'language');
  });

  it('keeps in-link counts and anchor text through a flush', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const anchors = (id: number) => (id === 1 ? { texts: ['linkedword'], sources: 7 } : { texts: [], sources: 0 });
    const a = new SearchIndex(lookup, anchors);
    a.upsert(make(1, 'alpha'));
    a.upsert(make(2, 'alpha'));
    await flushIndex(dir, a, 2);
    const b = new SearchIndex(lookup, anchors);
    loadIndex(dir, b);
    assert.deepEqual(
      (await b.search('linkedword')).hits.map((h) => h.id),
      [1],
    );
    assert.deepEqual(
      (await b.search('alpha')).hits.map((h) => h.id),
      [1, 2],
      'the much-linked page first',
    );
  });

  it('returns undefined when nothing was flushed yet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    assert.equal(loadIndex(dir, newIndex()), undefined);
    assert.equal(existsSync(join(dir, 'manifest.json')), false);
  });
});

describe('a damaged snapshot', () => {
  it('is refused, naming the file, whatever happened to vectors.bin: truncated, overwritten, a byte flipped, gone', async () => {
    const { dir, gen } = await flushed();
    const file = join(gen, 'vectors.bin');
    const good = readFileSync(file);
    const ends = recordEnds(good);
    assert.equal(ends.at(-1), good.length, 'the fixture reads the records as the format lays them out');
    const cuts = {
      empty: 0,
      'inside the header': 7,
      'the header alone': 16,
      "inside the first record's head": 16 + 20,
      'inside a vector': ends[10]! - 6,
      'at a record boundary': ends[10]!,
      'at the last record boundary but one': ends.at(-2)!,
      'one byte short': good.length - 1,
    };
    for (const [where, length] of Object.entries(cuts)) {
      writeFileSync(file, good.subarray(0, length));
      refused(dir, 'vectors.bin', `truncated ${where} (${length} bytes)`);
    }
    writeFileSync(
      file,
      changed(good, (b) => b.fill(0xab, 100, 180)),
    );
    refused(dir, 'vectors.bin', 'overwritten in the middle');
    writeFileSync(
      file,
      changed(good, (b) => b.fill(0, 0, 4)),
    );
    refused(dir, 'vectors.bin', 'the magic overwritten');
    writeFileSync(
      file,
      changed(good, (b) => (b[good.length >> 1] = b[good.length >> 1]! ^ 0x01)),
    );
    refused(dir, 'vectors.bin', 'one bit flipped');
    writeFileSync(file, Buffer.concat([good, Buffer.alloc(8)]));
    refused(dir, 'vectors.bin', 'bytes appended');
    rmSync(file);
    refused(dir, 'vectors.bin', 'deleted');
    mkdirSync(file);
    refused(dir, 'vectors.bin', 'a folder in its place');
    rmSync(file, { recursive: true });
    writeFileSync(file, good);
    assert.equal(loadIndex(dir, newIndex())?.documents, 60, 'restored, it loads');
  });

  it('is refused when terms.json is damaged', async () => {
    const { dir, gen } = await flushed();
    const terms = join(gen, 'terms.json');
    const good = readFileSync(terms);
    writeFileSync(terms, good.subarray(0, good.length - 3));
    refused(dir, 'terms.json', 'truncated JSON');
    writeFileSync(
      terms,
      changed(good, (b) => (b[5] = 0x5a)),
    );
    refused(dir, 'terms.json', 'a byte changed');
    writeFileSync(terms, '{"sources":[],"terms":[]}');
    refused(dir, 'terms.json', 'replaced by other, well-formed dictionaries');
    rmSync(terms);
    refused(dir, 'terms.json', 'deleted');
    rmSync(gen, { recursive: true });
    refused(dir, 'terms.json', 'the whole generation folder gone');
  });

  it('is refused when the manifest is garbage, of the wrong shape, or changed', async () => {
    const { dir, gen } = await flushed();
    const manifest = join(dir, 'manifest.json');
    const text = readFileSync(manifest, 'utf8');
    const m = JSON.parse(text) as { lastSeq: number; files: Record<string, { bytes: number; crc32: number }> };
    const size = m.files['terms.json']!.bytes;
    writeFileSync(manifest, JSON.stringify({ ...m, files: { ...m.files, 'terms.json': { bytes: size, crc32: 1 } } }));
    refused(dir, 'manifest.json', "a file's checksum changed (the manifest's own does not match)");
    const cases = {
      'cut short': '{"format": 6, "generation": 1',
      empty: '',
      null: 'null',
      'an array': '[]',
      'a number': '6',
      'without its files': JSON.stringify({ ...m, files: undefined }),
      'a generation that is not a number': JSON.stringify({ ...m, generation: 'two' }),
      'without its own checksum': JSON.stringify({ ...m, crc32: undefined }),
      // A digit of lastSeq changed: without the manifest's own checksum the changes after the
      // flush would silently never be replayed.
      'lastSeq changed': text.replace(`"lastSeq": ${m.lastSeq}`, `"lastSeq": ${m.lastSeq + 1}`),
      'binary noise': Buffer.from([0xff, 0xfe, 0x00, 0x7b]).toString('latin1'),
    };
    for (const [what, garbage] of Object.entries(cases)) {
      assert.notEqual(garbage, text, what);
      writeFileSync(manifest, garbage);
      refused(dir, 'manifest.json', `manifest ${what}`);
    }
    rmSync(manifest);
    mkdirSync(manifest);
    refused(dir, 'manifest.json', 'a folder in its place');
    rmSync(manifest, { recursive: true });
    writeFileSync(manifest, text);
    assert.equal(loadIndex(dir, newIndex())?.lastSeq, 9, 'restored, it loads');
    assert.ok(existsSync(gen));
  });

  it('is refused when a format-5 manifest (without checksums) is found: the caller rebuilds', async () => {
    const { dir } = await flushed();
    const manifest = join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    writeFileSync(manifest, JSON.stringify({ ...m, format: 5, files: undefined, crc32: undefined }));
    refused(dir, 'manifest.json', 'the old format');
    assert.throws(() => loadIndex(dir, newIndex()), /index format 5; this Trawl reads format 6/);
  });

  it('catches any single byte changed anywhere in its files (200 + 50 seeded trials)', async () => {
    const { dir, gen } = await flushed();
    let seed = 7;
    const random = (n: number) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
    for (const [name, trials] of [
      ['vectors.bin', 200],
      ['terms.json', 50],
    ] as const) {
      const file = join(gen, name);
      const good = readFileSync(file);
      for (let t = 0; t < trials; t++) {
        const at = random(good.length);
        writeFileSync(
          file,
          changed(good, (b) => (b[at] = (b[at]! + 1 + random(255)) & 0xff)),
        );
        refused(dir, name, `${name}: byte ${at} changed`);
      }
      writeFileSync(file, good);
    }
    assert.equal(loadIndex(dir, newIndex())?.documents, 60);
  });

  it('leaves the index it was loading into empty, and usable for the rebuild', async () => {
    const { dir, gen } = await flushed();
    writeFileSync(
      join(gen, 'vectors.bin'),
      changed(readFileSync(join(gen, 'vectors.bin')), (b) => (b[b.length - 2] = b[b.length - 2]! ^ 0xff)),
    );
    const index = newIndex();
    assert.throws(() => loadIndex(dir, index), IndexFormatError);
    assert.equal(index.documentCount, 0);
    assert.equal(index.stats.termCount, 0);
    // The caller's rebuild, into the very same index.
    for (let i = 1; i <= 5; i++) index.upsert(make(i, `rebuilt page${i}`));
    assert.equal((await index.search('rebuilt', { size: 10 })).total, 5);
    assert.deepEqual(
      (await index.search('page3')).hits.map((h) => h.id),
      [3],
    );
  });

  it('refuses to load into an index that is not empty (a plain Error: the caller is wrong, not the files)', async () => {
    const { dir } = await flushed();
    const index = newIndex();
    index.upsert(make(1, 'already here'));
    assert.throws(
      () => loadIndex(dir, index),
      (e: unknown) => e instanceof Error && !(e instanceof IndexFormatError) && /needs an empty index/.test(e.message),
    );
    assert.equal(index.documentCount, 1);
  });

  it('is replaced by the next flush, in a generation no manifest or leftover folder names', async () => {
    const { dir, gen } = await flushed();
    writeFileSync(join(dir, 'manifest.json'), '{"garbage');
    mkdirSync(join(dir, 'gen-7'));
    const a = newIndex();
    a.upsert(make(1, 'fresh start'));
    const info = await flushIndex(dir, a, 3);
    assert.equal(info.generation, 8);
    assert.deepEqual(readdirSync(dir).sort(), ['gen-8', 'manifest.json']);
    assert.equal(existsSync(gen), false);
    const b = newIndex();
    assert.equal(loadIndex(dir, b)?.lastSeq, 3);
    assert.deepEqual(
      (await b.search('fresh')).hits.map((h) => h.id),
      [1],
    );
  });
});
