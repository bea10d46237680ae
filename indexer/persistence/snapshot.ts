/**
 * Flushing the in-RAM index to disk and loading it back. A flush writes a new generation folder
 * (`gen-N/`: the term and source dictionaries, the document vectors), then renames a small
 * `manifest.json` into place: a reader sees the old flush or the new one, never half of one. The
 * manifest records a format version (a loader refuses one it does not know), the last change
 * sequence the flush holds (the store's change log is replayed from there), and each file's size
 * and CRC-32: a file damaged on disk is told before it is decoded (codec.ts checks every count and
 * offset besides). Any damage is an IndexFormatError, which callers take as "rebuild from the store".
 */
import { constants as bufferConstants } from 'node:buffer';
import { closeSync, fstatSync, fsyncSync, mkdirSync, openSync, readdirSync, readSync, renameSync } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { analysisLanguages, currentStemming } from '../ingest/tokenize.ts';
import type { SearchIndex } from '../search-index.ts';
import { decodeTerms, decodeVectors, encodeHeader, encodeVector, INDEX_FORMAT, IndexFormatError } from './codec.ts';
import { MANIFEST, readManifest, sealManifest, type FileCheck, type Manifest } from './manifest.ts';

export { INDEX_FORMAT, IndexFormatError } from './codec.ts';
export { readManifest, type FileCheck, type Manifest } from './manifest.ts';

/** What a flush did: its manifest, how long it took in all, and the longest time it held the thread. */
export type FlushInfo = Manifest & { readonly ms: number; readonly maxPauseMs: number };

/** How long a flush may hold the thread before it lets searches run. */
const SLICE_MS = 5;

/**
 * Writes the index: the term and source dictionaries and every document's vector — the postings are
 * not written, they follow from the vectors and are rebuilt on load. The snapshot is taken at once
 * (vectors are never changed in place, dictionaries only grow), then written a slice at a time,
 * so that a search never waits on a flush for more than ~SLICE_MS; `maxPauseMs` says how long
 * the longest slice held the thread.
 */
