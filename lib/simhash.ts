/**
 * SimHash (Charikar 2002, as Manku, Jain and Das Sarma used it for web pages in 2007): a 64-bit
 * fingerprint of a text such that texts that are nearly the same have fingerprints a few bits
 * apart, and texts that differ have fingerprints ~32 bits apart. Each feature — here each run of
 * three words, a shingle — is hashed to 64 bits; bit b of the fingerprint is set when more
 * features have bit b set than not.
 *
 * Words are case-folded and every run of digits reads as `#`: a mirror that prints another
 * version number, a date or a counter is the same text. Fingerprints are 16 hex digits, as stored.
 */

/** Fewer shingles than this (about ten words) say too little: such a text gets no fingerprint. */
export const MIN_SHINGLES = 8;
/** Shingles read at most (the counters below hold up to 2^PLANES − 1): the first ~1M words decide. */
const PLANES = 20;
const MAX_SHINGLES = 2 ** PLANES - 1;

/**
 * The shingles seen in the text being fingerprinted (each counts once: a table of numbers, all
 * `# # #`, must not outvote the prose), an open-addressing set reused from text to text: a slot
 * is in the set when its stamp is the current text's.
 */
let seenKeys = new Int32Array(1 << 14);
let seenStamps = new Uint32Array(1 << 14);
let stamp = 0;

/** The text's fingerprint (16 hex digits), or undefined when the text is too short to have one. */
export function simhash(text: string): string | undefined {
  // Bit-sliced counters: plane i holds bit i of the 32 per-bit-position counts of each half (so
  // adding a shingle's hash is a ripple carry of ~2 steps, not 64 increments).
  const lo = new Int32Array(PLANES);
  const hi = new Int32Array(PLANES);
  let w1 = 0;
  let w2 = 0;
  let words = 0;
  let n = 0;
  let h = 0x811c9dc5; // FNV-1a of the word being read
  let inWord = false;
  let digits = false;
  prepareSet(text.length);
  const mask = seenKeys.length - 1;
  for (let i = 0; i <= text.length && n < MAX_SHINGLES; i++) {
    let c = i < text.length ? text.charCodeAt(i) : 32;
    if (c >= 48 && c <= 57) {
      // A run of digits is one '#'.
      if (!digits) h = Math.imul(h ^ 35, 0x01000193);
      digits = true;
      inWord = true;
      continue;
    }
    digits = false;
    if (isWordChar(c)) {
      if (c >= 65 && c <= 90) c |= 32;
      h = Math.imul(h ^ c, 0x01000193);
      inWord = true;
      continue;
    }
    if (!inWord) continue;
    // A word ended: it closes the shingle of the two words before it and itself.
    inWord = false;
    const w = h;
    h = 0x811c9dc5;
    words++;
    if (words >= 3) {
      const s = fmix(Math.imul(Math.imul(w1 ^ 0x9e3779b9, 0x85ebca6b) ^ rotl(w2, 11), 0xc2b2ae35) ^ rotl(w, 23));
      // Into the set, unless it is there already.
      let slot = s & mask;
      while (seenStamps[slot] === stamp && seenKeys[slot] !== s) slot = (slot + 1) & mask;
      if (seenStamps[slot] !== stamp) {
        seenStamps[slot] = stamp;
        seenKeys[slot] = s;
        add(lo, s);
        add(hi, fmix(s ^ 0x5bd1e995));
        n++;
      }
    }
    w1 = w2;
    w2 = w;
  }
  if (n < MIN_SHINGLES) return undefined;
  return hex(majority(hi, n)) + hex(majority(lo, n));
}

/** Makes the set of shingles empty, with room for those of a text this long (a shingle per ~4 characters at most, half full). */
function prepareSet(chars: number): void {
  const want = Math.min(1 << 22, 1 << Math.ceil(Math.log2(Math.max(1 << 14, chars / 2))));
  if (want > seenKeys.length) {
    seenKeys = new Int32Array(want);
    seenStamps = new Uint32Array(want);
    stamp = 0;
  }
  stamp = (stamp + 1) >>> 0;
  if (stamp === 0) {
    // (Wrapped around: old stamps could be taken for this text's.)
    seenStamps.fill(0);
    stamp = 1;
  }
}

/** The number of bits in which two fingerprints differ. */
export function hammingDistance(a: string, b: string): number {
  const [ah, al] = halves(a);
  const [bh, bl] = halves(b);
  return popcount(ah ^ bh) + popcount(al ^ bl);
}

/** A fingerprint's high and low 32 bits (unsigned). */
export function halves(fingerprint: string): [number, number] {
  return [parseInt(fingerprint.slice(0, 8), 16) >>> 0, parseInt(fingerprint.slice(8, 16), 16) >>> 0];
}

/** Set bits in a 32-bit integer. */
export function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

/** Letters and digits of any script; ASCII punctuation, spaces and general punctuation (U+2000–U+206F) are not. */
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 97 && c <= 122) || (c >= 65 && c <= 90);
  return c > 0xbf && (c < 0x2000 || c > 0x206f) && c !== 0x3000;
}

/** Adds one to the count of every bit position set in `x` (a ripple carry through the planes). */
function add(planes: Int32Array, x: number): void {
  let carry = x;
  for (let i = 0; carry !== 0; i++) {
    const next = planes[i]! & carry;
    planes[i]! ^= carry;
    carry = next;
  }
}

/** The bits set in more than half of `n` features. */
function majority(planes: Int32Array, n: number): number {
  let out = 0;
  for (let b = 0; b < 32; b++) {
    let count = 0;
    for (let i = 0; i < PLANES; i++) count |= ((planes[i]! >>> b) & 1) << i;
    if (count * 2 > n) out |= 1 << b;
  }
  return out >>> 0;
}

/** MurmurHash3's finalizer: every input bit flips each output bit with probability ~1/2 (also spreads the typo index's FNV hashes). */
export function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return h ^ (h >>> 16);
}

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function hex(x: number): string {
  return (x >>> 0).toString(16).padStart(8, '0');
}
