/**
 * The inverted index: FlexSearch 0.8 holding, for a term, the ids of the documents that contain it
 * (but for the pairs an impact list holds: split-postings.ts). We feed it our own tokens
 * (space-joined, split on spaces) so that its terms are exactly the terms of the dictionary (dictionary.ts); ranking is
 * not its job (it has no relevance score).
 *
 * Facts this file is built around (../shared/docs/FLEXSEARCH.md):
 * - Without `fastupdate`, FlexSearch's update/remove scan the whole index; with it, it keeps a
 *   register of every document's postings arrays — one reference per (document, term), about as
 *   much heap as the postings themselves (bench/index-memory: 6.64 KB a document for both). The
 *   caller knows a document's terms (its vector), so removals are made here instead, term by term
 *   in FlexSearch's map — what fastupdate's remove does with its references — and FlexSearch keeps
 *   only a set of ids. This relies on the map's shape (term → [ids] at resolution 1), checked on an
 *   empty index: if another FlexSearch version differs, fastupdate is used as before.
 * - `resolution: 1` puts every term in slot 0; we never use FlexSearch's order, and the
 *   remove-then-search crash of 0.8.212 only hits terms in non-zero slots. We still guard it.
 * - Its export blocks for seconds on a large index and its import drops `fastupdate`: a flush
 *   writes our vectors instead, and `rebuild` makes the postings from them on load.
 */
import { Index } from 'flexsearch';

const OPTIONS = { encode: (s: string) => s.split(' ').filter(Boolean), resolution: 1, tokenize: 'strict' as const };

/** FlexSearch's add with its undocumented arguments: append, and skip the check for an update (which would scan the index). */
type AddFn = (id: number, content: string, append?: boolean, skipUpdate?: boolean) => void;

export class Postings {
  private index: Index;
  /** Removals made here from the terms given (the map's shape is known); else FlexSearch's fastupdate. */
  private readonly own: boolean;
  constructor() {
    const plain = new Index({ ...OPTIONS });
    this.own = ownRemovals(plain);
    this.index = this.own ? plain : new Index({ ...OPTIONS, fastupdate: true });
  }

  /** Whether removals are made here, from the terms given (so that a caller may keep some terms' postings elsewhere: split-postings.ts). */
  get ownsRemovals(): boolean {
    return this.own;
  }

  /** Takes `ids` out of the term's list (they are held elsewhere now); only where removals are made here. */
  withoutDocs(term: string, ids: ReadonlySet<number>): void {
    if (!this.own || !ids.size) return;
    const map = (this.index as unknown as Internals).map as Map<string, number[][]>;
    const list = map.get(term)?.[0];
    if (!list) return;
    // (A new array: the spare room a push-grown one keeps goes too.)
    const kept = list.filter((id) => !ids.has(id));
    if (!kept.length) map.delete(term);
    else map.set(term, [kept]);
  }

  /** Sets a document's terms; `before`: the terms it had (none if it is new). */
  set(docId: number, terms: readonly string[], before: readonly string[] = []): void {
    if (!this.index.contain(docId)) this.index.add(docId, terms.join(' '));
    else if (!this.own) this.index.update(docId, terms.join(' '));
    else {
      this.removeTerms(docId, before);
      (this.index.add as AddFn).call(this.index, docId, terms.join(' '), false, true);
    }
  }

  /** Adds terms to a document already in the index. */
  append(docId: number, terms: readonly string[]): void {
    if (terms.length) this.index.append(docId, terms.join(' '));
  }

  /** Takes `terms` out of a document's postings (it stays in the index with its other terms, `all`: asked only where FlexSearch's fastupdate is used). */
  drop(docId: number, terms: readonly string[], all: () => readonly string[]): void {
    if (this.own) this.removeTerms(docId, terms);
    else this.index.update(docId, all().join(' '));
  }

  /** Removes a document; `terms`: the terms it has. */
  remove(docId: number, terms: readonly string[]): void {
    if (!this.own) {
      this.index.remove(docId);
      return;
    }
    if (!this.index.contain(docId)) return;
    this.removeTerms(docId, terms);
    (this.index as unknown as Internals).reg.delete(docId);
  }

