/**
 * The inverted index: FlexSearch 0.8 holding, for every term, the ids of the documents that
 * contain it. We feed it our own tokens (space-joined, split on spaces) so that its terms are
 * exactly the terms of TermStats; ranking is not its job (it has no relevance score).
 *
 * Facts this file is built around (../shared/docs/FLEXSEARCH.md):
 * - `fastupdate` makes update/remove cheap; without it they scan the whole index.
 * - `resolution: 1` puts every term in slot 0; we never use FlexSearch's order, and the
 *   remove-then-search crash of 0.8.212 only hits terms in non-zero slots. We still guard it.
 * - `import` drops `fastupdate` (and throws if it is on): `restoreFastUpdate` rebuilds the
 *   id → posting-lists register from the imported map, the structure `fastupdate` keeps.
 */
import { Index } from 'flexsearch';

export type PostingsExport = [key: string, data: string][];

const OPTIONS = { encode: (s: string) => s.split(' ').filter(Boolean), resolution: 1, tokenize: 'strict' as const };

export class Postings {
  private index: Index;
  /** False when a loaded index could not get fastupdate back (updates then scan, but stay correct). */
  fastUpdate = true;

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

  export(): PostingsExport {
    const out: PostingsExport = [];
    this.index.export((key: string, data: string) => {
      out.push([key, data]);
    });
    return out;
  }

  /** Replaces the contents with an export, and turns fastupdate back on. */
  import(chunks: PostingsExport): void {
    const fresh = new Index({ ...OPTIONS, fastupdate: false });
    for (const [key, data] of chunks) fresh.import(key, data);
    this.index = fresh;
    this.fastUpdate = restoreFastUpdate(fresh);
  }
}

type Internals = { fastupdate: boolean; map: Map<string, unknown>; reg: Set<number> | Map<number, unknown[][]>; depth?: number };

/**
 * Rebuilds what `fastupdate: true` keeps — for every id, the posting arrays that hold it — from the
 * imported term map. Checks the shapes it relies on first; if they differ (another FlexSearch
 * version), it leaves the index as imported and says so.
 */
function restoreFastUpdate(index: Index): boolean {
  const x = index as unknown as Internals;
  if (!(x.map instanceof Map) || !(x.reg instanceof Set) || x.fastupdate !== false || x.depth) return false;
  const reg = new Map<number, unknown[][]>();
  for (const slots of x.map.values()) {
    if (!Array.isArray(slots)) return false;
    for (const postings of slots) {
      if (!Array.isArray(postings)) continue;
      for (const id of postings as number[]) {
        let refs = reg.get(id);
        if (!refs) reg.set(id, (refs = []));
        refs.push(postings);
      }
    }
  }
  for (const id of x.reg) if (!reg.has(id)) reg.set(id, []);
  x.reg = reg;
  x.fastupdate = true;
  return true;
}
