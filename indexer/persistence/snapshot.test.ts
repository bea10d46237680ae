import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
import { decodeVectors } from './codec.ts';
import { flushIndex, IndexFormatError, loadIndex } from './snapshot.ts';
import { SearchIndex } from '../search-index.ts';
import { setStemming } from '../ingest/tokenize.ts';

const store = new Map<number, StoredDocument>();
const make = (id: number, text: string): StoredDocument => {
  const d = { id, url: `http://e.org/${id}`, title: `Doc ${id}`, description: '', headings: ['Heading'], text, contentType: 'text/html', bytes: 1, truncated: false, httpStatus: 200, fetchedAt: 0, hash: '' };
  store.set(id, d);
  return d;
};
const newIndex = () => new SearchIndex((id) => store.get(id));

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

  it('rebuilds the postings on load: updates and removes stay fast and correct (fastupdate)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const a = newIndex();
    for (let i = 1; i <= 50; i++) a.upsert(make(i, `shared unique${i}`));
    await flushIndex(dir, a, 1);
    const b = newIndex();
    loadIndex(dir, b);
    // FlexSearch's fastupdate register was rebuilt: a remove does not scan the whole index.
    assert.ok((b.postings as unknown as { index: { reg: unknown } }).index.reg instanceof Map);
    b.remove(7);
    b.upsert(make(8, 'replaced'));
    assert.equal((await b.search('shared', { size: 100 })).total, 48);
    assert.equal((await b.search('unique7')).total, 0);
    assert.equal((await b.search('unique8')).total, 0);
    assert.deepEqual((await b.search('replaced')).hits.map((h) => h.id), [8]);
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
    assert.deepEqual((await b.search('committed')).hits.map((h) => h.id), [1]);
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
      assert.throws(() => loadIndex(dir, newIndex()), /stemming "english"; index.stemming is now "none"/);
    } finally {
      setStemming('english');
    }
    assert.deepEqual(loadIndex(dir, newIndex())?.stemming, 'english');
  });

  it('keeps in-link counts and anchor text through a flush', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    const anchors = (id: number) => (id === 1 ? { texts: ['linkedword'], sources: 7 } : { texts: [], sources: 0 });
    const a = new SearchIndex((id) => store.get(id), anchors);
    a.upsert(make(1, 'alpha'));
    a.upsert(make(2, 'alpha'));
    await flushIndex(dir, a, 2);
    const b = new SearchIndex((id) => store.get(id), anchors);
    loadIndex(dir, b);
    assert.deepEqual((await b.search('linkedword')).hits.map((h) => h.id), [1]);
    assert.deepEqual((await b.search('alpha')).hits.map((h) => h.id), [1, 2], 'the much-linked page first');
  });

  it('returns undefined when nothing was flushed yet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-index-'));
    assert.equal(loadIndex(dir, newIndex()), undefined);
    assert.equal(existsSync(join(dir, 'manifest.json')), false);
  });
});

