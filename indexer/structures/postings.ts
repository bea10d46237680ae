/**
 * The inverted index: FlexSearch 0.8 holding, for every term, the ids of the documents that
 * contain it. We feed it our own tokens (space-joined, split on spaces) so that its terms are
 * exactly the terms of TermStats; ranking is not its job (it has no relevance score).
 *
 * Facts this file is built around (../shared/docs/FLEXSEARCH.md):
 * - `fastupdate` makes update/remove cheap; without it they scan the whole index.
 * - `resolution: 1` puts every term in slot 0; we never use FlexSearch's order, and the
 *   remove-then-search crash of 0.8.212 only hits terms in non-zero slots. We still guard it.
 * - Its export blocks for seconds on a large index and its import drops `fastupdate`: a flush
 *   writes our vectors instead, and `rebuild` makes the postings from them on load.
 */
import { Index } from 'flexsearch';

const OPTIONS = { encode: (s: string) => s.split(' ').filter(Boolean), resolution: 1, tokenize: 'strict' as const };

export class Postings {
  private index: Index;
  constructor() {
    this.index = new Index({ ...OPTIONS, fastupdate: true });
  }

  set(docId: number, terms: readonly string[]): void {
    if (this.index.contain(docId)) this.index.update(docId, terms.join(' '));
    else this.index.add(docId, terms.join(' '));
  }

  /** Adds terms to a document already in the index. */
  append(docId: number, terms: readonly string[]): void {
    if (terms.length) this.index.append(docId, terms.join(' '));
  }

  remove(docId: number): void {
    this.index.remove(docId);
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
   * the fastupdate register are built directly — in FlexSearch 0.8's shapes (term → [ids] for
   * resolution 1, id → the id arrays holding it), checked first on an empty index; if they differ
   * (another FlexSearch version), documents are added through the API instead.
   */
  rebuild(docs: ReadonlyMap<number, { readonly termIds: Uint32Array }>, terms: readonly string[]): void {
    const fresh = new Index({ ...OPTIONS, fastupdate: true });
    const x = fresh as unknown as Internals;
    if (!(x.map instanceof Map) || !(x.reg instanceof Map) || x.map.size || x.reg.size || x.depth || x.resolution !== 1) {
      for (const [id, v] of docs) fresh.add(id, Array.from(v.termIds, (t) => terms[t]!).join(' '));
      this.index = fresh;
      return;
    }
    // Count first, then fill arrays of the exact size (a sparse array of a million terms is slow).
    const counts = new Uint32Array(terms.length);
    for (const v of docs.values()) for (const t of v.termIds) counts[t]!++;
    const lists: number[][] = Array.from(counts, (n) => new Array<number>(n));
    const filled = new Uint32Array(terms.length);
    const reg = new Map<number, number[][]>();
    for (const [id, v] of docs) {
      const refs: number[][] = new Array(v.termIds.length);
      let k = 0;
      for (const t of v.termIds) {
        const list = lists[t]!;
        list[filled[t]!++] = id;
        refs[k++] = list;
      }
      reg.set(id, refs);
    }
    for (let t = 0; t < terms.length; t++) if (counts[t]) x.map.set(terms[t]!, [lists[t]!]);
    x.reg = reg;
    this.index = fresh;
  }
}

type Internals = { map: Map<string, unknown>; reg: Map<number, unknown[][]> | Set<number>; depth?: number; resolution?: number };
