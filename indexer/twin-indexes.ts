/**
 * Test fixture: the same documents, links and removals fed to two indexes — `exact`, which scores
 * every candidate and keeps no impact lists (so FlexSearch holds every posting), and `fast`, with
 * the tuning given (impact lists from low thresholds, and the postings split with them).
 */
import type { StoredDocument } from '../model/index.ts';
import { SearchIndex, type IndexTuning } from './search-index.ts';

export function twinIndexes(twoPass: Partial<IndexTuning>) {
  const docs = new Map<number, StoredDocument>();
  const inlinks = new Map<number, { texts: string[]; sources: number }>();
  const anchorsOf = (id: number) => inlinks.get(id) ?? { texts: [], sources: 0 };
  const exact = new SearchIndex((id) => docs.get(id), anchorsOf, { exactLimit: 1e9, headDf: 1e9 });
  const fast = new SearchIndex((id) => docs.get(id), anchorsOf, twoPass);
  return {
    docs,
    exact,
    fast,
    upsert(d: StoredDocument) {
      docs.set(d.id, d);
      exact.upsert(d);
      fast.upsert(d);
    },
    remove(id: number) {
      exact.remove(id);
      fast.remove(id);
    },
    link(id: number, text: string) {
      const a = inlinks.get(id) ?? { texts: [], sources: 0 };
      inlinks.set(id, { texts: [...a.texts, text], sources: a.sources + 1 });
      exact.refreshAnchors(id);
      fast.refreshAnchors(id);
    },
  };
}
