/**
 * A bounded memory of links already known to be in the frontier, in front of the SQLite seen-set
 * (Mercator kept such a cache of popular URLs in front of its disk-based URL-seen test). Pages
 * repeat the same navigation links: on rust-doc most of the links of a page were seen before,
 * and normalizing them and asking SQLite again was a third of the main thread's time.
 *
 * Keys are absolute links exactly as extracted. Two generations of at most capacity/2 keys: a key
 * found in the older one moves to the newer, the older one is dropped when the newer one is full.
 * Memory stays bounded however long the crawl runs.
 */
export class SeenCache {
  private current = new Set<string>();
  private previous = new Set<string>();

  constructor(private readonly capacity = 50_000) {}

  has(link: string): boolean {
    if (this.current.has(link)) return true;
    if (!this.previous.has(link)) return false;
    this.add(link);
    return true;
  }

  /** Remember a link whose URL is in the frontier now. */
  add(link: string): void {
    this.current.add(link);
    if (this.current.size >= this.capacity / 2) {
      this.previous = this.current;
      this.current = new Set();
    }
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}
