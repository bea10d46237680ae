/**
 * The snapshot's files, byte for byte: `vectors.bin` (a header, then per document its id, term
 * count, in-links, source, field lengths, term ids and term frequencies, 4-byte aligned) and
 * `terms.json` (the term and source dictionaries). Decoding checks every count and offset against
 * what the file holds and what the dictionaries allow: damage is an IndexFormatError naming the
 * file and the problem, never a RangeError from deep inside.
 */
import { FIELDS } from '../ingest/fields.ts';
import type { Source } from '../ingest/source.ts';
import { packFreqs, unpackFreqs, type DocVector } from '../structures/vector.ts';

export const INDEX_FORMAT = 6;
const MAGIC = 0x5452574c; // "TRWL"
const HEADER_WORDS = 4;

/** A snapshot that cannot be used: missing, damaged, of another format or stemming. Rebuild from the store. */
export class IndexFormatError extends Error {
  readonly code = 'ERR_INDEX_FORMAT';
}

/** The vectors.bin header. */
export function encodeHeader(documents: number): Buffer {
  return Buffer.from(new Uint32Array([MAGIC, INDEX_FORMAT, documents, FIELDS.length]).buffer);
}

/** One document's bytes. */
export function encodeVector(id: number, v: DocVector): Buffer[] {
  const F = FIELDS.length;
  const head = new Uint32Array(4 + F);
  head[0] = id;
  head[1] = v.termIds.length;
  head[2] = v.inlinks;
  head[3] = v.source;
  head.set(v.lengths, 4);
  // (On disk the frequencies stay a full row-major table, as in format 6.)
  const tf = unpackFreqs(v);
  const parts = [
    Buffer.from(head.buffer),
    Buffer.from(v.termIds.buffer, v.termIds.byteOffset, v.termIds.byteLength),
    Buffer.from(tf.buffer, tf.byteOffset, tf.byteLength),
  ];
  if (tf.byteLength % 4) parts.push(Buffer.alloc(4 - (tf.byteLength % 4)));
  return parts;
}

/**
 * Every document of vectors.bin, checked: the header, each record within the file, term ids below
 * `terms`, source ids below `sources`, no document twice, nothing after the last one.
 */
export function decodeVectors(buf: Buffer, terms: number, sources: number, file = 'vectors.bin'): [number, DocVector][] {
  const fail = (problem: string) => new IndexFormatError(`${file}: ${problem}`);
  const F = FIELDS.length;
  if (buf.byteLength < HEADER_WORDS * 4 || buf.byteLength % 4) throw fail(`${buf.byteLength} bytes is not a whole file`);
  // Typed arrays view an aligned ArrayBuffer directly: a buffer of its own is used as is, one in a pool is copied (once more).
  const whole = buf.byteOffset === 0 && buf.buffer.byteLength === buf.byteLength && buf.buffer instanceof ArrayBuffer;
  const ab = whole ? (buf.buffer as ArrayBuffer) : buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
  const words = ab.byteLength / 4;
  const [magic, format, count, fields] = new Uint32Array(ab, 0, HEADER_WORDS);
  if (magic !== MAGIC) throw fail('not a Trawl index file');
  if (format !== INDEX_FORMAT) throw fail(`format ${format}, not ${INDEX_FORMAT}`);
  if (fields !== F) throw fail(`${fields} fields, not ${F}`);
  const out: [number, DocVector][] = [];
  const seen = new Set<number>();
  let off = HEADER_WORDS * 4;
  for (let i = 0; i < count!; i++) {
    if (off / 4 + 4 + F > words) throw fail(`document ${i} of ${count} runs past the end`);
    const head = new Uint32Array(ab, off, 4 + F);
    const [id, n, inlinks, source] = head as unknown as [number, number, number, number];
    off += 4 * (4 + F);
    const tfBytes = n * F;
    const padded = tfBytes + ((4 - (tfBytes % 4)) % 4);
    if (off + 4 * n + padded > ab.byteLength) throw fail(`document ${id} (${i} of ${count}) holds ${n} terms past the end of the file`);
    if (seen.has(id)) throw fail(`document ${id} twice`);
    seen.add(id);
    if (source >= sources) throw fail(`document ${id} has source ${source} of ${sources}`);
    const termIds = new Uint32Array(ab, off, n);
    for (let k = 0; k < n; k++) {
      if (termIds[k]! >= terms || (k > 0 && termIds[k]! <= termIds[k - 1]!))
        throw fail(`document ${id} has term id ${termIds[k]} (of ${terms}; ids sorted, each once)`);
    }
    off += 4 * n;
    const freqs = packFreqs(new Uint8Array(ab, off, tfBytes), n);
    off += padded;
    // Copies, not views: a view would keep the whole file's buffer, full tables included, alive.
    out.push([id, { termIds: termIds.slice(), freqs, lengths: head.slice(4), inlinks, source }]);
  }
  if (off !== ab.byteLength) throw fail(`${ab.byteLength - off} bytes after the last of ${count} documents`);
  return out;
}

/**
 * The dictionaries of terms.json, checked: JSON of the right shape, every term a string and every
 * source a {host, lang, type[, topics]} of strings, neither twice — the index interns both, so a
 * term or a source twice would shift every id after it and the vectors would point at wrong terms.
 */
export function decodeTerms(text: string, file = 'terms.json'): { terms: string[]; sources: Source[] } {
  const fail = (problem: string) => new IndexFormatError(`${file}: ${problem}`);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw fail(`not JSON (${(e as Error).message})`);
  }
  const d = data as { terms?: unknown; sources?: unknown };
  if (!d || typeof d !== 'object' || !Array.isArray(d.terms) || !Array.isArray(d.sources))
    throw fail('not the term and source dictionaries ({"sources": [...], "terms": [...]})');
  const terms = d.terms as unknown[];
  const sources = d.sources as unknown[];
  const seen = new Set<string>();
  for (let i = 0; i < terms.length; i++) {
    const t = terms[i];
    if (typeof t !== 'string') throw fail(`term ${i} is not a string`);
    if (seen.size === seen.add(t).size) throw fail(`term ${i} (${JSON.stringify(t.slice(0, 40))}) twice`);
  }
  seen.clear();
  for (let i = 0; i < sources.length; i++) {
    const s = sources[i] as Record<string, unknown> | null;
    const strings =
      !!s &&
      typeof s === 'object' &&
      ['host', 'lang', 'type'].every((k) => typeof s[k] === 'string') &&
      (s.topics === undefined || typeof s.topics === 'string');
    if (!strings) throw fail(`source ${i} is not {host, lang, type, topics} of strings`);
    // The key the source dictionary interns a source by (an index flushed before topics existed has none).
    const key = `${String(s.host)}\n${String(s.lang)}\n${String(s.type)}\n${String(s.topics ?? '')}`;
    if (seen.size === seen.add(key).size) throw fail(`source ${i} twice`);
  }
  return { terms: terms as string[], sources: sources as Source[] };
}
