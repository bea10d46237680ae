/**
 * Flushing the in-RAM index to disk and loading it back. A flush writes a new generation folder
 * (`gen-N/`: the term and source dictionaries, the document vectors), then renames a small
 * `manifest.json` into place: a reader sees the old flush or the new one, never half of one. The
 * manifest records a format version (a loader refuses one it does not know), the last change
 * sequence the flush holds (the store's change log is replayed from there), and each file's size
 * and CRC-32: a file damaged on disk is told before it is decoded (codec.ts checks every count and
 * offset besides). Any damage is an IndexFormatError, which callers take as "rebuild from the store".
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { currentStemming, type Stemming } from '../ingest/tokenize.ts';
import type { SearchIndex } from '../search-index.ts';
import { decodeTerms, decodeVectors, encodeHeader, encodeVector, INDEX_FORMAT, IndexFormatError } from './codec.ts';

export { INDEX_FORMAT, IndexFormatError } from './codec.ts';

/** A snapshot file's size and CRC-32, as the manifest records them. */
export type FileCheck = { readonly bytes: number; readonly crc32: number };

const SNAPSHOT_FILES = ['terms.json', 'vectors.bin'] as const;

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
  /** Each file of the generation: its size and checksum. */
  readonly files: Readonly<Record<(typeof SNAPSHOT_FILES)[number], FileCheck>>;
};

export type FlushInfo = Manifest & { readonly ms: number; readonly maxPauseMs: number };

export function readManifest(dir: string): Manifest | undefined {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) return undefined;
  let m: Manifest;
  try {
    m = JSON.parse(readFileSync(file, 'utf8')) as Manifest;
  } catch (e) {
    throw new IndexFormatError(`${file} cannot be read: ${(e as Error).message}`);
  }
  if (!m || typeof m !== 'object' || Array.isArray(m)) throw new IndexFormatError(`${file} is not a manifest`);
  if (m.format !== INDEX_FORMAT) {
    throw new IndexFormatError(`index in ${dir} has format ${String(m.format)}; this Trawl reads format ${INDEX_FORMAT}`);
  }
  if (m.stemming !== currentStemming()) throw new IndexFormatError(`index in ${dir} was built with stemming "${m.stemming}"; index.stemming is now "${currentStemming()}"`);
  const whole = (x: unknown) => Number.isSafeInteger(x) && (x as number) >= 0;
  const checked = (c: FileCheck | undefined) => !!c && whole(c.bytes) && whole(c.crc32);
  if (![m.generation, m.lastSeq, m.documents, m.terms].every(whole) || !m.files || !SNAPSHOT_FILES.every((f) => checked(m.files[f]))) {
    throw new IndexFormatError(`${file} is not a manifest of this format (a field is missing or not a whole number)`);
  }
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

  const terms = await writeSliced(pacer, join(genDir, 'terms.json'), async (write) => {
    await write(`{"sources":${JSON.stringify(sources)},"terms":[`);
    for (let i = 0; i < termCount; i += 5000) {
      await write((i ? ',' : '') + snap.terms.slice(i, Math.min(termCount, i + 5000)).map((t) => JSON.stringify(t)).join(','));
      await pacer.yieldIfDue();
    }
    await write(']}');
  });
  const vectorsFile = await writeSliced(pacer, join(genDir, 'vectors.bin'), async (write) => {
    await write(encodeHeader(ids.length));
    for (let i = 0; i < ids.length; i += 100) {
      for (let k = i; k < Math.min(ids.length, i + 100); k++) for (const part of encodeVector(ids[k]!, vectors[k]!)) await write(part);
      await pacer.yieldIfDue();
    }
  });

  const manifest: Manifest = {
    format: INDEX_FORMAT,
    generation,
    lastSeq,
    documents: ids.length,
    terms: termCount,
    createdAt: new Date().toISOString(),
    bytes: terms.bytes + vectorsFile.bytes,
    stemming,
    files: { 'terms.json': terms, 'vectors.bin': vectorsFile },
  };
  await writeSliced(pacer, join(dir, 'manifest.json.tmp'), (write) => write(JSON.stringify(manifest, null, 2)));
  renameSync(join(dir, 'manifest.json.tmp'), join(dir, 'manifest.json'));
  syncDir(dir);
  // Older generations are unreachable now.
  for (const name of readdirSync(dir)) if (/^gen-\d+$/.test(name) && name !== `gen-${generation}`) await pacer.io(rm(join(dir, name), { recursive: true, force: true }));
  return { ...manifest, ms: Math.round(performance.now() - started), maxPauseMs: Math.round(pacer.done() * 10) / 10 };
}

/**
 * Loads the last flush into an empty index. Returns its manifest, or undefined when there is none.
 * Every file is checked (size, CRC-32, then each record) and decoded before the index is touched:
 * any damage throws IndexFormatError and leaves the index empty.
 */
export function loadIndex(dir: string, index: SearchIndex): Manifest | undefined {
  const manifest = readManifest(dir);
  if (!manifest) return undefined;
  const genDir = join(dir, `gen-${manifest.generation}`);
  const termsFile = join(genDir, 'terms.json');
  const vectorsFile = join(genDir, 'vectors.bin');
  const { terms, sources } = decodeTerms(verified(termsFile, manifest.files['terms.json']).toString('utf8'), termsFile);
  const vectors = decodeVectors(verified(vectorsFile, manifest.files['vectors.bin']), terms.length, sources.length, vectorsFile);
  if (vectors.length !== manifest.documents || terms.length !== manifest.terms) throw new IndexFormatError(`${genDir} holds ${vectors.length} documents and ${terms.length} terms; its manifest says ${manifest.documents} and ${manifest.terms}`);
  index.stats.restoreTerms(terms, sources);
  for (const [id, vector] of vectors) index.stats.insert(id, vector);
  index.postings.rebuild(index.stats.snapshot().docs, terms);
  index.impacts.rebuild();
  return manifest;
}

/** A snapshot file's bytes, if they are those the manifest recorded (size and CRC-32). */
function verified(file: string, check: FileCheck): Buffer {
  let buf: Buffer;
  try {
    buf = readFileSync(file);
  } catch (e) {
    throw new IndexFormatError(`${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  }
  if (buf.byteLength !== check.bytes) throw new IndexFormatError(`${file} has ${buf.byteLength} bytes; the manifest says ${check.bytes}`);
  if (crc32(buf) !== check.crc32) throw new IndexFormatError(`${file} is damaged: its checksum does not match the manifest's`);
  return buf;
}

function safeManifest(dir: string): Manifest | undefined {
  try {
    return readManifest(dir);
  } catch {
    return undefined;
  }
}

/**
 * Writes a file from a producer that may yield between parts, then syncs it; returns its size and
 * CRC-32 (computed on the bytes as they are written: no second read).
 * The writes and the sync are asynchronous (libuv's threads), so the disk never holds up the
 * event loop; parts are buffered up to ~1 MB per write.
 */
async function writeSliced(pacer: Pacer, file: string, produce: (write: (part: string | Buffer) => Promise<void>) => Promise<void>): Promise<FileCheck> {
  const fh = await pacer.io(open(file, 'w'));
  let written = 0;
  let crc = 0;
  try {
    let pending: Buffer[] = [];
    let size = 0;
    const drain = async () => {
      if (!pending.length) return;
      const buf = pending.length === 1 ? pending[0]! : Buffer.concat(pending, size);
      written += buf.length;
      crc = crc32(buf, crc);
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
  return { bytes: written, crc32: crc };
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
