/**
 * The snapshot's manifest: the small file a flush renames into place last, which says which
 * generation folder holds the index and how to check it. It records the format version, the
 * stemming and the stemmers by language, the last change sequence the flush holds, the shard of
 * the documents it holds (if it is one), and each file's size and CRC-32; and a CRC-32 of its own
 * fields, because a changed digit of `lastSeq` would otherwise go unnoticed and the changes after
 * it would never be replayed into the index.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import { analysisLanguages, currentStemming, type Stemming } from '../ingest/tokenize.ts';
import { INDEX_FORMAT, IndexFormatError } from './codec.ts';

/** The files of a generation folder, in the order a flush writes them. */
export const SNAPSHOT_FILES = ['terms.json', 'vectors.bin'] as const;

/** One file of a generation folder. */
export type SnapshotFile = (typeof SNAPSHOT_FILES)[number];

/** A snapshot file's size and CRC-32 (zlib's, as `zlib.crc32` computes it), as the manifest records them. */
export type FileCheck = { readonly bytes: number; readonly crc32: number };

/** What manifest.json says of the flush it completes. */
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
  /** Its analysis's version and the stemmers by language (language/stemmers.ts): another needs a rebuild too. */
  readonly languages: string;
  /** Each file of the generation: its size and checksum. */
  readonly files: Readonly<Record<SnapshotFile, FileCheck>>;
  /**
   * The share of the documents it holds, "K/N" (a search node of a sharded index: cluster.shard);
   * absent: every document. Here, not beside the manifest, so that it is renamed into place with
   * the snapshot it describes.
   */
  readonly shard?: string;
  /** The CRC-32 of the other fields, as compact JSON in this order (sealManifest). */
  readonly crc32: number;
};

/** The manifest's name in the index directory. */
export const MANIFEST = 'manifest.json';

/** A manifest of `body`'s fields and their CRC-32 (of their compact JSON), to be written as JSON. */
export function sealManifest(body: Omit<Manifest, 'crc32'>): Manifest {
  return { ...body, crc32: crc32(JSON.stringify(body)) };
}

/**
 * The manifest of the index in `dir`; undefined when there is none (nothing was flushed yet).
 * Throws IndexFormatError naming manifest.json when it cannot be read, is not JSON, is of another
 * format, does not match its own checksum, lacks a field, or was built with another stemming or
 * other stemmers.
 */
export function readManifest(dir: string): Manifest | undefined {
  const file = join(dir, MANIFEST);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new IndexFormatError(`${file} cannot be read: ${code ?? (e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new IndexFormatError(`${file} is not JSON: ${(e as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new IndexFormatError(`${file} is not a manifest (a JSON object)`);
  const m = parsed as Record<string, unknown>;
  // The format first: an older manifest (format 5 had no checksums) is told as such, not as damage.
  if (m.format !== INDEX_FORMAT) throw new IndexFormatError(`${file}: index format ${String(m.format)}; this Trawl reads format ${INDEX_FORMAT}`);
  const { crc32: seal, ...body } = m;
  if (!whole(seal)) throw new IndexFormatError(`${file} has no checksum of its own`);
  if (crc32(JSON.stringify(body)) !== seal) throw new IndexFormatError(`${file} is damaged: its fields do not match its checksum`);
  const files = m.files as Record<string, unknown> | null | undefined;
  const checked = (c: unknown) => !!c && typeof c === 'object' && whole((c as FileCheck).bytes) && whole((c as FileCheck).crc32);
  const shaped =
    [m.generation, m.lastSeq, m.documents, m.terms, m.bytes].every(whole) &&
    typeof m.createdAt === 'string' &&
    typeof m.stemming === 'string' &&
    (m.shard === undefined || typeof m.shard === 'string') &&
    !!files &&
    typeof files === 'object' &&
    SNAPSHOT_FILES.every((f) => checked(files[f]));
  if (!shaped) throw new IndexFormatError(`${file} is not a manifest of format ${INDEX_FORMAT} (a field is missing or of the wrong type)`);
  if (m.stemming !== currentStemming())
    throw new IndexFormatError(`${file}: the index was built with stemming "${m.stemming as string}"; index.stemming is now "${currentStemming()}"`);
  if (m.languages !== analysisLanguages())
    throw new IndexFormatError(
      `${file}: the index was built with other stemmers or another analysis ` +
        `("${typeof m.languages === 'string' ? m.languages : 'none recorded'}"; this Trawl: "${analysisLanguages()}")`,
    );
  return m as Manifest;
}

function whole(x: unknown): x is number {
  return Number.isSafeInteger(x) && (x as number) >= 0;
}