export async function flushIndex(dir: string, index: SearchIndex, lastSeq: number, options: { readonly shard?: string } = {}): Promise<FlushInfo> {
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
  const generation = nextGeneration(dir);
  const genDir = join(dir, `gen-${generation}`);
  mkdirSync(genDir);

  const terms = await writeSliced(pacer, join(genDir, 'terms.json'), async (write) => {
    await write(`{"sources":${JSON.stringify(sources)},"terms":[`);
    for (let i = 0; i < termCount; i += 5000) {
      await write(
        (i ? ',' : '') +
          snap.terms
            .slice(i, Math.min(termCount, i + 5000))
            .map((t) => JSON.stringify(t))
            .join(','),
      );
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

  const body: Omit<Manifest, 'crc32'> = {
    format: INDEX_FORMAT,
    generation,
    lastSeq,
    documents: ids.length,
    terms: termCount,
    createdAt: new Date().toISOString(),
    bytes: terms.bytes + vectorsFile.bytes,
    stemming,
    languages: analysisLanguages(),
    files: { 'terms.json': terms, 'vectors.bin': vectorsFile },
    ...(options.shard ? { shard: options.shard } : {}),
  };
  const manifest = sealManifest(body);
  await writeSliced(pacer, join(dir, `${MANIFEST}.tmp`), (write) => write(JSON.stringify(manifest, null, 2)));
  renameSync(join(dir, `${MANIFEST}.tmp`), join(dir, MANIFEST));
  syncDir(dir);
  // Older generations are unreachable now.
  for (const name of readdirSync(dir))
    if (/^gen-\d+$/.test(name) && name !== `gen-${generation}`) await pacer.io(rm(join(dir, name), { recursive: true, force: true }));
  return { ...manifest, ms: Math.round(performance.now() - started), maxPauseMs: Math.round(pacer.done() * 10) / 10 };
}

/**
 * Loads the last flush into an empty index; returns its manifest, or undefined when there is none.
 *
 * Every file is verified (size and CRC-32 against the manifest) and decoded with every count, offset
 * and id checked before the index is touched: any damage — a file missing, truncated, overwritten,
 * of another format or stemming, a manifest that is not one — throws IndexFormatError (naming the
 * file and the problem) and leaves `index` as empty as it was, ready for a rebuild from the store.
 * An index that is not empty is a caller's mistake: a plain Error, before anything is read.
 */
export function loadIndex(dir: string, index: SearchIndex): Manifest | undefined {
  if (index.stats.documentCount || index.stats.termCount)
    throw new Error(`loadIndex(${dir}) needs an empty index; this one holds ${index.stats.documentCount} documents`);
  const manifest = readManifest(dir);
  if (!manifest) return undefined;
  const genDir = join(dir, `gen-${manifest.generation}`);
  const termsFile = join(genDir, 'terms.json');
  const vectorsFile = join(genDir, 'vectors.bin');
  const { terms, sources } = decodeTerms(verified(termsFile, manifest.files['terms.json']).toString('utf8'), termsFile);
  if (terms.length !== manifest.terms) throw new IndexFormatError(`${termsFile} holds ${terms.length} terms; ${MANIFEST} says ${manifest.terms}`);
  const vectors = decodeVectors(verified(vectorsFile, manifest.files['vectors.bin']), terms.length, sources.length, vectorsFile);
  if (vectors.length !== manifest.documents)
    throw new IndexFormatError(`${vectorsFile} holds ${vectors.length} documents; ${MANIFEST} says ${manifest.documents}`);
  // Verified: from here on nothing can fail on the files' account.
  index.stats.restoreTerms(terms, sources);
  for (const [id, vector] of vectors) index.stats.insert(id, vector);
  // (The impact lists, then FlexSearch with the postings they do not hold.)
  index.postings.rebuild(index.stats.snapshot().docs, terms);
  index.vocabulary.rebuild();
  return manifest;
}

/** Bytes read at a time when loading: readFileSync cannot read a file over 2 GiB (a million documents' vectors are more). */
const READ_CHUNK = 64 * 1024 * 1024;

/** A snapshot file's bytes, if they are those the manifest recorded (size and CRC-32), in one unpooled buffer. */
function verified(file: string, check: FileCheck): Buffer {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size !== check.bytes) throw new IndexFormatError(`${file} has ${size} bytes; the manifest says ${check.bytes}`);
    if (size > bufferConstants.MAX_LENGTH) throw new IndexFormatError(`${file} has ${size} bytes, more than a buffer holds (${bufferConstants.MAX_LENGTH})`);
    const buf = Buffer.allocUnsafeSlow(size);
    let crc = 0;
    for (let at = 0; at < size; ) {
      const n = readSync(fd, buf, at, Math.min(READ_CHUNK, size - at), at);
      if (n === 0) throw new IndexFormatError(`${file} ended after ${at} of ${size} bytes`);
      crc = crc32(buf.subarray(at, at + n), crc);
      at += n;
    }
    if (crc !== check.crc32) throw new IndexFormatError(`${file} is damaged: its checksum does not match the manifest's`);
    return buf;
  } catch (e) {
    if (e instanceof IndexFormatError) throw e;
    throw new IndexFormatError(`${file} cannot be read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * The generation a flush writes: one past both the manifest's and every generation folder on disk,
 * so that a flush never rewrites the folder a manifest it could not read (damaged, another format
 * or stemming) still names, nor one that a reader may be loading.
 */
function nextGeneration(dir: string): number {
  let last = 0;
  try {
    last = readManifest(dir)?.generation ?? 0;
  } catch (e) {
    if (!(e instanceof IndexFormatError)) throw e;
  }
  for (const name of readdirSync(dir)) {
    const m = /^gen-(\d+)$/.exec(name);
    if (m) last = Math.max(last, Number(m[1]));
  }
  return last + 1;
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
