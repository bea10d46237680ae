/**
 * Flushing the in-RAM index to disk and loading it back. A flush writes a new generation folder
 * (`gen-N/`: the term and source dictionaries, the document vectors), then renames a small
 * `manifest.json` into place: a reader sees the old flush or the new one, never half of one. The
 * manifest records a format version (a loader refuses one it does not know) and the last change
 * sequence the flush holds, from which the crawl database's change log is replayed.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { FIELDS } from '../ingest/fields.ts';
import type { SearchIndex } from '../search-index.ts';
import type { DocVector, Source } from '../structures/term-stats.ts';
import { currentStemming, type Stemming } from '../ingest/tokenize.ts';

export const INDEX_FORMAT = 5;
const MAGIC = 0x5452574c; // "TRWL"

export type Manifest = {
  readonly format: number;
  readonly generation: number;
  /** Every change with seq ≤ lastSeq is in this flush. */
  readonly lastSeq: number;
  readonly documents: number;
  readonly terms: number;
  readonly createdAt: string;
  readonly bytes: number;
  /** The tokenizer's stemming when the index was built: another one needs a rebuild. */
  readonly stemming: Stemming;
};

export class IndexFormatError extends Error {
  readonly code = 'ERR_INDEX_FORMAT';
}

export type FlushInfo = Manifest & { readonly ms: number; readonly maxPauseMs: number };

export function readManifest(dir: string): Manifest | undefined {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) return undefined;
  const m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  if (m.format !== INDEX_FORMAT) {
    throw new IndexFormatError(`index in ${dir} has format ${String(m.format)}; this Trawl reads format ${INDEX_FORMAT}`);
  }
  if (m.stemming !== currentStemming()) throw new IndexFormatError(`index in ${dir} was built with stemming "${m.stemming}"; index.stemming is now "${currentStemming()}"`);
  return m;
}

/** How long a flush may hold the thread before it lets searches run. */
const SLICE_MS = 5;

/**
 * Writes the index: the term and source dictionaries and every document's vector — the postings are
 * not written, they follow from the vectors and are rebuilt on load. The snapshot is taken at once
 * (vectors are never changed in place, dictionaries only grow), then written a slice at a time,
 * so that a search never waits on a flush for more than ~SLICE_MS; `maxPauseMs` says how long
 * the longest slice held the thread.
 */
export async function flushIndex(dir: string, index: SearchIndex, lastSeq: number): Promise<FlushInfo> {
  const started = performance.now();
  const pacer = new Pacer();
  const snap = index.stats.snapshot();
  // Ids and vectors in two arrays: a copy of the map as [id, vector] pairs would hold the thread
  // for a hundred thousand small allocations.
  const ids = Array.from(snap.docs.keys());
  const vectors = Array.from(snap.docs.values());
  const termCount = snap.terms.length;
  const sources = [...snap.sources];
  const stemming = currentStemming();

  mkdirSync(dir, { recursive: true });
  const previous = safeManifest(dir);
  const generation = (previous?.generation ?? 0) + 1;
  const genDir = join(dir, `gen-${generation}`);
  rmSync(genDir, { recursive: true, force: true });
  mkdirSync(genDir);

  let bytes = await writeSliced(pacer, join(genDir, 'terms.json'), async (write) => {
    await write(`{"sources":${JSON.stringify(sources)},"terms":[`);
    for (let i = 0; i < termCount; i += 5000) {
      await write((i ? ',' : '') + snap.terms.slice(i, Math.min(termCount, i + 5000)).map((t) => JSON.stringify(t)).join(','));
      await pacer.yieldIfDue();
    }
    await write(']}');
  });
  bytes += await writeSliced(pacer, join(genDir, 'vectors.bin'), async (write) => {
    await write(Buffer.from(new Uint32Array([MAGIC, INDEX_FORMAT, ids.length, FIELDS.length]).buffer));
    for (let i = 0; i < ids.length; i += 100) {
      for (const part of encodeVectors(ids.slice(i, i + 100), vectors.slice(i, i + 100))) await write(part);
      await pacer.yieldIfDue();
    }
  });

  const manifest: Manifest = { format: INDEX_FORMAT, generation, lastSeq, documents: ids.length, terms: termCount, createdAt: new Date().toISOString(), bytes, stemming };
  await writeSliced(pacer, join(dir, 'manifest.json.tmp'), (write) => write(JSON.stringify(manifest, null, 2)));
  renameSync(join(dir, 'manifest.json.tmp'), join(dir, 'manifest.json'));
  syncDir(dir);
  // Older generations are unreachable now.
  for (const name of readdirSync(dir)) if (/^gen-\d+$/.test(name) && name !== `gen-${generation}`) await pacer.io(rm(join(dir, name), { recursive: true, force: true }));
  return { ...manifest, ms: Math.round(performance.now() - started), maxPauseMs: Math.round(pacer.done() * 10) / 10 };
}