describe('a damaged snapshot', () => {
  /** A flushed index of 60 documents in a fresh directory; returns the directory and its generation folder. */
  const flushed = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trawl-damage-'));
    const a = newIndex();
    for (let i = 1; i <= 60; i++) a.upsert(make(i, `damage test word${i % 7} ${'text '.repeat(i % 5)}`));
    const info = await flushIndex(dir, a, 9);
    return { dir, gen: join(dir, `gen-${info.generation}`) };
  };
  /** loadIndex throws IndexFormatError naming `file` (and nothing else: no RangeError, no SyntaxError). */
  const refused = (dir: string, file: string, what: string) =>
    assert.throws(() => loadIndex(dir, newIndex()), (e: unknown) => e instanceof IndexFormatError && e.message.includes(file), what);
  /** A copy of `bytes` with `change` applied. */
  const changed = (bytes: Buffer, change: (b: Buffer) => void) => {
    const b = Buffer.from(bytes);
    change(b);
    return b;
  };

  it('is refused, naming the file, whatever happened to vectors.bin: truncated, overwritten, a byte flipped, gone', async () => {
    const { dir, gen } = await flushed();
    const file = join(gen, 'vectors.bin');
    const good = readFileSync(file);
    // Inside the header, inside the first vector, at a record's end, one byte short.
    for (const length of [0, 7, 16, 40, 16 + 4 * 10, good.length - 1]) {
      writeFileSync(file, good.subarray(0, length));
      refused(dir, 'vectors.bin', `truncated at ${length}`);
    }
    writeFileSync(file, changed(good, (b) => b.fill(0xab, 100, 180)));
    refused(dir, 'vectors.bin', 'overwritten in the middle');
    writeFileSync(file, changed(good, (b) => (b[good.length >> 1] ^= 0x01)));
    refused(dir, 'vectors.bin', 'one bit flipped');
    writeFileSync(file, Buffer.concat([good, Buffer.alloc(8)]));
    refused(dir, 'vectors.bin', 'bytes appended');
    rmSync(file);
    refused(dir, 'vectors.bin', 'deleted');
    writeFileSync(file, good);
    assert.equal(loadIndex(dir, newIndex())?.documents, 60, 'restored, it loads');
  });

  it('is refused when terms.json or the manifest is damaged', async () => {
    const { dir, gen } = await flushed();
    const terms = join(gen, 'terms.json');
    const good = readFileSync(terms);
    writeFileSync(terms, good.subarray(0, good.length - 3));
    refused(dir, 'terms.json', 'truncated JSON');
    writeFileSync(terms, changed(good, (b) => (b[5] = 0x5a)));
    refused(dir, 'terms.json', 'a byte changed');
    rmSync(terms);
    refused(dir, 'terms.json', 'deleted');
    writeFileSync(terms, good);
    const manifest = join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as { files: Record<string, { crc32: number }> };
    writeFileSync(manifest, JSON.stringify({ ...m, files: { ...m.files, 'terms.json': { bytes: good.length, crc32: 1 } } }));
    refused(dir, 'terms.json', 'a checksum that does not match');
    for (const garbage of ['{"format": 6, "generation": 1', 'null', '[]', JSON.stringify({ ...m, files: undefined }), JSON.stringify({ ...m, generation: 'two' })]) {
      writeFileSync(manifest, garbage);
      refused(dir, 'manifest.json', `manifest ${garbage.slice(0, 30)}`);
    }
  });

  it('is refused when a format-5 manifest (without checksums) is found: the caller rebuilds', async () => {
    const { dir } = await flushed();
    const manifest = join(dir, 'manifest.json');
    const m = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>;
    writeFileSync(manifest, JSON.stringify({ ...m, format: 5, files: undefined }));
    refused(dir, 'index in', 'the old format');
  });

  it('catches any single byte changed anywhere in its files (200 + 50 seeded trials)', async () => {
    const { dir, gen } = await flushed();
    let seed = 7;
    const random = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n);
    for (const [name, trials] of [['vectors.bin', 200], ['terms.json', 50]] as const) {
      const file = join(gen, name);
      const good = readFileSync(file);
      for (let t = 0; t < trials; t++) {
        const at = random(good.length);
        writeFileSync(file, changed(good, (b) => (b[at] = (b[at]! + 1 + random(255)) & 0xff)));
        refused(dir, name, `${name}: byte ${at} changed`);
      }
      writeFileSync(file, good);
    }
    assert.equal(loadIndex(dir, newIndex())?.documents, 60);
  });

  it('leaves the index it was loading into empty when it is refused', async () => {
    const { dir, gen } = await flushed();
    writeFileSync(join(gen, 'vectors.bin'), changed(readFileSync(join(gen, 'vectors.bin')), (b) => (b[b.length - 2] ^= 0xff)));
    const index = newIndex();
    assert.throws(() => loadIndex(dir, index), IndexFormatError);
    assert.equal(index.documentCount, 0);
    assert.equal(index.stats.termCount, 0);
  });
});

describe('the vectors.bin decoder (without checksums: what they would not catch)', () => {
  it('refuses records that run past the end, term ids out of range or out of order, a document twice', async () => {
    const a = newIndex();
    for (let i = 1; i <= 3; i++) a.upsert(make(i, `alpha beta word${i}`));
    const dir = mkdtempSync(join(tmpdir(), 'trawl-codec-'));
    const info = await flushIndex(dir, a, 1);
    const buf = readFileSync(join(dir, `gen-${info.generation}`, 'vectors.bin'));
    const terms = info.terms;
    assert.equal(decodeVectors(buf, terms, 1).length, 3);
    assert.throws(() => decodeVectors(buf, 2, 1), /term id \d+ \(of 2;/, 'term ids beyond the dictionary');
    assert.throws(() => decodeVectors(buf, terms, 0), /source 0 of 0/);
    const words = new Uint32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
    const twice = Buffer.from(words.buffer.slice(0));
    new Uint32Array(twice.buffer)[2] = 4; // four documents announced, three present
    assert.throws(() => decodeVectors(twice, terms, 1), /runs past the end/);
    const huge = Buffer.from(words.buffer.slice(0));
    new Uint32Array(huge.buffer)[5] = 0x7fffffff; // the first document's term count
    assert.throws(() => decodeVectors(huge, terms, 1), /past the end of the file/);
  });
});
