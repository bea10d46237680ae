/**
 * A WACZ's datapackage.json, believed only once true (crawler/archive/wacz.ts opens the zip): every
 * resource it lists is in the zip, of the size it says, with the hash it says — each streamed
 * through the hash, WARCs too — and datapackage-digest.json, when there, has datapackage.json's own
 * hash. A lie refuses the package; what the zip holds beyond the list is a problem.
 */
import { createHash, type Hash } from 'node:crypto';
import type { Entry, ZipFile } from 'yauzl';
import type { Problems } from './wacz-index.ts';

/** Hash algorithms by their Data Package prefix (none means md5 there). */
const HASHES: Readonly<Record<string, string>> = { md5: 'md5', sha1: 'sha1', sha256: 'sha256', sha512: 'sha512' };
/**
 * js-wacz (0.1.5 and 0.1.6 at least, harvard-lil/js-wacz#127) hashes a file it adds by path — its
 * WARCs — with each read of the file (64 KiB, Node's default) fed to the hash twice. Such a hash
 * still vouches for every byte, so from js-wacz it is taken, and counted.
 */
const JS_WACZ_READ = 64 * 1024;

const n = (x: number) => x.toLocaleString('en-US');
const reason = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** datapackage.json's wacz_version, once the whole file is checked; `refuse` makes the error thrown. */
export async function checkDatapackage(
  zip: ZipFile,
  entry: Entry,
  entries: ReadonlyMap<string, Entry>,
  maxBytes: number,
  problems: Problems,
  refuse: (why: string) => Error,
): Promise<string | undefined> {
  const text = await readWhole(zip, entry, maxBytes, refuse);
  let json: unknown;
  try {
    json = JSON.parse(text.toString('utf8'));
  } catch (e) {
    throw refuse(`datapackage.json is not JSON: ${reason(e)}`);
  }
  const { resources, software, wacz_version } = (json ?? {}) as { resources?: unknown; software?: unknown; wacz_version?: unknown };
  if (!json || typeof json !== 'object' || !Array.isArray(resources)) throw refuse('datapackage.json has no resources list');
  const byJsWacz = typeof software === 'string' && software.includes('js-wacz');
  const listed = new Set<string>(['datapackage.json', 'datapackage-digest.json']);
  for (const [i, resource] of resources.entries()) {
    const { path: name, bytes, hash } = (resource ?? {}) as { path?: unknown; bytes?: unknown; hash?: unknown };
    if (typeof name !== 'string') {
      // (A resource by URL is another package's, as in a collection of WACZs: not this one's to check.)
      problems.add('a datapackage.json resource without a path, not checked', `resources[${i}]`);
      continue;
    }
    const found = entries.get(name.replace(/^\.\//, ''));
    if (!found) throw refuse(`datapackage.json lists ${name}, which is not in the zip`);
    listed.add(found.fileName);
    const size = found.uncompressedSize;
    if (bytes !== undefined && Number(bytes) !== size) throw refuse(`datapackage.json says ${name} has ${String(bytes)} bytes; it has ${n(size)}`);
    if (typeof hash !== 'string') {
      problems.add('a datapackage.json resource without a hash, not checked', name);
      continue;
    }
    const colon = hash.indexOf(':');
    const algo = HASHES[colon < 0 ? 'md5' : hash.slice(0, colon).toLowerCase().replace('-', '')];
    if (!algo) {
      problems.add('a datapackage.json resource with a hash of an unknown algorithm, not checked', `${name}: ${hash.slice(0, 80)}`);
      continue;
    }
    const claimed = hash.slice(colon + 1).toLowerCase();
    const actual = await hashOf(zip, found, algo, byJsWacz, refuse);
    if (actual.hex === claimed) continue;
    if (actual.twice !== claimed) throw refuse(`datapackage.json says ${name}'s ${algo} is ${claimed}; it is ${actual.hex}`);
    problems.add('a hash as js-wacz writes it (each 64 KiB read hashed twice, harvard-lil/js-wacz#127), taken', name);
  }
  for (const name of entries.keys()) if (!listed.has(name)) problems.add('an entry not listed in datapackage.json', name);

  const digestFile = entries.get('datapackage-digest.json');
  if (digestFile) {
    let claimed: unknown;
    try {
      claimed = (JSON.parse((await readWhole(zip, digestFile, maxBytes, refuse)).toString('utf8')) as { hash?: unknown } | null)?.hash;
    } catch (e) {
      if (!(e instanceof SyntaxError)) throw e;
    }
    const actual = `sha256:${createHash('sha256').update(text).digest('hex')}`;
    if (typeof claimed !== 'string' || !claimed.startsWith('sha256:')) problems.add('a datapackage-digest.json without a sha256 hash');
    else if (claimed.toLowerCase() !== actual) throw refuse(`datapackage-digest.json says datapackage.json's hash is ${claimed}; it is ${actual}`);
  }
  return typeof wacz_version === 'string' ? wacz_version : undefined;
}

/** An entry's bytes, refused when larger than `max` (as it declares itself; yauzl holds it to that). */
export async function readWhole(zip: ZipFile, entry: Entry, max: number, refuse: (why: string) => Error): Promise<Buffer> {
  if (entry.uncompressedSize > max) throw refuse(`${entry.fileName} has ${n(entry.uncompressedSize)} bytes, more than the ${n(max)} allowed`);
  const parts: Buffer[] = [];
  try {
    for await (const chunk of await zip.openReadStreamPromise(entry)) parts.push(chunk as Buffer);
  } catch (e) {
    throw refuse(`${entry.fileName} cannot be read: ${reason(e)}`);
  }
  return Buffer.concat(parts);
}

/**
 * The hex hash of an entry's bytes, streamed (an entry inflating past its declared size fails
 * here), and with `twice` the hash as js-wacz makes it.
 */
async function hashOf(zip: ZipFile, entry: Entry, algo: string, twice: boolean, refuse: (why: string) => Error): Promise<{ hex: string; twice?: string }> {
  const hash = createHash(algo);
  const quirk = twice ? new TwiceHash(algo) : undefined;
  try {
    for await (const chunk of await zip.openReadStreamPromise(entry)) {
      hash.update(chunk as Buffer);
      quirk?.update(chunk as Buffer);
    }
  } catch (e) {
    throw refuse(`${entry.fileName} cannot be read: ${reason(e)}`);
  }
  return { hex: hash.digest('hex'), ...(quirk ? { twice: quirk.digest() } : {}) };
}

/** A hash of the bytes with every 64 KiB block fed twice (the last, shorter one too). */
class TwiceHash {
  private readonly hash: Hash;
  private block: Buffer[] = [];
  private held = 0;
  constructor(algo: string) {
    this.hash = createHash(algo);
  }
  update(chunk: Buffer): void {
    for (let at = 0; at < chunk.length; ) {
      const piece = chunk.subarray(at, at + JS_WACZ_READ - this.held);
      this.hash.update(piece);
      this.block.push(Buffer.from(piece));
      this.held += piece.length;
      at += piece.length;
      if (this.held === JS_WACZ_READ) this.again();
    }
  }
  digest(): string {
    this.again();
    return this.hash.digest('hex');
  }
  private again(): void {
    for (const piece of this.block) this.hash.update(piece);
    this.block = [];
    this.held = 0;
  }
}
