/**
 * The source dictionary: the distinct sources of the indexed pages (host, language, type, topics:
 * ingest/source.ts) — few, since most pages of a host share them — each with a small id that a
 * document's vector holds, and how many indexed documents have each. Written by IndexContents;
 * read by the filters and facets (decided once per source: query/filters.ts), the stemmers a query
 * is stemmed by (query/languages.ts `stemmersIn`), the status's counts by type, and a flush.
 */
import { NO_SOURCE, type Source } from '../ingest/source.ts';

export class SourceDictionary {
  private readonly ids = new Map<string, number>();
  private readonly sources: Source[] = [];
  /** Documents indexed under each source id. */
  private readonly documents: number[] = [];

  /** Sources in the dictionary (ids 0 … sourceCount − 1). */
  get sourceCount(): number {
    return this.sources.length;
  }

  source(id: number): Source {
    return this.sources[id] ?? NO_SOURCE;
  }

  /** Documents indexed under source `id`. */
  documentsOf(id: number): number {
    return this.documents[id] ?? 0;
  }

  /** A document of source `id` counted in (`by` 1) or out (−1). */
  count(id: number, by: 1 | -1): void {
    this.documents[id] = (this.documents[id] ?? 0) + by;
  }

  /** The source's id, given it now if it has none. */
  intern(source: Source): number {
    // (An index flushed before topics existed has sources without them.)
    const topics = source.topics ?? '';
    const key = `${source.host}\n${source.lang}\n${source.type}\n${topics}`;
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.sources.length;
      this.sources.push({ host: source.host, lang: source.lang, type: source.type, topics });
      this.ids.set(key, id);
    }
    return id;
  }

  /** Every source, by id (for a flush). */
  all(): readonly Source[] {
    return this.sources;
  }
}