  /** The id out of each term's list (a term left with none leaves the map, as FlexSearch's own cleanup does). */
  private removeTerms(docId: number, terms: readonly string[]): void {
    const map = (this.index as unknown as Internals).map as Map<string, number[][]>;
    for (const term of terms) {
      const slots = map.get(term);
      const ids = slots?.[0];
      if (!ids) continue;
      // (Recent documents are the likeliest to change: their ids are near the end.)
      const at = ids[ids.length - 1] === docId ? ids.length - 1 : ids.lastIndexOf(docId);
      if (at < 0) continue;
      if (at === ids.length - 1) ids.pop();
      else ids.splice(at, 1);
      if (!ids.length) map.delete(term);
    }
  }

  /** Every document containing `term`; `limit` must be at least its document frequency. */
  docsWith(term: string, limit: number): number[] {
    const run = () => this.index.search(term, { limit: Math.max(1, limit) }) as number[];
    try {
      return run();
    } catch (e) {
      // FlexSearch 0.8.212: a term whose postings were emptied by remove() can make search throw
      // (TypeError … reading 'result'). cleanup() repairs the structure; the search is retried once.
      if (!(e instanceof TypeError)) throw e;
      this.index.cleanup();
      return run();
    }
  }

  /**
   * Replaces the contents with the postings of `docs` (a loaded index's vectors). FlexSearch's own
   * export is not used: it blocks for seconds on a large index, and its import drops fastupdate.
   * Adding every document through the API takes ~20 s at 100,000 documents, so the term map and
   * the register are built directly — in FlexSearch 0.8's shapes (term → [ids] for resolution 1; a
   * set of ids, or with fastupdate id → the id arrays holding it), checked first on an empty index;
   * if they differ (another FlexSearch version), documents are added through the API instead.
   */
  rebuild(
    docs: ReadonlyMap<number, { readonly termIds: Uint32Array }>,
    terms: readonly string[],
    elsewhere: (termId: number, docId: number) => boolean = () => false,
  ): void {
    const fresh = this.own ? new Index({ ...OPTIONS }) : new Index({ ...OPTIONS, fastupdate: true });
    const x = fresh as unknown as Internals;
    const shaped =
      x.map instanceof Map && !x.map.size && !x.depth && x.resolution === 1 && (this.own ? x.reg instanceof Set : x.reg instanceof Map) && !x.reg.size;
    if (!shaped) {
      // (FlexSearch's own register then holds every posting: none are kept elsewhere.)
      for (const [id, v] of docs) fresh.add(id, Array.from(v.termIds, (t) => terms[t]!).join(' '));
      this.index = fresh;
      return;
    }
    // Count first, then fill arrays of the exact size (a sparse array of a million terms is slow).
    const skip = this.own ? elsewhere : () => false;
    const counts = new Uint32Array(terms.length);
    for (const [id, v] of docs) for (const t of v.termIds) if (!skip(t, id)) counts[t]!++;
    const lists: number[][] = Array.from(counts, (n) => new Array<number>(n));
    const filled = new Uint32Array(terms.length);
    const reg = this.own ? new Set<number>() : new Map<number, number[][]>();
    for (const [id, v] of docs) {
      const refs: number[][] | undefined = this.own ? undefined : new Array(v.termIds.length);
      let k = 0;
      for (const t of v.termIds) {
        if (skip(t, id)) continue;
        const list = lists[t]!;
        list[filled[t]!++] = id;
        if (refs) refs[k++] = list;
      }
      if (reg instanceof Set) reg.add(id);
      else reg.set(id, refs!);
    }
    for (let t = 0; t < terms.length; t++) if (counts[t]) x.map.set(terms[t]!, [lists[t]!]);
    x.reg = reg;
    this.index = fresh;
  }
}

/** Whether removals can be made here: FlexSearch 0.8's shapes on an empty index without fastupdate (a map of terms, a set of ids, one slot). */
function ownRemovals(index: Index): boolean {
  const x = index as unknown as Internals;
  return x.map instanceof Map && x.reg instanceof Set && !x.map.size && !x.depth && x.resolution === 1;
}

type Internals = { map: Map<string, unknown>; reg: Map<number, unknown[][]> | Set<number>; depth?: number; resolution?: number };
