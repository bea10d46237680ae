/**
 * Test fixture for the snapshot's tests: a flushed index of a few dozen pages in a fresh
 * directory, ways to damage its files, and `resign`, which damages a file but records its new size
 * and checksum in the manifest — the only way to reach the decoder's own checks through loadIndex,
 * since the checksums catch everything before them.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { StoredDocument } from '../../model/index.ts';
import { FIELDS } from '../ingest/fields.ts';
import { SearchIndex } from '../search-index.ts';
import { IndexFormatError } from './codec.ts';
import { MANIFEST, sealManifest, type Manifest, type SnapshotFile } from './manifest.ts';
import { flushIndex, loadIndex } from './snapshot.ts';

const store = new Map<number, StoredDocument>();

/** A stored page `id` with `text`, kept where newIndex's lookups find it. */
export function page(id: number, text: string): StoredDocument {
  const d = {
    id,
    url: `http://e.org/${id}`,
    title: `Doc ${id}`,
    description: '',
    headings: ['Heading'],
    text,
    contentType: 'text/html',
    bytes: 1,
    truncated: false,
    httpStatus: 200,
    fetchedAt: 0,
    hash: '',
  };
  store.set(id, d);
  return d;
}

/** The page `id` made by page(), if any. */
export function lookup(id: number): StoredDocument | undefined {
  return store.get(id);
}

/** An empty index over the pages made by page(). */
export function newIndex(): SearchIndex {
  return new SearchIndex(lookup);
}

/** A flushed index of 60 pages in a fresh directory: the directory and the generation folder. */
export async function flushed(): Promise<{ dir: string; gen: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'trawl-damage-'));
  const a = newIndex();
  for (let i = 1; i <= 60; i++) a.upsert(page(i, `damage test word${i % 7} ${'text '.repeat(i % 5)}`));
  const info = await flushIndex(dir, a, 9);
  return { dir, gen: join(dir, `gen-${info.generation}`) };
}

/** A copy of `bytes` with `change` applied. */
export function changed(bytes: Buffer, change: (b: Buffer) => void): Buffer {
  const b = Buffer.from(bytes);
  change(b);
  return b;
}

/** Asserts that loadIndex throws IndexFormatError naming `file` — nothing else: no RangeError, no SyntaxError. */
export function refused(dir: string, file: string, what: string): void {
  assert.throws(
    () => loadIndex(dir, newIndex()),
    (e: unknown) => {
      assert.ok(e instanceof IndexFormatError, `${what}: ${e instanceof Error ? `${e.constructor.name}: ${e.message}` : String(e)}`);
      assert.ok(e.message.includes(file), `${what}: "${e.message}" does not name ${file}`);
      assert.equal(e.code, 'ERR_INDEX_FORMAT');
      return true;
    },
    what,
  );
}

/** Writes `bytes` as the generation's file `name` and records their size and checksum in the manifest. */
export function resign(dir: string, name: SnapshotFile, bytes: Buffer | string): void {
  const file = join(dir, MANIFEST);
  const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  const buf = Buffer.from(bytes);
  writeFileSync(join(dir, `gen-${m.generation}`, name), buf);
  const { crc32: _seal, ...body } = m;
  writeFileSync(file, JSON.stringify(sealManifest({ ...body, files: { ...m.files, [name]: { bytes: buf.length, crc32: crc32(buf) } } })));
}

/**
 * Where each record of vectors.bin ends, read as the format lays them out: a 16-byte header, then
 * per document 4 + F words (id, term count, in-links, source, field lengths), the term ids, and
 * the term frequencies (a byte per term and field) padded to 4 bytes.
 */
export function recordEnds(buf: Buffer): number[] {
  const words = new Uint32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  const ends: number[] = [];
  for (let off = 16, i = 0; i < words[2]!; i++) {
    const n = words[off / 4 + 1]!;
    off += 4 * (4 + FIELDS.length) + 4 * n + Math.ceil((n * FIELDS.length) / 4) * 4;
    ends.push(off);
  }
  return ends;
}
