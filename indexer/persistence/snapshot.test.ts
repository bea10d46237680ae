import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { StoredDocument } from '../../model/index.ts';
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