/** Loads the last flush into an empty index. Returns its manifest, or undefined when there is none. */
export function loadIndex(dir: string, index: SearchIndex): Manifest | undefined {
  const manifest = readManifest(dir);
  if (!manifest) return undefined;
  const genDir = join(dir, `gen-${manifest.generation}`);
  const { terms, sources } = JSON.parse(readFileSync(join(genDir, 'terms.json'), 'utf8')) as { terms: string[]; sources: Source[] };
  index.stats.restoreTerms(terms, sources);
  for (const [id, vector] of decodeVectors(readFileSync(join(genDir, 'vectors.bin')))) index.stats.insert(id, vector);
  index.postings.rebuild(index.stats.snapshot().docs, terms);
  index.impacts.rebuild();
  return manifest;
}

function safeManifest(dir: string): Manifest | undefined {
  try {
    return readManifest(dir);
  } catch {
    return undefined;
  }
}

/** vectors.bin: a header, then per document: id, term count, in-links, source, F lengths, term ids, tfs (4-byte padded). */
function encodeVectors(ids: readonly number[], vectors: readonly DocVector[]): Buffer[] {
  const F = FIELDS.length;
  const parts: Buffer[] = [];
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!;
    const v = vectors[i]!;
    const head = new Uint32Array(4 + F);
    head[0] = id;
    head[1] = v.termIds.length;
    head[2] = v.inlinks;
    head[3] = v.source;
    head.set(v.lengths, 4);
    parts.push(Buffer.from(head.buffer), Buffer.from(v.termIds.buffer, v.termIds.byteOffset, v.termIds.byteLength), Buffer.from(v.tf.buffer, v.tf.byteOffset, v.tf.byteLength));
    if (v.tf.byteLength % 4) parts.push(Buffer.alloc(4 - (v.tf.byteLength % 4)));
  }
  return parts;
}

function* decodeVectors(buf: Buffer): Generator<[number, DocVector]> {
  // Copy into an aligned ArrayBuffer so typed arrays can view it directly.
  const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const [magic, format, count, F] = new Uint32Array(ab, 0, 4);
  if (magic !== MAGIC || format !== INDEX_FORMAT || F !== FIELDS.length) throw new IndexFormatError('vectors.bin is not a Trawl index file of this format');
  let off = 16;
  for (let i = 0; i < count!; i++) {
    const head = new Uint32Array(ab, off, 4 + F);
    const n = head[1]!;
    off += 4 * (4 + F);
    const termIds = new Uint32Array(ab, off, n);
    off += 4 * n;
    const tf = new Uint8Array(ab, off, n * F);
    off += n * F;
    off += (4 - (off % 4)) % 4;
    yield [head[0]!, { termIds, tf, lengths: head.subarray(4), inlinks: head[2]!, source: head[3]! }];
  }
}

/**
 * Writes a file from a producer that may yield between parts, then syncs it; returns its size.
 * The writes and the sync are asynchronous (libuv's threads), so the disk never holds up the
 * event loop; parts are buffered up to ~1 MB per write.
 */
async function writeSliced(pacer: Pacer, file: string, produce: (write: (part: string | Buffer) => Promise<void>) => Promise<void>): Promise<number> {
  const fh = await pacer.io(open(file, 'w'));
  let written = 0;
  try {
    let pending: Buffer[] = [];
    let size = 0;
    const drain = async () => {
      if (!pending.length) return;
      const buf = pending.length === 1 ? pending[0]! : Buffer.concat(pending, size);
      written += buf.length;
      pending = [];
      size = 0;
      for (let off = 0; off < buf.length; ) off += (await pacer.io(fh.write(buf, off, buf.length - off))).bytesWritten;
    };
    await produce(async (part) => {
      const buf = typeof part === 'string' ? Buffer.from(part, 'utf8') : part;
      pending.push(buf);
      size += buf.length;
      if (size >= 1 << 20) await drain();
    });
    await drain();
    await pacer.io(fh.sync());
  } finally {
    await pacer.io(fh.close());
  }
  return written;
}

/**
 * Paces a long job on the event loop: it runs in slices of at most ~SLICE_MS between which other
 * work (searches) runs, and records the longest time it held the thread.
 */
class Pacer {
  private sliceStart = performance.now();
  private maxPause = 0;

  /** Lets other work run if this slice has lasted SLICE_MS. */
  async yieldIfDue(): Promise<void> {
    if (performance.now() - this.sliceStart < SLICE_MS) return;
    await this.io(new Promise((r) => setImmediate(r)));
  }

  /** Awaits I/O: the thread is free meanwhile, so the slice ends here. */
  async io<T>(p: Promise<T>): Promise<T> {
    this.maxPause = Math.max(this.maxPause, performance.now() - this.sliceStart);
    try {
      return await p;
    } finally {
      this.sliceStart = performance.now();
    }
  }

  /** The longest slice, in ms. */
  done(): number {
    return Math.max(this.maxPause, performance.now() - this.sliceStart);
  }
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
