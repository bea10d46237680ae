/**
 * The typo index: symmetric delete (SymSpell, after Wolf Garbe) over the vocabulary, for forgiving
 * search and "did you mean". Two words within one edit share a string made by deleting at most
 * one character of each (a substitution: the same position deleted in both; a transposition: one
 * of the pair; an insertion: the longer word's extra character). So each term is stored under the
 * strings made by deleting one of its characters (and under itself), and a word is looked up by
 * itself and its own deletions — a few dozen probes, never a scan of the vocabulary. Within two edits: the same
 * lookup from each string one edit from the word (over the vocabulary's common characters).
 *
 * Memory: only deletions of one character are stored (storing those of two would multiply the
 * entries by the word's length), as 32-bit hashes with the term id in two typed arrays — an open
 * addressing table of 8 bytes a slot, at most 70 % full: ~140 bytes per term of 8 letters, and no
 * string per entry (nor any made by a lookup). A hash may collide: every candidate is checked with the real edit distance.
 * The table grows by moving its entries to one twice as large a few at a time, at each insertion,
 * so that no insertion stalls the thread.
 */
import { editDistance, oneEditAway } from '../../lib/edit-distance.ts';
// (FNV's low bits alone probe badly: murmur3's finalizer spreads them.)
import { fmix } from '../../lib/simhash.ts';

/** What the index needs of the term dictionary. */
export type Dictionary = { term(id: number): string };

export type Near = { readonly id: number; readonly distance: number };

const MAX_LOAD = 0.7;
/** Slots of the old table moved at each insertion while the table grows. */
const MOVE_STEP = 64;
/** Characters tried in substitutions and insertions for the second edit: the most common ones. */
const ALPHABET = 32;

type Table = { hashes: Uint32Array; ids: Int32Array; mask: number };

const table = (size: number): Table => ({ hashes: new Uint32Array(size), ids: new Int32Array(size).fill(-1), mask: size - 1 });

/** What a query reads of the typo index (a shard answers from the corpus's: shards/replay.ts). */
export type TypoLookup = Pick<TypoIndex, 'near' | 'has' | 'alphabet'>;

export class TypoIndex {
  private now: Table = table(1 << 12);
  /** While growing: the previous table, moved up to `moved`. */
  private old: Table | undefined;
  private moved = 0;
  private entries = 0;
  /** Per term id: 1 when the term is in the index. */
  private member = new Uint8Array(1024);
  private terms = 0;
  /** How many indexed terms hold each character (the alphabet of the second edit). */
  private readonly chars = new Map<string, number>();
  private alphabetCache: { at: number; value: string } = { at: -1, value: '' };

  constructor(private readonly dict: Dictionary) {}

  /** Terms in the index, and the table's slots (8 bytes each). */
  size(): { terms: number; entries: number; slots: number } {
    return { terms: this.terms, entries: this.entries, slots: this.now.hashes.length + (this.old?.hashes.length ?? 0) };
  }

  has(id: number): boolean {
    return this.member[id] === 1;
  }

  add(id: number, term: string): void {
    if (this.has(id)) return;
    if (id >= this.member.length) {
      const bigger = new Uint8Array(Math.max(id + 1, this.member.length * 2));
      bigger.set(this.member);
      this.member = bigger;
    }
    this.member[id] = 1;
    this.terms++;
    for (const c of new Set(term)) this.chars.set(c, (this.chars.get(c) ?? 0) + 1);
    // The term itself, and each deletion (deleting either of two equal neighbours makes the same
    // string: it is stored once).
    this.put(hashWithout(term, -1), id);
    for (let i = 0; i < term.length; i++) if (i === 0 || term[i] !== term[i - 1]) this.put(hashWithout(term, i), id);
  }

  /**
   * Indexed terms within `maxDistance` (1 or 2) edits of `word`, with their distance (0: the word
   * itself). Checked: every answer is at that distance.
   */
  near(word: string, maxDistance: number): Near[] {
    const found = new Set<number>();
    this.near1(word, found);
    if (maxDistance >= 2) for (const v of oneEditAway(word, this.alphabet())) this.near1(v, found);
    const out: Near[] = [];
    for (const id of found) {
      if (!this.has(id)) continue;
      const d = editDistance(word, this.dict.term(id), maxDistance);
      if (d <= maxDistance) out.push({ id, distance: d });
    }
    return out;
  }

  /**
   * Adds to `found` the terms that may be one edit from `w` (not checked; hashes may collide): w's
   * own hash finds w and the terms one character longer; each of its deletions finds the terms
   * one character shorter and those of its length that share the deletion.
   */
  private near1(w: string, found: Set<number>): void {
    this.lookup(hashWithout(w, -1), found);
    for (let i = 0; i < w.length; i++) if (i === 0 || w[i] !== w[i - 1]) this.lookup(hashWithout(w, i), found);
  }

  /** The vocabulary's most common characters (recomputed as it grows by a tenth): those a second edit tries. */
  alphabet(): string {
    if (this.alphabetCache.at < 0 || this.terms > this.alphabetCache.at * 1.1 + 100) {
      const value = [...this.chars]
        .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
        .slice(0, ALPHABET)
        .map(([c]) => c)
        .join('');
      this.alphabetCache = { at: this.terms, value };
    }
    return this.alphabetCache.value;
  }

  private lookup(hash: number, found: Set<number>): void {
    for (const t of this.old ? [this.now, this.old] : [this.now]) {
      for (let slot = fmix(hash) & t.mask; t.ids[slot] !== -1; slot = (slot + 1) & t.mask) {
        if (t.hashes[slot] === hash) found.add(t.ids[slot]!);
      }
    }
  }

  private put(hash: number, id: number): void {
    if (this.old) this.moveSome();
    if (this.entries + 1 > MAX_LOAD * this.now.hashes.length) {
      // (A growth while the last one is still moving: finish that first.)
      while (this.old) this.moveSome();
      this.old = this.now;
      this.now = table(this.now.hashes.length * 2);
      this.moved = 0;
      this.entries = 0;
      this.moveSome();
    }
    insert(this.now, hash, id);
    this.entries++;
  }

  /** Moves the next MOVE_STEP slots of the old table into the new one; drops it when all are moved. */
  private moveSome(): void {
    const old = this.old!;
    const end = Math.min(old.ids.length, this.moved + MOVE_STEP);
    for (let s = this.moved; s < end; s++) {
      if (old.ids[s] === -1) continue;
      insert(this.now, old.hashes[s]!, old.ids[s]!);
      this.entries++;
    }
    this.moved = end;
    if (end === old.ids.length) this.old = undefined;
  }
}

function insert(t: Table, hash: number, id: number): void {
  let slot = fmix(hash) & t.mask;
  while (t.ids[slot] !== -1) slot = (slot + 1) & t.mask;
  t.hashes[slot] = hash;
  t.ids[slot] = id;
}

/** FNV-1a of `s`'s code units without the one at `skip` (-1: all of them); never a string made. */
export function hashWithout(s: string, skip: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    if (i === skip) continue;
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
