/**
 * The searcher of a process that also crawls (`trawl start`): each search runs through the main
 * thread's slices (lib/slices.ts `search`), so that searches go ahead of the crawl's page work but,
 * coming back to back, leave it about half the thread — the crawl goes on while a crowd searches.
 */
import type { Searcher, SearchOptions, SearchResponse } from '../indexer/index.ts';
import type { Slices } from '../lib/slices.ts';

export class SharedThreadSearcher implements Searcher {
  constructor(
    private readonly inner: Searcher,
    private readonly slices: Slices,
  ) {}

  search(query: string, options?: SearchOptions): Promise<SearchResponse> {
    return this.slices.search(() => this.inner.search(query, options));
  }

  suggest(query: string, limit?: number): Promise<string[]> {
    const { inner } = this;
    return inner.suggest ? this.slices.search(() => inner.suggest!(query, limit)) : Promise.resolve([]);
  }

  get documentCount(): number {
    return this.inner.documentCount;
  }

  get version(): number {
    return this.inner.version;
  }
}
