/** The seeds a crawl was started from, kept so that a resumed crawl knows its scope. */
export interface SeedStore {
  add(urls: readonly string[], now: number): Promise<void>;
  /** In the order they were added. */
  all(): Promise<string[]>;
}
